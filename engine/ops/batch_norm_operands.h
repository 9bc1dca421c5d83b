#pragma once
// native_batch_norm and its backward as the kernels of every backend begin them: the arguments
// checked, the input made contiguous, the per-channel tensors (weight, bias, running and saved
// statistics) made contiguous in the input's compute dtype (float32 for float16/bfloat16), and the
// results allocated on the input's device. An optional tensor not given stays undefined.
#include <cstdint>
#include <optional>

#include "engine/core/tensor.h"

namespace glassbox {

// An input of shape (N, C, *) seen as N x C x spatial, spatial the product of the trailing dims:
// element (n, c, s) of the contiguous input is at (n * channels + c) * spatial + s.
struct BatchNormShape {
  int64_t batch, channels, spatial;
  int64_t count() const { return batch * spatial; }  // elements per channel
};

struct BatchNormOperands {
  BatchNormShape s;
  bool training;
  double momentum, eps;
  Tensor x;                          // contiguous input
  Tensor w, b;                       // [C] compute dtype, or undefined
  Tensor running_mean, running_var;  // [C] compute dtype, or undefined; training writes the new ones here
  Tensor out;                        // input's shape and dtype
  Tensor save_mean, save_invstd;     // [C] compute dtype: the statistics the output was normalised by
};
BatchNormOperands batch_norm_operands(const Tensor& input, const std::optional<Tensor>& weight,
                                      const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                                      const std::optional<Tensor>& running_var, bool training, double momentum,
                                      double eps);

struct BatchNormBackwardOperands {
  BatchNormShape s;
  bool training;
  Tensor g, x;            // grad_out and input, contiguous
  Tensor w;               // [C] compute dtype, or undefined (a weight of ones)
  Tensor mean, invstd;    // [C] compute dtype, the forward's save_mean and save_invstd
  Tensor grad_in;         // input's shape and dtype
  Tensor grad_w, grad_b;  // [C] compute dtype
};
BatchNormBackwardOperands batch_norm_backward_operands(const Tensor& grad_out, const Tensor& input,
                                                       const std::optional<Tensor>& weight, const Tensor& save_mean,
                                                       const Tensor& save_invstd, bool training);

}  // namespace glassbox
