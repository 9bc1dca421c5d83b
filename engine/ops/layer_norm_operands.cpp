// native_layer_norm and its backward: one kernel each for CPU, CUDA and Meta. The operands are
// checked, made contiguous and the results allocated here; the device's LayerNormBackend
// (engine/ops/kernels/layer_norm.h) computes, Meta has none and returns them unfilled.
#include "engine/ops/layer_norm_operands.h"

#include "engine/core/empty.h"
#include "engine/ops/kernels/layer_norm.h"
#include "glassbox/ops/native/native_layer_norm.h"
#include "glassbox/ops/native/native_layer_norm_backward.h"

namespace glassbox {

namespace {
// The contiguous data of an optional parameter, or an undefined tensor when it was not given.
Tensor optional_contiguous(const std::optional<Tensor>& t) { return t && t->defined() ? t->contiguous() : Tensor(); }
}  // namespace

LayerNormOperands layer_norm_operands(const Tensor& input, IntArrayRef normalized_shape,
                                      const std::optional<Tensor>& weight, const std::optional<Tensor>& bias) {
  LayerNormOperands o;
  o.s = layer_norm_shape("native_layer_norm", input, normalized_shape, weight, bias);
  o.x = input.contiguous(), o.w = optional_contiguous(weight), o.b = optional_contiguous(bias);
  o.out = empty_tensor(input.sizes(), input.dtype(), input.device());
  o.mean = empty_tensor(o.s.stats, input.dtype(), input.device());
  o.rstd = empty_tensor(o.s.stats, input.dtype(), input.device());
  return o;
}

LayerNormBackwardOperands layer_norm_backward_operands(const Tensor& grad_out, const Tensor& input,
                                                       IntArrayRef normalized_shape, const Tensor& mean,
                                                       const Tensor& rstd, const std::optional<Tensor>& weight,
                                                       const std::optional<Tensor>& bias) {
  LayerNormBackwardOperands o;
  o.s = layer_norm_backward_shape("native_layer_norm_backward", grad_out, input, normalized_shape, mean, rstd, weight,
                                  bias);
  o.g = grad_out.contiguous(), o.x = input.contiguous(), o.mu = mean.contiguous(), o.rs = rstd.contiguous();
  o.w = optional_contiguous(weight);
  o.grad_in = empty_tensor(input.sizes(), input.dtype(), input.device());
  o.grad_w = empty_tensor(normalized_shape, input.dtype(), input.device());
  o.grad_b = empty_tensor(normalized_shape, input.dtype(), input.device());
  return o;
}

namespace native {

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_generic(const Tensor& input, IntArrayRef normalized_shape,
                                                             const std::optional<Tensor>& weight,
                                                             const std::optional<Tensor>& bias, double eps) {
  LayerNormOperands o = layer_norm_operands(input, normalized_shape, weight, bias);
  if (const kernels::LayerNormBackend* backend = kernels::LayerNormBackends::of(input.device()))
    backend->forward(o, eps);
  return {o.out, o.mean, o.rstd};
}

// grad_weight and grad_bias are always returned (shape normalized_shape), weight and bias given or not.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_generic(const Tensor& grad_out, const Tensor& input,
                                                                      IntArrayRef normalized_shape, const Tensor& mean,
                                                                      const Tensor& rstd,
                                                                      const std::optional<Tensor>& weight,
                                                                      const std::optional<Tensor>& bias) {
  LayerNormBackwardOperands o =
      layer_norm_backward_operands(grad_out, input, normalized_shape, mean, rstd, weight, bias);
  if (const kernels::LayerNormBackend* backend = kernels::LayerNormBackends::of(input.device())) backend->backward(o);
  return {o.grad_in, o.grad_w, o.grad_b};
}

}  // namespace native
}  // namespace glassbox
