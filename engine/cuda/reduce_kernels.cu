// Reductions on CUDA: sum, mean, amax, amin, max, min. The front end (engine/ops/reductions.cpp)
// checks, decides shape and dtype and allocates the result; the input is viewed as a contiguous [outer, reduced, inner]
// block (permuted into one when the reduced dims are not a single run), and then
//  * inner == 1 (rows): a warp or a block per row, 16-byte loads where aligned, warp shuffles and
//    shared memory to combine; long rows with few outputs are shared by several blocks (interleaved)
//    whose partial results a second pass combines;
//  * inner > 1 (columns): threads along inner read coalesced, eight rows at a time per block,
//    combined in shared memory; likewise split when there are too few column blocks to fill the GPU.
// Accumulators: float for float16/bfloat16/float32, double, int64 for integer sums.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/block_reduce.cuh"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/kernels/reduce.h"
#include "engine/ops/reductions.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::cuda {

namespace {
using namespace glassbox::cuda;

// out[task] for task = row * chunks + chunk: the reduction of the chunk-th of `chunks` interleaved
// slices of row `row` (rows of length `len`), divided by `divisor` (mean) when it is not 1. The
// blocks of one row stride through it together, so that the GPU reads one contiguous stretch at a
// time rather than `chunks` distant ones.
template <class Op, class T, class A>
__global__ void reduce_rows_kernel(const T* x, A* out, int64_t tasks, int64_t len, int64_t chunks, A identity,
                                   double divisor, bool vectorized) {
  constexpr int kVec = 16 / sizeof(T) > 0 ? 16 / sizeof(T) : 1;
  const Op op;
  const int64_t task = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  A acc[4] = {identity, identity, identity, identity};  // independent chains keep loads in flight
  if (task < tasks) {
    const int64_t row = task / chunks, chunk = task % chunks;
    const T* p = x + row * len;
    const int64_t first = chunk * blockDim.x + threadIdx.x, threads = chunks * blockDim.x;
    if (vectorized) {  // len is a multiple of kVec, p is 16-byte aligned
      using Vec = AlignedVec<T, kVec>;
      const int64_t stride = threads * kVec;
      int64_t i = first * kVec;
      // Four independent 16-byte loads in flight before any of them is combined.
      for (; i + 3 * stride < len; i += 4 * stride) {
        Vec v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = *reinterpret_cast<const Vec*>(p + i + u * stride);
#pragma unroll
        for (int u = 0; u < 4; ++u) {
#pragma unroll
          for (int j = 0; j < kVec; ++j)
            acc[(u + j) % 4] = op(acc[(u + j) % 4], static_cast<A>(to_opmath(v[u].val[j])));
        }
      }
      for (; i < len; i += stride) {
        const Vec v = *reinterpret_cast<const Vec*>(p + i);
#pragma unroll
        for (int j = 0; j < kVec; ++j) acc[j % 4] = op(acc[j % 4], static_cast<A>(to_opmath(v.val[j])));
      }
    } else {
      for (int64_t i = first; i < len; i += threads) acc[0] = op(acc[0], static_cast<A>(to_opmath(p[i])));
    }
  }
  A r = op(op(acc[0], acc[1]), op(acc[2], acc[3]));
  r = group_reduce(r, op, identity);
  if (task < tasks && threadIdx.x == 0)
    out[task] = divisor == 1.0 ? r : static_cast<A>(static_cast<double>(r) / divisor);
}

inline constexpr int kColumnThreads = 32, kColumnRows = 8;

// out[(o * chunks + chunk) * inner + i]: the reduction over rows r of the chunk of x[o, r, i].
template <class Op, class T, class A>
__global__ void reduce_columns_kernel(const T* x, A* out, int64_t outer, int64_t len, int64_t inner, int64_t chunk_len,
                                      int64_t chunks, A identity, double divisor) {
  const Op op;
  const int64_t tiles = (inner + kColumnThreads - 1) / kColumnThreads;
  const int64_t task = blockIdx.x / tiles;  // o * chunks + chunk
  const int64_t i = blockIdx.x % tiles * kColumnThreads + threadIdx.x;
  const bool active = task < outer * chunks && i < inner;
  A acc = identity;
  if (active) {
    const int64_t o = task / chunks, begin = task % chunks * chunk_len;
    const int64_t end = begin + chunk_len < len ? begin + chunk_len : len;
    const T* col = x + o * len * inner + i;
    auto at = [&](int64_t r) { return static_cast<A>(to_opmath(col[r * inner])); };
    int64_t r = begin + threadIdx.y;
    // Four rows' loads in flight at a time, combined in row order as one at a time would.
    for (; r + 3 * kColumnRows < end; r += 4 * kColumnRows) {
      const A v0 = at(r), v1 = at(r + kColumnRows), v2 = at(r + 2 * kColumnRows), v3 = at(r + 3 * kColumnRows);
      acc = op(op(op(op(acc, v0), v1), v2), v3);
    }
    for (; r < end; r += kColumnRows) acc = op(acc, at(r));
  }
  __shared__ A part[kColumnRows][kColumnThreads + 1];
  part[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y != 0 || !active) return;
#pragma unroll
  for (int k = 1; k < kColumnRows; ++k) acc = op(acc, part[k][threadIdx.x]);
  out[task * inner + i] = divisor == 1.0 ? acc : static_cast<A>(static_cast<double>(acc) / divisor);
}

// n elements of device memory for partial results.
Tensor scratch(int64_t n, ScalarType dtype, int device) {
  const int64_t sizes[] = {n};
  return empty_tensor(sizes, dtype, Device(DeviceType::CUDA, static_cast<int8_t>(device)));
}

int multiprocessors(int device) {
  static int count[64] = {};
  if (!count[device]) GB_CUDA_CHECK(cudaDeviceGetAttribute(&count[device], cudaDevAttrMultiProcessorCount, device));
  return count[device];
}

// The reduction of x, a contiguous [outer, len, inner] block on the current device, into out
// ([outer, inner], contiguous, dtype A).
template <class Op, class T, class A>
void reduce_block(const T* x, A* out, int64_t outer, int64_t len, int64_t inner, A identity, double divisor,
                  int device) {
  const cudaStream_t stream = current_stream(device).handle();
  const int64_t target_blocks = 4 * int64_t{multiprocessors(device)};
  if (inner == 1) {
    const bool wide = len > 512;
    const dim3 block(wide ? 512 : 32, wide ? 1 : 8);
    // Few rows of many values: several blocks per row (at least 16K values each), enough to fill the GPU.
    int64_t chunks = 1;
    if (outer < target_blocks && len > 32768)
      chunks = std::min((len + 16383) / 16384, (target_blocks + outer - 1) / outer);
    constexpr int kVec = 16 / sizeof(T) > 0 ? 16 / sizeof(T) : 1;
    const bool vectorized = len % kVec == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0;
    const int64_t tasks = outer * chunks;
    A* dst = out;
    Tensor partial;
    if (chunks > 1) {
      partial = scratch(tasks, scalar_type_of<A>(), device);
      dst = partial.data<A>();
    }
    const auto grid = static_cast<unsigned>((tasks + block.y - 1) / block.y);
    reduce_rows_kernel<Op, T, A>
        <<<grid, block, 0, stream>>>(x, dst, tasks, len, chunks, identity, chunks > 1 ? 1.0 : divisor, vectorized);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
    if (chunks > 1) reduce_block<Op, A, A>(dst, out, outer, chunks, 1, identity, divisor, device);
    return;
  }
  // Blocks of 32 columns; where they are fewer than the GPU wants, the rows are cut into chunks (of
  // 64 rows at least) whose partial results a second pass combines. (Before, only outputs fewer
  // than 2,048 were chunked: a bias gradient of 4,096 x 2,048 ran on 64 blocks.)
  const int64_t tiles = (inner + kColumnThreads - 1) / kColumnThreads;
  const int64_t column_blocks = outer * tiles;
  int64_t chunks = 1;
  if (column_blocks < target_blocks && len > 64)
    chunks = std::min((len + 63) / 64, (target_blocks + column_blocks - 1) / column_blocks);
  const int64_t chunk_len = (len + chunks - 1) / chunks;
  A* dst = out;
  Tensor partial;
  if (chunks > 1) {
    partial = scratch(outer * chunks * inner, scalar_type_of<A>(), device);
    dst = partial.data<A>();
  }
  const auto grid = static_cast<unsigned>(outer * chunks * tiles);
  reduce_columns_kernel<Op, T, A><<<grid, dim3(kColumnThreads, kColumnRows), 0, stream>>>(
      x, dst, outer, len, inner, chunk_len, chunks, identity, chunks > 1 ? 1.0 : divisor);
  GB_CUDA_KERNEL_LAUNCH_CHECK();
  if (chunks > 1) reduce_block<Op, A, A>(dst, out, outer, chunks, inner, identity, divisor, device);
}

template <class Op>
void reduce_into(const ReducePlan& plan, const Tensor& self, Tensor& result) {
  const ReductionShape& shape = plan.shape;
  constexpr bool kSum = std::is_same_v<Op, SumCombine>;
  const bool mean = plan.kind == ReduceKind::Mean;
  const int device = self.device().index;
  DeviceGuard guard(device);
  const ReduceGeometry g = reduce_geometry(self, shape.reduced);
  const double divisor = mean ? static_cast<double>(shape.reduced_numel) : 1.0;
  visit_scalar_device_type(self.dtype(), [&]<class T>() {
    using A = std::conditional_t<kSum, sum_acc_t<T>, extreme_acc_t<T>>;
    // Results land in `result` directly when it has the accumulator's dtype.
    Tensor acc = result.dtype() == scalar_type_of<A>()
                     ? result
                     : empty_tensor(shape.out_shape, scalar_type_of<A>(), self.device());
    if (g.reduced == 0) {
      // Nothing to combine (only sums get here): 0, and a mean of nothing is 0 / 0.
      glassbox::fill_(acc, mean ? Scalar(std::numeric_limits<double>::quiet_NaN()) : Scalar(0.0));
    } else {
      reduce_block<Op, T, A>(g.data.template data<T>(), acc.template data<A>(), g.outer, g.reduced, g.inner,
                             Op::template identity<A>(), divisor, device);
    }
    if (!acc.is_same(result)) copy_between(result, acc);
  });
}
}  // namespace

void sum_max_min_into(const ReducePlan& plan, const Tensor& self, Tensor& result) {
  switch (plan.kind) {
    case ReduceKind::Max: return reduce_into<MaxCombine>(plan, self, result);
    case ReduceKind::Min: return reduce_into<MinCombine>(plan, self, result);
    default: return reduce_into<SumCombine>(plan, self, result);
  }
}

}  // namespace glassbox::cuda
