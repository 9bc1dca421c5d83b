// Neural-network operators written over their kernels' fuller forms (CompositeImplicitAutograd):
// max_pool2d keeps the values of max_pool2d_with_indices, layer_norm the output of
// native_layer_norm (whose mean and rstd autograd saves for the backward).
#include "engine/ops/linalg_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/layer_norm.h"
#include "glassbox/ops/native/max_pool2d.h"

namespace glassbox::native {

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  pool2d_shape("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode);  // errors under this name
  return std::get<0>(glassbox::max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
  layer_norm_shape("layer_norm", input, normalized_shape, weight, bias);
  return std::get<0>(glassbox::native_layer_norm(input, normalized_shape, weight, bias, eps));
}

}  // namespace glassbox::native
