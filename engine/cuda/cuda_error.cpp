#include "engine/cuda/cuda_error.h"

#include <cublas_v2.h>

#include <string>

#include "engine/core/error.h"

namespace glassbox::cuda::detail {

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  cudaGetLastError();  // a non-sticky error must not poison the next, unrelated call
  throw Error(std::string("CUDA error: ") + cudaGetErrorString(status) + " (" + cudaGetErrorName(status) + ") in " +
              call + " at " + file + ":" + std::to_string(line));
}

void throw_cublas_error(int status, const char* call, const char* file, int line) {
  const auto s = static_cast<cublasStatus_t>(status);
  throw Error(std::string("cuBLAS error: ") + cublasGetStatusString(s) + " (" + cublasGetStatusName(s) + ") in " +
              call + " at " + file + ":" + std::to_string(line));
}

}  // namespace glassbox::cuda::detail
