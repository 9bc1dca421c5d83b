// The loss family's front end: each operator's kernel on CPU, CUDA and Meta (see losses.h). Every
// check and error text is here or in loss_shape.cpp, so they read the same on every device.
#include "engine/ops/losses.h"

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/ops/loss_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/binary_cross_entropy.h"
#include "glassbox/ops/native/binary_cross_entropy_backward.h"
#include "glassbox/ops/native/binary_cross_entropy_with_logits.h"
#include "glassbox/ops/native/binary_cross_entropy_with_logits_backward.h"
#include "glassbox/ops/native/l1_loss.h"
#include "glassbox/ops/native/mse_loss.h"
#include "glassbox/ops/native/mse_loss_backward.h"
#include "glassbox/ops/native/nll_loss.h"
#include "glassbox/ops/native/nll_loss_backward.h"

namespace glassbox::native {

namespace {
using F = LossFormula;

// The element-wise loss (or gradient) over the inputs, broadcast and converted to `r`'s dtype;
// Meta gets a tensor of the broadcast shape.
Tensor pointwise(const char* op, F formula, std::initializer_list<const Tensor*> inputs, ScalarType dtype,
                 double scale = 1) {
  const Tensor& first = **inputs.begin();
  const LossBackend* backend = LossBackends::of(first.device());
  if (!backend) {
    DimVector shape = first.sizes();
    for (const Tensor* in : inputs) shape = broadcast_shapes(shape, in->sizes(), op);
    return empty_tensor(shape, dtype, first.device());
  }
  Tensor out;
  TensorIteratorConfig config(op);
  config.add_output(&out).compute_dtype(dtype);
  for (const Tensor* in : inputs) config.add_input(*in);
  TensorIterator it = config.build();
  backend->pointwise(formula, it, scale);
  it.finish();
  return out;
}

// The loss computed element-wise, summed or averaged into a 0-d tensor unless Reduction::None.
Tensor reduced(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return glassbox::mean(loss);
  if (reduction == Reduction::Sum) return glassbox::sum(loss);
  return loss;
}

double mean_scale(int64_t reduction, int64_t numel) {
  return reduction == Reduction::Mean ? 1.0 / static_cast<double>(numel) : 1.0;
}

// A 0-d 1 of `dtype` for an absent weight, so that one formula serves with and without it.
Tensor weight_or_one(const std::optional<Tensor>& w, ScalarType dtype, Device device) {
  if (w && w->defined()) return *w;
  return glassbox::full({}, Scalar(1.0), dtype, device);
}

void check_probabilities(const Tensor& self, ScalarType dtype) {
  const LossBackend* backend = LossBackends::of(self.device());
  if (const std::optional<double> x = backend ? backend->first_non_probability(self, dtype) : std::nullopt)
    throw Error("binary_cross_entropy: every element of self must be in [0, 1], got " + std::to_string(*x) +
                " (self of shape " + shape_to_string(self.sizes()) + ")");
}

// nll_loss's per-sample losses and weights, in the compute dtype (float32 for float16/bfloat16),
// with the targets checked.
struct NllSamples {
  Tensor target, weight, loss, weights;
};
NllSamples nll_samples(const char* op, const LossBackend& backend, const Tensor& self, const Tensor& target,
                       const std::optional<Tensor>& weight, int64_t ignore_index) {
  NllSamples s;
  s.target = target.to(ScalarType::Int64).contiguous();
  if (weight && weight->defined()) s.weight = weight->to(self.dtype()).contiguous();
  const int64_t classes = self.sizes()[self.dim() - 1];
  const int64_t n[] = {self.dim() == 2 ? self.sizes()[0] : 1};
  const ScalarType acc = self.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  s.loss = empty_tensor(n, acc, self.device());
  s.weights = empty_tensor(n, acc, self.device());
  backend.nll_samples(self.contiguous(), s.target, s.weight, ignore_index, s.loss, s.weights,
                      [op = std::string(op), classes, shape = shape_to_string(self.sizes())](int64_t t) {
    throw IndexError(op + ": target " + std::to_string(t) + " is out of bounds for " + std::to_string(classes) +
                     " classes (self of shape " + shape + ")");
  });
  return s;
}
}  // namespace

Tensor mse_loss_generic(const Tensor& self, const Tensor& target, int64_t reduction) {
  const LossShape r = pointwise_loss_shape("mse_loss", self, target, reduction);
  return reduced(pointwise("mse_loss", F::SquaredError, {&self, &target}, r.dtype), reduction);
}

Tensor l1_loss_generic(const Tensor& self, const Tensor& target, int64_t reduction) {
  const LossShape r = pointwise_loss_shape("l1_loss", self, target, reduction);
  return reduced(pointwise("l1_loss", F::AbsoluteError, {&self, &target}, r.dtype), reduction);
}

// d/dself of mean((self - target)^2) = 2 (self - target) grad / N; the gradient has the broadcast shape.
Tensor mse_loss_backward_generic(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                 int64_t reduction) {
  const LossShape fwd = pointwise_loss_shape("mse_loss_backward", self, target, reduction);
  const DimVector full = broadcast_shapes(self.sizes(), target.sizes(), "mse_loss_backward");
  loss_backward_shape("mse_loss_backward", grad_output, fwd, self, full);
  int64_t n = 1;
  for (int64_t s : full) n *= s;
  return pointwise("mse_loss_backward", F::SquaredErrorGrad, {&self, &target, &grad_output}, fwd.dtype,
                   2.0 * mean_scale(reduction, n));
}

Tensor binary_cross_entropy_generic(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                    int64_t reduction) {
  const LossShape r = bce_shape("binary_cross_entropy", self, target, weight, std::nullopt, reduction);
  check_probabilities(self, r.dtype);
  const Tensor w = weight_or_one(weight, r.dtype, self.device());
  return reduced(pointwise("binary_cross_entropy", F::Bce, {&self, &target, &w}, r.dtype), reduction);
}

Tensor binary_cross_entropy_backward_generic(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                             const std::optional<Tensor>& weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_backward";
  const LossShape fwd = bce_shape(op, self, target, weight, std::nullopt, reduction);
  loss_backward_shape(op, grad_output, fwd, self, self.sizes());
  const Tensor w = weight_or_one(weight, fwd.dtype, self.device());
  return pointwise(op, F::BceGrad, {&self, &target, &grad_output, &w}, fwd.dtype, mean_scale(reduction, self.numel()));
}

Tensor binary_cross_entropy_with_logits_generic(const Tensor& self, const Tensor& target,
                                                const std::optional<Tensor>& weight,
                                                const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_with_logits";
  const LossShape r = bce_shape(op, self, target, weight, pos_weight, reduction);
  const Tensor w = weight_or_one(weight, r.dtype, self.device()), p = weight_or_one(pos_weight, r.dtype, self.device());
  return reduced(pointwise(op, F::Logits, {&self, &target, &w, &p}, r.dtype), reduction);
}

Tensor binary_cross_entropy_with_logits_backward_generic(const Tensor& grad_output, const Tensor& self,
                                                         const Tensor& target, const std::optional<Tensor>& weight,
                                                         const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_with_logits_backward";
  const LossShape fwd = bce_shape(op, self, target, weight, pos_weight, reduction);
  loss_backward_shape(op, grad_output, fwd, self, self.sizes());
  const Tensor w = weight_or_one(weight, fwd.dtype, self.device()),
               p = weight_or_one(pos_weight, fwd.dtype, self.device());
  return pointwise(op, F::LogitsGrad, {&self, &target, &w, &p, &grad_output}, fwd.dtype,
                   mean_scale(reduction, self.numel()));
}

// Per sample -w[t] self[i, t] (0 where t == ignore_index); the mean divides by the total weight of
// the samples that count.
Tensor nll_loss_generic(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                        int64_t reduction, int64_t ignore_index) {
  const LossShape r = nll_loss_shape(self, target, weight, reduction);
  Tensor result = empty_tensor(r.shape, r.dtype, self.device());
  const LossBackend* backend = LossBackends::of(self.device());
  if (!backend) return result;
  const NllSamples s = nll_samples("nll_loss", *backend, self, target, weight, ignore_index);
  if (reduction == Reduction::None) glassbox::copy_(result, glassbox::reshape(s.loss, r.shape), false);
  else if (reduction == Reduction::Sum) glassbox::copy_(result, glassbox::sum(s.loss), false);
  else glassbox::copy_(result, glassbox::div(glassbox::sum(s.loss), glassbox::sum(s.weights)), false);
  return result;
}

// grad[i, t] = -w[t] grad_output (per sample for Reduction::None), over the total weight for the mean.
Tensor nll_loss_backward_generic(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                 const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index) {
  const LossShape fwd = nll_loss_shape(self, target, weight, reduction);
  const LossShape r = loss_backward_shape("nll_loss_backward", grad_output, fwd, self, self.sizes());
  const LossBackend* backend = LossBackends::of(self.device());
  if (!backend) return empty_tensor(r.shape, r.dtype, self.device());
  const NllSamples s = nll_samples("nll_loss_backward", *backend, self, target, weight, ignore_index);
  Tensor result = glassbox::zeros(r.shape, r.dtype, self.device());
  backend->nll_backward(s.target, s.weight, grad_output.to(r.dtype).contiguous(), glassbox::sum(s.weights),
                        ignore_index, reduction, result);
  return result;
}

}  // namespace glassbox::native
