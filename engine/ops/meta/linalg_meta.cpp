// Meta kernels of the linear-algebra and neural-network operators: the same shape and dtype
// functions the CPU kernels call (engine/ops/linalg_shape.h), and tensors with no data.
#include "engine/core/empty.h"
#include "engine/ops/linalg_shape.h"
#include "glassbox/ops/native/addmm.h"
#include "glassbox/ops/native/avg_pool2d.h"
#include "glassbox/ops/native/avg_pool2d_backward.h"
#include "glassbox/ops/native/bmm.h"
#include "glassbox/ops/native/conv2d.h"
#include "glassbox/ops/native/convolution_backward.h"
#include "glassbox/ops/native/dot.h"
#include "glassbox/ops/native/max_pool2d_with_indices.h"
#include "glassbox/ops/native/max_pool2d_with_indices_backward.h"
#include "glassbox/ops/native/mm.h"
#include "glassbox/ops/native/native_layer_norm.h"
#include "glassbox/ops/native/native_layer_norm_backward.h"

namespace glassbox::native {

namespace {
Tensor meta(std::span<const int64_t> shape, ScalarType dtype) {
  return empty_tensor(shape, dtype, Device(DeviceType::Meta));
}
}  // namespace

Tensor mm_meta(const Tensor& self, const Tensor& mat2) { return meta(mm_shape("mm", self, mat2), self.dtype()); }
Tensor& mm_out_meta(const Tensor& self, const Tensor& mat2, Tensor& out) {
  check_out("mm.out", out, mm_shape("mm.out", self, mat2), self.dtype(), self.device());
  return out;
}

Tensor bmm_meta(const Tensor& self, const Tensor& mat2) { return meta(bmm_shape("bmm", self, mat2), self.dtype()); }
Tensor& bmm_out_meta(const Tensor& self, const Tensor& mat2, Tensor& out) {
  check_out("bmm.out", out, bmm_shape("bmm.out", self, mat2), self.dtype(), self.device());
  return out;
}

Tensor addmm_meta(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  const DimVector shape = addmm_shape("addmm", self, mat1, mat2);
  addmm_factors("addmm", beta, alpha, self.dtype());
  return meta(shape, self.dtype());
}
Tensor& addmm_out_meta(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                       const Scalar& alpha, Tensor& out) {
  check_out("addmm.out", out, addmm_shape("addmm.out", self, mat1, mat2), self.dtype(), self.device());
  addmm_factors("addmm.out", beta, alpha, self.dtype());
  return out;
}

Tensor dot_meta(const Tensor& self, const Tensor& tensor) {
  check_dot("dot", self, tensor);
  return meta({}, self.dtype());
}

Tensor conv2d_meta(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return meta(conv2d_shape("conv2d", input, weight, bias, stride, padding, dilation, groups).output, input.dtype());
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_meta(const Tensor& grad_output, const Tensor& input,
                                                             const Tensor& weight, IntArrayRef stride,
                                                             IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const Conv2dShape s =
      convolution_backward_shape("convolution_backward", grad_output, input, weight, stride, padding, dilation, groups);
  const int64_t bias_shape[] = {s.out_channels};
  return {meta(input.sizes(), input.dtype()), meta(weight.sizes(), weight.dtype()), meta(bias_shape, input.dtype())};
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices_meta(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                        IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const Pool2dShape s = pool2d_shape("max_pool2d_with_indices", self, kernel_size, stride, padding, dilation, ceil_mode);
  return {meta(s.output, self.dtype()), meta(s.output, ScalarType::Int64)};
}

Tensor max_pool2d_with_indices_backward_meta(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                             bool ceil_mode, const Tensor& indices) {
  max_pool2d_backward_shape("max_pool2d_with_indices_backward", grad_output, self, kernel_size, stride, padding,
                            dilation, ceil_mode, indices);
  return meta(self.sizes(), self.dtype());
}

Tensor avg_pool2d_meta(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                       bool ceil_mode, bool /*count_include_pad*/) {
  return meta(avg_pool2d_shape("avg_pool2d", self, kernel_size, stride, padding, ceil_mode).output, self.dtype());
}

Tensor avg_pool2d_backward_meta(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool /*count_include_pad*/) {
  avg_pool2d_backward_shape("avg_pool2d_backward", grad_output, self, kernel_size, stride, padding, ceil_mode);
  return meta(self.sizes(), self.dtype());
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_meta(const Tensor& input, IntArrayRef normalized_shape,
                                                          const std::optional<Tensor>& weight,
                                                          const std::optional<Tensor>& bias, double /*eps*/) {
  const LayerNormShape s = layer_norm_shape("native_layer_norm", input, normalized_shape, weight, bias);
  return {meta(input.sizes(), input.dtype()), meta(s.stats, input.dtype()), meta(s.stats, input.dtype())};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_meta(const Tensor& grad_out, const Tensor& input,
                                                                   IntArrayRef normalized_shape, const Tensor& mean,
                                                                   const Tensor& rstd,
                                                                   const std::optional<Tensor>& weight,
                                                                   const std::optional<Tensor>& bias) {
  layer_norm_backward_shape("native_layer_norm_backward", grad_out, input, normalized_shape, mean, rstd, weight, bias);
  return {meta(input.sizes(), input.dtype()), meta(normalized_shape, input.dtype()),
          meta(normalized_shape, input.dtype())};
}

}  // namespace glassbox::native
