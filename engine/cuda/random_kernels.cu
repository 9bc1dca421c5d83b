// The random fills on CUDA: the blocks of engine/ops/kernels/random.h, one thread per Philox block
// (the front end, with every check, is engine/ops/random_ops.cpp). The same seed and offset give
// the CPU's numbers (normal_ to within the last bits of log, sin and cos).
#include <algorithm>

#include "engine/core/empty.h"
#include "engine/cuda/cuda_types.cuh"
#include "engine/cuda/device_guard.h"
#include "engine/cuda/for_each_launch.cuh"
#include "engine/ops/kernels/random.h"

namespace glassbox::cuda {

namespace {
using namespace kernels;

void fill(Tensor& out, const RandomFill& f, PhiloxState state) {
  const int device = out.device().index;
  DeviceGuard guard(device);
  visit_scalar_device_type(out.dtype(), [&]<class T>() {
    with_random_blocks(static_cast<T*>(out.data_ptr()), out.numel(), state, f,
                       [&](const auto& blocks, int64_t count) { for_each_index(device, count, blocks); });
  });
}

// The position of the first probability outside [0, 1] (NaN included).
__global__ void first_bad_probability_kernel(const double* probs, int64_t n, unsigned long long* first) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    if (!(probs[i] >= 0.0 && probs[i] <= 1.0)) atomicMin(first, static_cast<unsigned long long>(i));
}

std::optional<int64_t> first_bad_probability(const Tensor& probs) {
  const int device = probs.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  const int64_t n = probs.numel();
  if (n == 0) return std::nullopt;
  Tensor scratch = empty_tensor(DimVector{1}, ScalarType::Int64, probs.device());
  auto* first = static_cast<unsigned long long*>(scratch.data_ptr());
  GB_CUDA_CHECK(cudaMemsetAsync(first, 0xff, sizeof(unsigned long long), stream));
  const auto grid = static_cast<unsigned>(std::min<int64_t>((n + kForEachThreads - 1) / kForEachThreads, 4096));
  first_bad_probability_kernel<<<grid, kForEachThreads, 0, stream>>>(static_cast<const double*>(probs.data_ptr()), n,
                                                                     first);
  GB_CUDA_KERNEL_LAUNCH_CHECK();
  unsigned long long position = 0;
  GB_CUDA_CHECK(cudaMemcpyAsync(&position, first, sizeof(position), cudaMemcpyDeviceToHost, stream));
  GB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return position != ~0ull ? std::optional<int64_t>(static_cast<int64_t>(position)) : std::nullopt;
}

const RandomBackend kRandom{fill, first_bad_probability};
const RandomBackends::Registration kRegistered(DeviceType::CUDA, kRandom);
}  // namespace

}  // namespace glassbox::cuda
