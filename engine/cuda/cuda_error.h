#pragma once
// Checked CUDA and cuBLAS calls. A failure throws glassbox::Error naming what the library said,
// the call as written and where it was made:
//   CUDA error: invalid device ordinal (cudaErrorInvalidDevice) in cudaSetDevice(index) at engine/cuda/stream.cpp:41
#include <cuda_runtime_api.h>

namespace glassbox::cuda::detail {
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);
// `status` is a cublasStatus_t (an int here, so that this header needs no cuBLAS).
[[noreturn]] void throw_cublas_error(int status, const char* call, const char* file, int line);
}  // namespace glassbox::cuda::detail

#define GB_CUDA_CHECK(call)                                                                   \
  do {                                                                                        \
    const cudaError_t gb_cuda_status_ = (call);                                               \
    if (gb_cuda_status_ != cudaSuccess) [[unlikely]]                                          \
      ::glassbox::cuda::detail::throw_cuda_error(gb_cuda_status_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: a bad launch configuration is reported here, not by some later call.
#define GB_CUDA_KERNEL_LAUNCH_CHECK() GB_CUDA_CHECK(cudaGetLastError())

#define GB_CUBLAS_CHECK(call)                                                                     \
  do {                                                                                            \
    const int gb_cublas_status_ = static_cast<int>(call);                                         \
    if (gb_cublas_status_ != 0) [[unlikely]]                                                      \
      ::glassbox::cuda::detail::throw_cublas_error(gb_cublas_status_, #call, __FILE__, __LINE__); \
  } while (0)
