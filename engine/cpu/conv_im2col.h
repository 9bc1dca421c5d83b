#pragma once
// The CPU convolution of engine/cpu/conv_kernels.cpp (im2col + gemm), for float32 and float64 on
// contiguous operands: the CPU's ConvBackend when glassbox is built without oneDNN, and oneDNN's
// fallback for float64 (which oneDNN does not compute) when it is built with it.
#include <tuple>

#include "engine/core/tensor.h"
#include "engine/ops/linalg_shape.h"

namespace glassbox::cpu {

Tensor im2col_conv_forward(const Conv2dShape& s, const Tensor& in, const Tensor& weight, const Tensor& bias);
std::tuple<Tensor, Tensor, Tensor> im2col_conv_backward(const Conv2dShape& s, const Tensor& grad_out, const Tensor& in,
                                                        const Tensor& weight);

}  // namespace glassbox::cpu
