#pragma once
// Combining one value per thread into one per row group, for the reduction and softmax kernels.
// A block is blockDim.y groups of blockDim.x threads (a multiple of 32); each group works on one
// row. Warps combine through shuffles; a group of several warps through shared memory (such
// blocks have blockDim.y == 1).
#include <cuda_runtime.h>

#include <cstdint>

#include "engine/cuda/cuda_types.cuh"
#include "engine/ops/kernels/reduce.h"

namespace glassbox::cuda {

// The accumulators of engine/ops/kernels/reduce.h for a device type: float for float16/bfloat16,
// int64 sums of integers and bool, int32 extremes of small integers (what shuffles take).
template <class T>
using sum_acc_t = sum_acc_of<opmath_t<T>>;
template <class T>
using extreme_acc_t = extreme_acc_of<T, opmath_t<T>>;

inline constexpr unsigned kFullWarp = 0xffffffffu;

// v of the lane `offset` lanes down (shuffle_down) or of lane `lane` (shuffle_from). A kernel that
// combines a value of more than 8 bytes overloads both for its type (argument-dependent lookup).
template <class A>
__device__ __forceinline__ A shuffle_down(A v, int offset) {
  return __shfl_down_sync(kFullWarp, v, offset);
}
template <class A>
__device__ __forceinline__ A shuffle_from(A v, int lane) {
  return __shfl_sync(kFullWarp, v, lane);
}

template <class A, class Op>
__device__ __forceinline__ A warp_reduce(A v, const Op& op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v = op(v, shuffle_down(v, offset));
  return v;
}

// The combination of v over the calling thread's group, returned to every thread of the group.
// Every thread of the block must call it (it may synchronise the block). `identity` pads the
// shared slots of missing warps.
template <class A, class Op>
__device__ __forceinline__ A group_reduce(A v, const Op& op, A identity) {
  v = warp_reduce(v, op);
  if (blockDim.x == 32) return shuffle_from(v, 0);
  __shared__ A partial[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();  // an earlier call may still be reading partial
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? partial[lane] : identity;
    v = warp_reduce(v, op);
    if (lane == 0) partial[0] = v;
  }
  __syncthreads();
  return partial[0];
}

// The launch shape of a kernel with one group per row, `rows` rows of `len` elements: 32 threads
// and 8 rows a block for rows of up to `warp_len` elements, else 256 threads and one row.
struct RowLaunch {
  dim3 grid, block;
};
inline RowLaunch row_launch(int64_t rows, int64_t len, int64_t warp_len = 256) {
  const bool wide = len > warp_len;
  const dim3 block(wide ? 256 : 32, wide ? 1 : 8);
  return {dim3(static_cast<unsigned>((rows + block.y - 1) / block.y)), block};
}

}  // namespace glassbox::cuda
