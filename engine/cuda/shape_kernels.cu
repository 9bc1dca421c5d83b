// flip, roll, tril and triu on CUDA: one thread per element over the element arithmetic of
// engine/ops/kernels/reorder.h (the front end is engine/ops/join_reorder_copy.cpp). Elements move
// as unsigned words of their size, so one kernel serves every dtype of that size.
#include <algorithm>

#include "engine/cuda/elementwise.cuh"
#include "engine/ops/join_reorder_copy.h"
#include "engine/ops/kernels/element_word.h"

namespace glassbox::cuda {

namespace {

template <class W>
__global__ void remap_kernel(const W* in, W* out, int64_t n, RemapPlan r) {
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[e] = in[remapped_offset(r, e)];
}

template <class W>
__global__ void triangle_kernel(W* t, int64_t n, TrianglePlan plan) {
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x)
    if (outside_triangle(plan, e)) t[e] = W(0);
}

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + kElementwiseThreads - 1) / kElementwiseThreads, 1, 65536));
}

void remap(const RemapPlan& plan, const Tensor& src, Tensor& out) {
  const int64_t n = src.numel();
  DeviceGuard guard(src.device().index);
  const cudaStream_t stream = current_stream(src.device().index).handle();
  visit_element_size(src.dtype(), [&]<size_t B>() {
    using W = element_word_t<B>;
    remap_kernel<W><<<grid_for(n), kElementwiseThreads, 0, stream>>>(static_cast<const W*>(src.data_ptr()),
                                                                     static_cast<W*>(out.data_ptr()), n, plan);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void zero_outside_triangle(const TrianglePlan& plan, Tensor& t) {
  const int64_t n = t.numel();
  DeviceGuard guard(t.device().index);
  const cudaStream_t stream = current_stream(t.device().index).handle();
  visit_element_size(t.dtype(), [&]<size_t B>() {
    using W = element_word_t<B>;
    triangle_kernel<W><<<grid_for(n), kElementwiseThreads, 0, stream>>>(static_cast<W*>(t.data_ptr()), n, plan);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

const ReorderBackend kReorder{remap, zero_outside_triangle};
const ReorderBackends::Registration kRegistered(DeviceType::CUDA, kReorder);
}  // namespace

}  // namespace glassbox::cuda
