#pragma once
// f(i) for every i in [0, n), one CUDA thread per index: the device side of a per-element functor
// (engine/ops/kernels/) that the CPU runs in a parallel loop (engine/cpu/for_each_index.h). f has
// a GLASSBOX_HOST_DEVICE operator()(int64_t) and travels to the kernel by value.
#include <cstdint>

#include "engine/cuda/cuda_error.h"
#include "engine/cuda/stream.h"

namespace glassbox::cuda {

inline constexpr int kForEachThreads = 256;

template <class F>
__global__ void __launch_bounds__(kForEachThreads) for_each_index_kernel(int64_t n, F f) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}

// Queued on the current stream of `device`; nothing is launched for n == 0.
template <class F>
void for_each_index(int device, int64_t n, const F& f) {
  if (n <= 0) return;
  const auto blocks = static_cast<unsigned>((n + kForEachThreads - 1) / kForEachThreads);
  for_each_index_kernel<<<blocks, kForEachThreads, 0, current_stream(device).handle()>>>(n, f);
  GB_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace glassbox::cuda
