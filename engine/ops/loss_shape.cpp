#include "engine/ops/loss_shape.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/ops/tensor_iterator.h"

namespace glassbox {

namespace {
std::string shape_of(const Tensor& t) { return shape_to_string(t.sizes()); }
bool same_shape(std::span<const int64_t> a, std::span<const int64_t> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}
void check_devices(const char* op, const Tensor& a, const Tensor& b) {
  if (!(a.device() == b.device()))
    throw Error(std::string(op) + ": expected all tensors on one device, got " + a.device().to_string() + " and " +
                b.device().to_string());
}
DimVector reduced_shape(const DimVector& full, int64_t reduction) {
  return reduction == Reduction::None ? full : DimVector();
}
}  // namespace

void check_reduction_arg(const char* op, int64_t reduction) {
  if (reduction != Reduction::None && reduction != Reduction::Mean && reduction != Reduction::Sum)
    throw Error(std::string(op) + ": reduction must be 0 (none), 1 (mean) or 2 (sum), got " +
                std::to_string(reduction));
}

LossShape pointwise_loss_shape(const char* op, const Tensor& self, const Tensor& target, int64_t reduction) {
  GB_CHECK(self.defined() && target.defined(), op, ": an argument is an undefined tensor");
  check_reduction_arg(op, reduction);
  check_devices(op, self, target);
  const ScalarType dtype = promote_types(self.dtype(), target.dtype());
  if (!is_floating_point(dtype))
    throw NotImplementedError(std::string(op) + ": expected floating point inputs, got self " +
                              std::string(to_string(self.dtype())) + " and target " +
                              std::string(to_string(target.dtype())));
  return {reduced_shape(broadcast_shapes(self.sizes(), target.sizes(), op), reduction), dtype};
}

LossShape nll_loss_shape(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                         int64_t reduction) {
  const char* op = "nll_loss";
  GB_CHECK(self.defined() && target.defined(), op, ": an argument is an undefined tensor");
  check_reduction_arg(op, reduction);
  check_devices(op, self, target);
  if (self.dim() != 1 && self.dim() != 2)
    throw Error(std::string(op) + ": expected self of shape (N, C) or (C), got " + shape_of(self));
  if (!is_floating_point(self.dtype()))
    throw NotImplementedError(std::string(op) + ": expected floating point log-probabilities, got " +
                              std::string(to_string(self.dtype())));
  if (is_floating_point(target.dtype()) || target.dtype() == ScalarType::Bool)
    throw Error(std::string(op) + ": expected a target of integer class indices, got " +
                std::string(to_string(target.dtype())) + " of shape " + shape_of(target));
  const bool batched = self.dim() == 2;
  if (target.dim() != (batched ? 1 : 0) || (batched && target.sizes()[0] != self.sizes()[0]))
    throw Error(std::string(op) + ": target of shape " + shape_of(target) + " does not match self of shape " +
                shape_of(self) + (batched ? " (expected (N))" : " (expected ())"));
  const int64_t classes = self.sizes()[self.dim() - 1];
  if (weight && weight->defined()) {
    check_devices(op, self, *weight);
    if (weight->dim() != 1 || weight->sizes()[0] != classes)
      throw Error(std::string(op) + ": weight of shape " + shape_of(*weight) + " must have one value per class (" +
                  std::to_string(classes) + ") of self of shape " + shape_of(self));
  }
  DimVector full;
  if (batched) full.push_back(self.sizes()[0]);
  return {reduced_shape(full, reduction), self.dtype()};
}

LossShape bce_shape(const char* op, const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                    const std::optional<Tensor>& pos_weight, int64_t reduction) {
  GB_CHECK(self.defined() && target.defined(), op, ": an argument is an undefined tensor");
  check_reduction_arg(op, reduction);
  check_devices(op, self, target);
  if (!same_shape(self.sizes(), target.sizes()))
    throw Error(std::string(op) + ": target of shape " + shape_of(target) + " must have the shape of self " +
                shape_of(self));
  ScalarType dtype = promote_types(self.dtype(), target.dtype());
  for (const std::optional<Tensor>* extra : {&weight, &pos_weight}) {
    if (!*extra || !(*extra)->defined()) continue;
    const Tensor& w = **extra;
    check_devices(op, self, w);
    const char* what = extra == &weight ? "weight" : "pos_weight";
    if (!same_shape(broadcast_shapes(self.sizes(), w.sizes(), op), self.sizes()))
      throw Error(std::string(op) + ": " + what + " of shape " + shape_of(w) + " does not broadcast to self of shape " +
                  shape_of(self));
    dtype = promote_types(dtype, w.dtype());
  }
  if (!is_floating_point(dtype))
    throw NotImplementedError(std::string(op) + ": expected floating point inputs, got self " +
                              std::string(to_string(self.dtype())) + " and target " +
                              std::string(to_string(target.dtype())));
  return {reduced_shape(self.sizes(), reduction), dtype};
}

LossShape loss_backward_shape(const char* op, const Tensor& grad_output, const LossShape& forward, const Tensor& self,
                              const DimVector& grad_shape) {
  GB_CHECK(grad_output.defined(), op, ": grad_output is an undefined tensor");
  if (!same_shape(grad_output.sizes(), forward.shape))
    throw Error(std::string(op) + ": grad_output of shape " + shape_of(grad_output) +
                " does not match the loss's shape " + shape_to_string(forward.shape));
  check_devices(op, grad_output, self);
  if (!is_floating_point(grad_output.dtype()))
    throw NotImplementedError(std::string(op) + ": expected a floating point grad_output, got " +
                              std::string(to_string(grad_output.dtype())));
  return {grad_shape, forward.dtype};
}

}  // namespace glassbox
