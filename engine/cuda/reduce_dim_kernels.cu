// The reductions that reduce_kernels.cu does not cover, on CUDA: prod, max.dim/min.dim/argmax/
// argmin (value and index), var/std (two passes: the mean, then the squared deviations from it)
// and logsumexp (the maximum, then the sum of exp(x - max)), and cumsum. The input is laid out as
// contiguous rows [outer, len] (a permuted copy when the reduced dims are not already last) and
// each row is combined by one group of threads, as in reduce_kernels.cu. Checks, shapes, dtypes and
// errors are the front end's (engine/ops/reductions.cpp); the family's CUDA table is at the end.
#include <cuda/std/limits>

#include <limits>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/block_reduce.cuh"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/reductions.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::cuda {

// The rest of the family's CUDA computes, defined next to their kernels.
void sum_max_min_into(const ReducePlan& plan, const Tensor& self, Tensor& result);  // reduce_kernels.cu
void softmax_into(const Tensor& self, int64_t dim, bool log, Tensor& result);       // softmax_kernels.cu
void softmax_backward_into(const Tensor& grad, const Tensor& output, int64_t dim, bool log, Tensor& result);
void sort_into(const Tensor& self, int64_t k, int64_t dim, bool descending, Tensor& values,
               Tensor& indices);  // sort_kernels.cu

namespace {
using namespace glassbox::cuda;

template <class T, class A, class R>
__global__ void prod_rows_kernel(const T* x, R* out, int64_t outer, int64_t len) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  A acc = A(1);
  if (row < outer)
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) acc *= static_cast<A>(to_opmath(x[row * len + i]));
  acc = group_reduce(acc, ProdCombine{}, A(1));
  if (row < outer && threadIdx.x == 0) out[row] = from_opmath<R>(acc);
}

// var (or std) of each row: divisor = max(0, len - correction); accumulated as on the CPU.
template <class T>
__global__ void var_rows_kernel(const T* x, T* out, int64_t outer, int64_t len, double divisor, bool take_sqrt) {
  using A = variance_acc_of<opmath_t<T>>;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  const bool active = row < outer;
  const T* p = x + row * len;
  A s = 0;
  if (active)
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) s += static_cast<A>(to_opmath(p[i]));
  const A mean = group_reduce(s, SumCombine{}, A(0)) / static_cast<A>(len);
  A ss = 0;
  if (active)
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) {
      const A d = static_cast<A>(to_opmath(p[i])) - mean;
      ss += d * d;
    }
  ss = group_reduce(ss, SumCombine{}, A(0));
  if (active && threadIdx.x == 0) out[row] = from_opmath<T>(variance_from(ss, divisor, take_sqrt));
}

template <class T>
__global__ void logsumexp_rows_kernel(const T* x, T* out, int64_t outer, int64_t len) {
  using A = opmath_t<T>;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  const bool active = row < outer;
  const T* p = x + row * len;
  const A lowest = -::cuda::std::numeric_limits<A>::infinity();
  A m = lowest;
  if (active)
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) m = MaxCombine{}(m, to_opmath(p[i]));
  const A center = logsumexp_center(group_reduce(m, MaxCombine{}, lowest));
  A s = 0;
  if (active)
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) s += ::exp(to_opmath(p[i]) - center);
  s = group_reduce(s, SumCombine{}, A(0));
  if (active && threadIdx.x == 0) out[row] = from_opmath<T>(::log(s) + center);
}

// The extreme of a row and its first index; which one wins is the CPU's rule (replaces_extreme).
template <class A>
struct Best {
  A v;
  int64_t i;  // -1: nothing seen
};
template <class A>
__device__ __forceinline__ Best<A> shuffle_down(Best<A> b, int offset) {
  return {__shfl_down_sync(kFullWarp, b.v, offset), __shfl_down_sync(kFullWarp, b.i, offset)};
}
template <class A>
__device__ __forceinline__ Best<A> shuffle_from(Best<A> b, int lane) {
  return {__shfl_sync(kFullWarp, b.v, lane), __shfl_sync(kFullWarp, b.i, lane)};
}
// Of two candidates, the one of the earlier index stands unless the later replaces it.
template <class A>
struct BetterOf {
  bool largest;
  __device__ __forceinline__ Best<A> operator()(Best<A> a, Best<A> b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    // By value, not by references chosen at run time: those would put both candidates in local memory.
    if (b.i < a.i) {
      const Best<A> t = a;
      a = b;
      b = t;
    }
    return replaces_extreme(b.v, a.v, largest) ? b : a;
  }
};

template <class T, class A>
__global__ void arg_extreme_rows_kernel(const T* x, T* values, int64_t* indices, int64_t outer, int64_t len,
                                        bool largest) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  const BetterOf<A> better{largest};
  Best<A> best{A(0), -1};
  if (row < outer)
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) {
      // Each thread meets its elements in index order: a later one replaces or not.
      const A v = static_cast<A>(to_opmath(x[row * len + i]));
      if (best.i < 0 || replaces_extreme(v, best.v, largest)) best = Best<A>{v, i};
    }
  best = group_reduce(best, better, Best<A>{A(0), -1});
  if (row < outer && threadIdx.x == 0) {
    if (values) values[row] = x[row * len + best.i];
    indices[row] = best.i;
  }
}

// Inclusive running sums of each row, one block per row walking it blockDim.x elements at a time.
template <class T, class A, class R>
__global__ void cumsum_rows_kernel(const T* x, R* out, int64_t len) {
  __shared__ A warp_sums[32];
  __shared__ A carry_in;
  const int64_t row = blockIdx.x;
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  if (threadIdx.x == 0) carry_in = A(0);
  for (int64_t base = 0; base < len; base += blockDim.x) {
    const int64_t i = base + threadIdx.x;
    A v = i < len ? static_cast<A>(to_opmath(x[row * len + i])) : A(0);
#pragma unroll
    for (int off = 1; off < 32; off *= 2) {
      const A u = __shfl_up_sync(kFullWarp, v, off);
      if (lane >= static_cast<unsigned>(off)) v += u;
    }
    if (lane == 31) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
      A w = lane < warps ? warp_sums[lane] : A(0);
#pragma unroll
      for (int off = 1; off < 32; off *= 2) {
        const A u = __shfl_up_sync(kFullWarp, w, off);
        if (lane >= static_cast<unsigned>(off)) w += u;
      }
      if (lane < warps) warp_sums[lane] = w;  // inclusive prefix of the warp totals
    }
    __syncthreads();
    const A total = carry_in + (warp > 0 ? warp_sums[warp - 1] : A(0)) + v;
    if (i < len) out[row * len + i] = from_opmath<R>(total);
    __syncthreads();
    if (threadIdx.x == blockDim.x - 1) carry_in = total;
    __syncthreads();
  }
}

cudaStream_t stream_of(const Tensor& t) { return current_stream(t.device().index).handle(); }

void prod_into(const ReducePlan& plan, const Tensor& self, Tensor& result) {
  const ReductionShape& shape = plan.shape;
  DeviceGuard guard(self.device().index);
  const ReduceGeometry r = reduce_geometry(self, shape.reduced, true);
  const RowLaunch l = row_launch(r.outer, r.reduced);
  visit_scalar_device_type(self.dtype(), [&]<class T>() {
    using A = sum_acc_t<T>;
    Tensor acc = result.dtype() == scalar_type_of<A>()
                     ? result
                     : empty_tensor(shape.out_shape, scalar_type_of<A>(), self.device());
    prod_rows_kernel<T, A, A><<<l.grid, l.block, 0, stream_of(self)>>>(r.data.template data<T>(),
                                                                       acc.template data<A>(), r.outer, r.reduced);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
    if (!acc.is_same(result)) copy_between(result, acc);
  });
}

void arg_extreme_into(const Tensor& self, std::optional<int64_t> dim, const DimVector& reduced, bool largest,
                      Tensor& values, Tensor& indices) {
  DeviceGuard guard(self.device().index);
  // No dim: the index into the flattened tensor (row-major order of self).
  const ReduceGeometry r =
      dim ? reduce_geometry(self, reduced, true) : ReduceGeometry{self.contiguous(), 1, self.numel()};
  const RowLaunch l = row_launch(r.outer, r.reduced);
  visit_scalar_device_type(self.dtype(), [&]<class T>() {
    arg_extreme_rows_kernel<T, extreme_acc_t<T>><<<l.grid, l.block, 0, stream_of(self)>>>(
        r.data.template data<T>(), values.defined() ? values.template data<T>() : nullptr, indices.data<int64_t>(),
        r.outer, r.reduced, largest);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void variance_into(const ReducePlan& plan, const Tensor& self, Tensor& result) {
  DeviceGuard guard(self.device().index);
  const ReduceGeometry r = reduce_geometry(self, plan.shape.reduced, true);
  const RowLaunch l = row_launch(r.outer, r.reduced);
  visit_floating_device_type(self.dtype(), [&]<class T>() {
    var_rows_kernel<T><<<l.grid, l.block, 0, stream_of(self)>>>(r.data.template data<T>(), result.template data<T>(),
                                                                r.outer, r.reduced, plan.divisor,
                                                                plan.kind == ReduceKind::Std);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void logsumexp_into(const ReducePlan& plan, const Tensor& self, Tensor& result) {
  DeviceGuard guard(self.device().index);
  const ReduceGeometry r = reduce_geometry(self, plan.shape.reduced, true);
  const RowLaunch l = row_launch(r.outer, r.reduced);
  visit_floating_device_type(self.dtype(), [&]<class T>() {
    logsumexp_rows_kernel<T><<<l.grid, l.block, 0, stream_of(self)>>>(r.data.template data<T>(),
                                                                      result.template data<T>(), r.outer, r.reduced);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

// self is floating point (the result's dtype) or int64 (the front end converted it).
void cumsum_into(const Tensor& self, int64_t d, Tensor& result) {
  DeviceGuard guard(self.device().index);
  DimVector reduced(static_cast<size_t>(self.dim()), 0);
  if (self.dim() > 0) reduced[d] = 1;
  const ReduceGeometry r = reduce_geometry(self, reduced, true);
  Tensor rows = empty_tensor(r.data.sizes(), self.dtype(), self.device());
  const unsigned threads = r.reduced > 128 ? 256 : 32;
  visit_scalar_device_type(self.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>> || std::is_same_v<T, int64_t>) {
      cumsum_rows_kernel<T, sum_acc_t<T>, T><<<static_cast<unsigned>(r.outer), threads, 0, stream_of(self)>>>(
          r.data.template data<T>(), rows.template data<T>(), r.reduced);
      GB_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
  // Back to self's dim order: a permuted copy has the cumsum dim last.
  if (!r.data.is_same(self)) {
    DimVector inverse;
    for (int64_t k = 0; k < self.dim(); ++k) inverse.push_back(k < d ? k : k == d ? self.dim() - 1 : k - 1);
    rows = glassbox::permute(rows, inverse);
  }
  copy_between(result, rows);
}

void reduce_into(const ReducePlan& plan, const Tensor& self, Tensor& result) {
  switch (plan.kind) {
    case ReduceKind::Prod: return prod_into(plan, self, result);
    case ReduceKind::Var:
    case ReduceKind::Std: return variance_into(plan, self, result);
    case ReduceKind::LogSumExp: return logsumexp_into(plan, self, result);
    default: return sum_max_min_into(plan, self, result);
  }
}

const ReductionBackend kReductions{reduce_into,  arg_extreme_into,      cumsum_into,
                                   softmax_into, softmax_backward_into, sort_into};
const ReductionBackends::Registration kRegistered(DeviceType::CUDA, kReductions);
}  // namespace

}  // namespace glassbox::cuda
