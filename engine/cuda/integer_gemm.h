#pragma once
// Integer matrix products on CUDA. cuBLAS has no general integer gemm, so int8..int64 and uint8
// use a tiled kernel of glassbox's own. Like the CPU's built-in gemm, the sum wraps around modulo
// the dtype's width (NumPy's rule), accumulating in uint32 (up to 32 bits) or uint64.
#include <cstdint>

#include "engine/core/tensor.h"

namespace glassbox::cuda {

// c = alpha * (a @ b) + beta * c for matrices [m, k] @ [k, n] or batches [B, m, k] @ [B, k, n]
// (batch strides may be 0), any strides, all of one integer dtype. beta == 0 ignores c's old
// contents. Runs on the current stream of c's device.
void integer_gemm(const Tensor& a, const Tensor& b, Tensor& c, int64_t alpha, int64_t beta);

}  // namespace glassbox::cuda
