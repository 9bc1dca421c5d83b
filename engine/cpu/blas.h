#pragma once
// General matrix products on the CPU. float32/float64 go through OpenBLAS's cblas when the build
// found it (cmake/GlassboxDependencies.cmake); every other dtype, and float32/float64 without
// OpenBLAS, use a blocked, multithreaded gemm of glassbox's own (float16/bfloat16 compute in
// float32, integers wrap around modulo their width as NumPy's do).
#include <cstdint>
#include <string>

#include "engine/core/scalar_type.h"

namespace glassbox::cpu {

// A matrix over existing memory: element (i, j) is at data + (i * row_stride + j * col_stride)
// elements. Strides may be anything (0 for broadcast rows, transposed layouts, ...).
struct MatrixView {
  void* data;
  int64_t rows, cols, row_stride, col_stride;
  // The same memory read as the transpose (no copy).
  MatrixView t() const { return {data, cols, rows, col_stride, row_stride}; }
};

// c = alpha * (a @ b) + beta * c for a [m, k], b [k, n], c [m, n], all of `dtype` (not bool).
// beta == 0 ignores c's old contents, NaNs included. Transposed or strided operands are handed to
// cblas as transposes with leading dimensions; only layouts cblas cannot express are copied.
void gemm(ScalarType dtype, const MatrixView& a, const MatrixView& b, const MatrixView& c, double alpha = 1.0,
          double beta = 0.0);

// The built-in gemm alone, whatever the dtype (the tests hold cblas and it to each other).
void gemm_fallback(ScalarType dtype, const MatrixView& a, const MatrixView& b, const MatrixView& c, double alpha = 1.0,
                   double beta = 0.0);

// Whether gemm calls cblas for float32/float64, and which library that is ("OpenBLAS 0.3.21 ..."
// or "built-in gemm (no OpenBLAS)").
bool has_blas();
std::string blas_info();
// Whether gemm on `dtype` runs on the calling thread alone when called inside parallel_for, so that
// a batch of small products can go one per thread: the built-in gemm and oneDNN's sgemm do (a
// nested region is serial); OpenBLAS keeps threads of its own and serialises concurrent callers.
bool gemm_serial_in_parallel_region(ScalarType dtype);
// The thread count cblas last ran with (it follows glassbox's get_num_threads(), synchronised at
// each call); glassbox's own count without OpenBLAS.
int blas_num_threads();

}  // namespace glassbox::cpu
