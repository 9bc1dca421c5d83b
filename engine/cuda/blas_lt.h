#pragma once
// addmm's bias added by the matrix product itself: cuBLASLt's bias epilogue, which writes
// C = A @ B + bias in one kernel where addmm would first copy the bias into every row of C and then
// accumulate the product onto it (a read and a write of C more). nn.Linear's forward is such an
// addmm. Used by engine/cuda/blas.cpp for addmm with beta = alpha = 1 and a contiguous 1-D bias.
#include <cublas_api.h>
#include <library_types.h>

#include <cstdint>

namespace glassbox::cuda {

// A column-major matrix as cuBLAS reads it: its memory, whether cuBLAS transposes it, its leading dim.
struct LtOperand {
  const void* data;
  cublasOperation_t op;
  int64_t ld;
};

// c (column-major, rows x cols, leading dim ldc) = op(a) [rows, k] @ op(b) [k, cols] + bias, the
// bias (rows long, of c's type) added to every column; queued on the current stream of `device`.
// False, with nothing queued, when cuBLASLt has no algorithm for this case: the caller then adds
// the bias itself.
bool lt_gemm_bias(int device, cudaDataType_t type, cublasComputeType_t compute, int64_t rows, int64_t cols, int64_t k,
                  const LtOperand& a, const LtOperand& b, const void* bias, void* c, int64_t ldc);

}  // namespace glassbox::cuda
