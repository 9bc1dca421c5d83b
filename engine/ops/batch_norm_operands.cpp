// native_batch_norm and its backward: one kernel each for CPU, CUDA and Meta. The arguments are
// checked, converted and the results allocated here; the device's BatchNormBackend
// (engine/ops/kernels/batch_norm.h) computes, Meta has none and returns them unfilled.
#include "engine/ops/batch_norm_operands.h"

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/ops/kernels/batch_norm.h"
#include "engine/ops/linalg_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/native_batch_norm.h"
#include "glassbox/ops/native/native_batch_norm_backward.h"

namespace glassbox {

using detail::str_cat;

namespace {

// The dtype the kernels compute and keep per-channel values in: float32 for float16/bfloat16.
ScalarType compute_dtype(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 ? ScalarType::Float32 : t;
}

bool given(const std::optional<Tensor>& t) { return t && t->defined(); }

BatchNormShape batch_norm_shape(const char* op, const Tensor& input) {
  if (!input.defined()) throw Error(str_cat(op, ": input is an undefined tensor"));
  check_floating(op, "input", input);
  if (input.dim() < 2) {
    throw Error(str_cat(op, ": expected an input of shape (N, C, *), got ", shape_to_string(input.sizes())));
  }
  BatchNormShape s{input.sizes()[0], input.sizes()[1], 1};
  for (int64_t d = 2; d < input.dim(); ++d) s.spatial *= input.sizes()[d];
  return s;
}

// A per-channel tensor: C elements of a floating dtype, on the input's device.
void check_per_channel(const char* op, const char* name, const Tensor& t, const Tensor& input, int64_t channels) {
  if (!(t.device() == input.device())) {
    throw Error(str_cat(op, ": expected input and ", name, " on one device, got ", input.device().to_string(), " and ",
                        t.device().to_string()));
  }
  check_floating(op, name, t);
  if (t.numel() != channels) {
    throw Error(str_cat(op, ": ", name, " should contain ", channels, " elements not ", t.numel()));
  }
}

// The C values of t, contiguous in the compute dtype (t itself when it already is).
Tensor per_channel(const Tensor& t, ScalarType dtype) { return t.to(dtype).contiguous().reshape({t.numel()}); }
Tensor per_channel(const std::optional<Tensor>& t, ScalarType dtype) {
  return given(t) ? per_channel(*t, dtype) : Tensor();
}

}  // namespace

BatchNormOperands batch_norm_operands(const Tensor& input, const std::optional<Tensor>& weight,
                                      const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                                      const std::optional<Tensor>& running_var, bool training, double momentum,
                                      double eps) {
  static constexpr const char* op = "native_batch_norm";
  BatchNormOperands o;
  o.s = batch_norm_shape(op, input);
  const int64_t C = o.s.channels;
  for (auto [name, t] : {std::pair{"weight", &weight},
                         {"bias", &bias},
                         {"running_mean", &running_mean},
                         {"running_var", &running_var}}) {
    if (given(*t)) check_per_channel(op, name, **t, input, C);
  }
  if (training && o.s.count() <= 1) {
    throw Error(str_cat(op, ": expected more than 1 value per channel when training, got input of shape ",
                        shape_to_string(input.sizes())));
  }
  if (!training && (!given(running_mean) || !given(running_var))) {
    throw Error(str_cat(op, ": running_mean and running_var are needed when not training"));
  }
  if (!(eps >= 0)) throw Error(str_cat(op, ": eps must be non-negative, got ", eps));
  const ScalarType cdt = compute_dtype(input.dtype());
  o.training = training, o.momentum = momentum, o.eps = eps;
  o.x = input.contiguous();
  o.w = per_channel(weight, cdt), o.b = per_channel(bias, cdt);
  o.running_mean = per_channel(running_mean, cdt), o.running_var = per_channel(running_var, cdt);
  o.out = empty_tensor(input.sizes(), input.dtype(), input.device());
  o.save_mean = empty_tensor(std::vector<int64_t>{C}, cdt, input.device());
  o.save_invstd = empty_tensor(std::vector<int64_t>{C}, cdt, input.device());
  return o;
}

BatchNormBackwardOperands batch_norm_backward_operands(const Tensor& grad_out, const Tensor& input,
                                                       const std::optional<Tensor>& weight, const Tensor& save_mean,
                                                       const Tensor& save_invstd, bool training) {
  static constexpr const char* op = "native_batch_norm_backward";
  BatchNormBackwardOperands o;
  o.s = batch_norm_shape(op, input);
  const int64_t C = o.s.channels;
  check_grad(op, "grad_out", grad_out, input.sizes(), input);
  if (given(weight)) check_per_channel(op, "weight", *weight, input, C);
  for (auto [name, t] : {std::pair{"save_mean", &save_mean}, {"save_invstd", &save_invstd}}) {
    if (!t->defined()) throw Error(str_cat(op, ": ", name, " is an undefined tensor"));
    check_per_channel(op, name, *t, input, C);
  }
  const ScalarType cdt = compute_dtype(input.dtype());
  o.training = training;
  o.g = grad_out.contiguous(), o.x = input.contiguous();
  o.w = per_channel(weight, cdt);
  o.mean = per_channel(save_mean, cdt), o.invstd = per_channel(save_invstd, cdt);
  o.grad_in = empty_tensor(input.sizes(), input.dtype(), input.device());
  o.grad_w = empty_tensor(std::vector<int64_t>{C}, cdt, input.device());
  o.grad_b = empty_tensor(std::vector<int64_t>{C}, cdt, input.device());
  return o;
}

namespace native {

namespace {
// Training wrote the new running statistics into `computed`; when that was a converted copy of the
// caller's tensor, they go back into it.
void write_back(const std::optional<Tensor>& running, const Tensor& computed) {
  if (!given(running) || !computed.defined()) return;
  if (running->data_ptr() == computed.data_ptr() && running->dtype() == computed.dtype()) return;  // written in place
  Tensor target = *running;
  glassbox::copy_(target, computed.reshape(running->sizes()));
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_generic(const Tensor& input, const std::optional<Tensor>& weight,
                                                             const std::optional<Tensor>& bias,
                                                             const std::optional<Tensor>& running_mean,
                                                             const std::optional<Tensor>& running_var, bool training,
                                                             double momentum, double eps) {
  BatchNormOperands o = batch_norm_operands(input, weight, bias, running_mean, running_var, training, momentum, eps);
  if (const kernels::BatchNormBackend* backend = kernels::BatchNormBackends::of(input.device())) {
    backend->forward(o);
    if (training) write_back(running_mean, o.running_mean), write_back(running_var, o.running_var);
  }
  return {o.out, o.save_mean, o.save_invstd};
}

// grad_weight and grad_bias are always returned (shape [C]; weight's dtype, else the compute dtype).
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward_generic(const Tensor& grad_out, const Tensor& input,
                                                                      const std::optional<Tensor>& weight,
                                                                      const Tensor& save_mean,
                                                                      const Tensor& save_invstd, bool training) {
  BatchNormBackwardOperands o = batch_norm_backward_operands(grad_out, input, weight, save_mean, save_invstd, training);
  if (const kernels::BatchNormBackend* backend = kernels::BatchNormBackends::of(input.device())) backend->backward(o);
  if (given(weight)) {
    const std::vector<int64_t> shape(weight->sizes().begin(), weight->sizes().end());
    return {o.grad_in, o.grad_w.to(weight->dtype()).reshape(shape), o.grad_b.to(weight->dtype()).reshape(shape)};
  }
  return {o.grad_in, o.grad_w, o.grad_b};
}

}  // namespace native
}  // namespace glassbox
