// Argument checks of the backward helpers of conv2d, pooling and layer norm: each recomputes its
// forward's geometry (engine/ops/linalg_shape.cpp) and checks the incoming gradient against it.
#include "engine/core/error.h"
#include "engine/ops/linalg_shape.h"

namespace glassbox {

using detail::str_cat;

void check_grad(const char* op, const char* arg, const Tensor& grad, std::span<const int64_t> shape,
                const Tensor& like) {
  if (!grad.defined()) throw Error(str_cat(op, ": ", arg, " is an undefined tensor"));
  if (!std::equal(grad.sizes().begin(), grad.sizes().end(), shape.begin(), shape.end())) {
    throw Error(
        str_cat(op, ": ", arg, " has shape ", shape_to_string(grad.sizes()), ", expected ", shape_to_string(shape)));
  }
  if (grad.dtype() != like.dtype()) {
    throw Error(str_cat(op, ": ", arg, " has dtype ", to_string(grad.dtype()), ", expected ", to_string(like.dtype())));
  }
  if (!(grad.device() == like.device())) {
    throw Error(str_cat(op, ": ", arg, " is on ", grad.device().to_string(), ", expected ", like.device().to_string()));
  }
}

Conv2dShape convolution_backward_shape(const char* op, const Tensor& grad_output, const Tensor& input,
                                       const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
                                       IntArrayRef dilation, int64_t groups) {
  Conv2dShape s = conv2d_shape(op, input, weight, std::nullopt, stride, padding, dilation, groups);
  check_grad(op, "grad_output", grad_output, s.output, input);
  return s;
}

Pool2dShape max_pool2d_backward_shape(const char* op, const Tensor& grad_output, const Tensor& self,
                                      IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                      IntArrayRef dilation, bool ceil_mode, const Tensor& indices) {
  Pool2dShape s = pool2d_shape(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  check_grad(op, "grad_output", grad_output, s.output, self);
  if (!indices.defined() || indices.dtype() != ScalarType::Int64 ||
      !std::equal(indices.sizes().begin(), indices.sizes().end(), s.output.begin(), s.output.end())) {
    throw Error(str_cat(op, ": indices must be an int64 tensor of shape ", shape_to_string(s.output),
                        indices.defined() ? str_cat(", got ", to_string(indices.dtype()), " of shape ",
                                                    shape_to_string(indices.sizes()))
                                          : std::string(", got an undefined tensor")));
  }
  return s;
}

Pool2dShape avg_pool2d_backward_shape(const char* op, const Tensor& grad_output, const Tensor& self,
                                      IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                      bool ceil_mode) {
  Pool2dShape s = avg_pool2d_shape(op, self, kernel_size, stride, padding, ceil_mode);
  check_grad(op, "grad_output", grad_output, s.output, self);
  return s;
}

LayerNormShape layer_norm_backward_shape(const char* op, const Tensor& grad_out, const Tensor& input,
                                         IntArrayRef normalized_shape, const Tensor& mean, const Tensor& rstd,
                                         const std::optional<Tensor>& weight, const std::optional<Tensor>& bias) {
  LayerNormShape s = layer_norm_shape(op, input, normalized_shape, weight, bias);
  check_grad(op, "grad_out", grad_out, input.sizes(), input);
  check_grad(op, "mean", mean, s.stats, input);
  check_grad(op, "rstd", rstd, s.stats, input);
  return s;
}

}  // namespace glassbox
