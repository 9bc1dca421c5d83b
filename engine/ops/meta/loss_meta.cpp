// Meta kernels of the losses and their backward helpers: engine/ops/loss_shape.h, with no data.
#include "engine/core/empty.h"
#include "engine/ops/loss_shape.h"
#include "engine/ops/tensor_iterator.h"
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
Tensor meta(const LossShape& r) { return empty_tensor(r.shape, r.dtype, Device(DeviceType::Meta)); }
}  // namespace

Tensor mse_loss_meta(const Tensor& self, const Tensor& target, int64_t reduction) {
  return meta(pointwise_loss_shape("mse_loss", self, target, reduction));
}
Tensor l1_loss_meta(const Tensor& self, const Tensor& target, int64_t reduction) {
  return meta(pointwise_loss_shape("l1_loss", self, target, reduction));
}
Tensor mse_loss_backward_meta(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction) {
  const LossShape fwd = pointwise_loss_shape("mse_loss_backward", self, target, reduction);
  return meta(loss_backward_shape("mse_loss_backward", grad_output, fwd, self,
                                  broadcast_shapes(self.sizes(), target.sizes(), "mse_loss_backward")));
}
Tensor nll_loss_meta(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                     int64_t) {
  return meta(nll_loss_shape(self, target, weight, reduction));
}
Tensor nll_loss_backward_meta(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                              const std::optional<Tensor>& weight, int64_t reduction, int64_t) {
  return meta(loss_backward_shape("nll_loss_backward", grad_output, nll_loss_shape(self, target, weight, reduction), self,
                                  self.sizes()));
}
Tensor binary_cross_entropy_meta(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                 int64_t reduction) {
  return meta(bce_shape("binary_cross_entropy", self, target, weight, std::nullopt, reduction));
}
Tensor binary_cross_entropy_backward_meta(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                          const std::optional<Tensor>& weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_backward";
  return meta(loss_backward_shape(op, grad_output, bce_shape(op, self, target, weight, std::nullopt, reduction), self,
                                  self.sizes()));
}
Tensor binary_cross_entropy_with_logits_meta(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                             const std::optional<Tensor>& pos_weight, int64_t reduction) {
  return meta(bce_shape("binary_cross_entropy_with_logits", self, target, weight, pos_weight, reduction));
}
Tensor binary_cross_entropy_with_logits_backward_meta(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                                      const std::optional<Tensor>& weight,
                                                      const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_with_logits_backward";
  return meta(loss_backward_shape(op, grad_output, bce_shape(op, self, target, weight, pos_weight, reduction), self,
                                  self.sizes()));
}

}  // namespace glassbox::native
