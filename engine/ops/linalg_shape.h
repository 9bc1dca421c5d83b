#pragma once
// Shape and dtype inference of the linear-algebra and neural-network operators: one function per
// family, called by the CPU and CUDA kernels before they touch data; with no compute after them they
// are the Meta kernels (at the end of linalg_shape.cpp). Each throws
// Error naming the operator, the arguments' shapes or dtypes, and what is wrong.
#include <array>
#include <optional>
#include <utility>

#include "engine/core/scalar.h"
#include "engine/core/tensor.h"
#include "engine/ops/out_arguments.h"

namespace glassbox {

// Matrix products. All operands must share one dtype (no promotion), one device, and the dtype
// must be numeric (not bool). mm/addmm: [m, k] x [k, n] -> [m, n]; bmm: [b, m, k] x [b, k, n].
DimVector mm_shape(const char* op, const Tensor& self, const Tensor& mat2);
DimVector bmm_shape(const char* op, const Tensor& self, const Tensor& mat2);
// Also checks that `self` broadcasts to the product's shape.
DimVector addmm_shape(const char* op, const Tensor& self, const Tensor& mat1, const Tensor& mat2);
// addmm's (beta, alpha) as doubles; integer tensors accept only integral factors (as add's alpha).
std::pair<double, double> addmm_factors(const char* op, const Scalar& beta, const Scalar& alpha, ScalarType dtype);
// dot: two 1-D tensors of one length; the result is 0-d.
void check_dot(const char* op, const Tensor& self, const Tensor& other);

// Dtypes a kernel family accepts (the message lists them when `t` is not one).
void check_floating(const char* op, const char* arg, const Tensor& t);

// Window geometry along one spatial dimension: out = (in + 2*pad - dilation*(kernel-1) - 1) / stride + 1.
struct Window2d {
  std::array<int64_t, 2> kernel, stride, padding, dilation;
};

// conv2d: input [N, C, H, W] or unbatched [C, H, W]; weight [O, C/groups, kh, kw]; bias [O].
struct Conv2dShape {
  bool batched;
  int64_t batch, in_channels, height, width;
  int64_t out_channels, groups;
  int64_t out_height, out_width;
  Window2d window;
  DimVector output;  // the output's shape (3-D for unbatched input)
};
Conv2dShape conv2d_shape(const char* op, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                         IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups);

// max_pool2d / avg_pool2d: input [N, C, H, W] or [C, H, W]; the output keeps the leading dims.
// An empty stride means stride = kernel_size. Pooling windows may not be less than half padding.
struct Pool2dShape {
  int64_t planes;  // N * C
  int64_t height, width, out_height, out_width;
  bool ceil_mode;
  Window2d window;
  DimVector output;
};
Pool2dShape pool2d_shape(const char* op, const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                         IntArrayRef padding, IntArrayRef dilation, bool ceil_mode);
// avg_pool2d: the same geometry (no dilation) for floating-point inputs only.
Pool2dShape avg_pool2d_shape(const char* op, const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                             IntArrayRef padding, bool ceil_mode);

// layer norm over the trailing dims `normalized_shape`: rows = product of the leading dims,
// cols = product of normalized_shape; mean and rstd have the leading dims and 1s after them.
struct LayerNormShape {
  int64_t rows, cols;
  DimVector stats;
};
LayerNormShape layer_norm_shape(const char* op, const Tensor& input, IntArrayRef normalized_shape,
                                const std::optional<Tensor>& weight, const std::optional<Tensor>& bias);

// ---- backward helpers (engine/ops/nn_backward_shape.cpp): the forward's geometry, plus checks
// that the gradient (and saved tensors) have the shapes and dtypes the forward produced.
void check_grad(const char* op, const char* arg, const Tensor& grad, std::span<const int64_t> shape,
                const Tensor& like);
Conv2dShape convolution_backward_shape(const char* op, const Tensor& grad_output, const Tensor& input,
                                       const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
                                       IntArrayRef dilation, int64_t groups);
Pool2dShape max_pool2d_backward_shape(const char* op, const Tensor& grad_output, const Tensor& self,
                                      IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                      IntArrayRef dilation, bool ceil_mode, const Tensor& indices);
Pool2dShape avg_pool2d_backward_shape(const char* op, const Tensor& grad_output, const Tensor& self,
                                      IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode);
LayerNormShape layer_norm_backward_shape(const char* op, const Tensor& grad_out, const Tensor& input,
                                         IntArrayRef normalized_shape, const Tensor& mean, const Tensor& rstd,
                                         const std::optional<Tensor>& weight, const std::optional<Tensor>& bias);

}  // namespace glassbox
