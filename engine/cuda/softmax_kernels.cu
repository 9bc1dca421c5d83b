// softmax and log_softmax on CUDA, fused per row: one read of the row (kept in shared memory when
// it fits), its maximum and the sum of exp(x - max) combined across the row's threads with warp
// shuffles, and one write. Rows along a non-last dim (inner > 1) take one thread per column.
// Their gradients (_softmax_backward_data, _log_softmax_backward_data) work from the saved output.
// Same formulas as engine/cpu/softmax_kernels.cpp (a row whose maximum is not finite uses 0).
#include <math_constants.h>

#include <algorithm>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/block_reduce.cuh"
#include "engine/cuda/elementwise.cuh"
#include "engine/cuda/for_each_launch.cuh"
#include "engine/ops/kernels/softmax.h"

namespace glassbox::cuda {

namespace {
using namespace glassbox::cuda;
using namespace kernels;

constexpr size_t kRowCacheBytes = 48 * 1024;  // dynamic shared memory without opting in

struct Max {
  template <class A>
  __device__ __forceinline__ A operator()(A a, A b) const {
    return b > a ? b : a;
  }  // NaN never wins, as on the CPU
};
struct Add {
  template <class A>
  __device__ __forceinline__ A operator()(A a, A b) const {
    return a + b;
  }
};

template <class T, int V>
__device__ __forceinline__ AlignedVec<T, V> load_vec(const T* p) {
  return *reinterpret_cast<const AlignedVec<T, V>*>(p);
}

// Rows of length n: blockDim.x threads per row, blockDim.y rows per block. `vectorized`: n is a
// multiple of the vector width and x, y are 16-byte aligned.
template <class T, bool kLog>
__global__ void softmax_rows_kernel(const T* x, T* y, int64_t rows, int64_t n, bool cache, bool vectorized) {
  using A = opmath_t<T>;
  constexpr int V = 16 / sizeof(T);
  extern __shared__ __align__(16) unsigned char row_cache[];
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  const bool active = row < rows;
  const T* xr = x + row * n;
  T* yr = y + row * n;
  T* c = reinterpret_cast<T*>(row_cache) + threadIdx.y * n;
  const int64_t step = vectorized ? int64_t{blockDim.x} * V : blockDim.x;
  const int64_t start = vectorized ? int64_t{threadIdx.x} * V : threadIdx.x;
  const int width = vectorized ? V : 1;
  // Each thread reads back only the elements it cached itself: no barrier is needed for them.
  auto element = [&](int64_t i) -> A { return to_opmath(cache ? c[i] : xr[i]); };

  A lowest = -CUDART_INF_F;
  if constexpr (std::is_same_v<A, double>) lowest = -CUDART_INF;
  A m = lowest;
  if (active) {
#pragma unroll 4  // several loads in flight per thread
    for (int64_t i = start; i < n; i += step) {
      if (vectorized) {
        const AlignedVec<T, V> v = load_vec<T, V>(xr + i);
        if (cache) *reinterpret_cast<AlignedVec<T, V>*>(c + i) = v;
#pragma unroll
        for (int j = 0; j < V; ++j) m = Max{}(m, to_opmath(v.val[j]));
      } else {
        const T v = xr[i];
        if (cache) c[i] = v;
        m = Max{}(m, to_opmath(v));
      }
    }
  }
  m = group_reduce(m, Max{}, lowest);
  // No finite maximum (all -inf, or +inf present): x - m is NaN somewhere and the whole row NaN, as in PyTorch.
  A s = 0;
  if (active)
    for (int64_t i = start; i < n; i += step)
      for (int j = 0; j < width; ++j) s += ::exp(element(i + j) - m);
  s = group_reduce(s, Add{}, A(0));
  if (!active) return;
  // (v - m) - log(s), not v - (m + log(s)): next to a large m, log(s) would round away.
  const A log_s = ::log(s), inv = A(1) / s;
  auto result = [&](A v) { return from_opmath<T>(kLog ? (v - m) - log_s : ::exp(v - m) * inv); };
  for (int64_t i = start; i < n; i += step) {
    if (vectorized) {
      AlignedVec<T, V> out;
#pragma unroll
      for (int j = 0; j < V; ++j) out.val[j] = result(element(i + j));
      *reinterpret_cast<AlignedVec<T, V>*>(yr + i) = out;
    } else {
      yr[i] = result(element(i));
    }
  }
}

// One thread per column (o, i) of an [outer, n, inner] block.
template <class T, bool kLog>
__global__ void softmax_columns_kernel(const T* x, T* y, int64_t outer, int64_t n, int64_t inner) {
  using A = opmath_t<T>;
  const int64_t column = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (column >= outer * inner) return;
  const int64_t base = column / inner * n * inner + column % inner;
  A m = -CUDART_INF_F;
  if constexpr (std::is_same_v<A, double>) m = -CUDART_INF;
  for (int64_t r = 0; r < n; ++r) m = Max{}(m, to_opmath(x[base + r * inner]));
  A s = 0;
  for (int64_t r = 0; r < n; ++r) s += ::exp(to_opmath(x[base + r * inner]) - m);
  const A log_s = ::log(s), inv = A(1) / s;
  for (int64_t r = 0; r < n; ++r) {
    const A v = to_opmath(x[base + r * inner]);
    y[base + r * inner] = from_opmath<T>(kLog ? (v - m) - log_s : ::exp(v - m) * inv);
  }
}

// grad_input along rows: the sum of engine/ops/kernels/softmax.h's terms combined across the
// row's threads, then each element's gradient.
template <class T, bool kLog>
__global__ void softmax_backward_rows_kernel(const T* g, const T* y, T* dx, int64_t rows, int64_t n) {
  using A = opmath_t<T>;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  const bool active = row < rows;
  const int64_t off = row * n;
  A dot = 0;
  if (active)
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
      dot += softmax_grad_term<kLog>(to_opmath(g[off + i]), to_opmath(y[off + i]));
  dot = group_reduce(dot, Add{}, A(0));
  if (!active) return;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
    dx[off + i] = from_opmath<T>(softmax_grad_input<kLog>(to_opmath(g[off + i]), to_opmath(y[off + i]), dot));
}

// [outer, n, inner] around dim d (a 0-d tensor is one row of one element).
struct DimSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
DimSplit split_at(const Tensor& t, int64_t d) {
  DimSplit s;
  for (int64_t k = 0; k < t.dim(); ++k) (k < d ? s.outer : k == d ? s.n : s.inner) *= t.sizes()[k];
  return s;
}

// t as a contiguous tensor of dtype `dtype` (t itself when it already is one).
Tensor contiguous_as(const Tensor& t, ScalarType dtype) {
  if (t.dtype() == dtype && t.is_contiguous()) return t;
  Tensor out = empty_tensor(t.sizes(), dtype, t.device());
  copy_between(out, t);
  return out;
}

// Threads per row: a warp for short rows (eight rows per block), up to 1024 for long ones.
dim3 row_block(int64_t n, int vec) {
  if (n <= 32 * vec * 2) return dim3(32, 8);
  int64_t threads = 64;
  while (threads < 1024 && threads * vec * 4 < n) threads *= 2;
  return dim3(static_cast<unsigned>(threads), 1);
}

template <bool kLog>
void softmax_impl(const Tensor& self, int64_t d, Tensor& result) {
  DeviceGuard guard(self.device().index);
  const Tensor in = contiguous_as(self, self.dtype());
  const DimSplit s = split_at(in, d);
  const cudaStream_t stream = current_stream(self.device().index).handle();
  visit_floating_device_type(in.dtype(), [&]<class T>() {
    const T* x = in.template data<T>();
    T* y = result.template data<T>();
    if (s.inner == 1) {
      constexpr int V = 16 / sizeof(T);
      const dim3 block = row_block(s.n, V);
      const bool vectorized =
          s.n % V == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
      const size_t cache_bytes = block.y * static_cast<size_t>(s.n) * sizeof(T);
      const bool cache = cache_bytes <= kRowCacheBytes;
      const auto grid = static_cast<unsigned>((s.outer + block.y - 1) / block.y);
      softmax_rows_kernel<T, kLog>
          <<<grid, block, cache ? cache_bytes : 0, stream>>>(x, y, s.outer, s.n, cache, vectorized);
    } else {
      const int64_t columns = s.outer * s.inner;
      softmax_columns_kernel<T, kLog>
          <<<static_cast<unsigned>((columns + 255) / 256), 256, 0, stream>>>(x, y, s.outer, s.n, s.inner);
    }
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

template <bool kLog>
void softmax_backward_impl(const Tensor& grad, const Tensor& output, int64_t d, Tensor& result) {
  DeviceGuard guard(grad.device().index);
  const Tensor g = contiguous_as(grad, grad.dtype());
  const Tensor y = contiguous_as(output, grad.dtype());
  {
    const DimSplit s = split_at(g, d);
    const cudaStream_t stream = current_stream(grad.device().index).handle();
    visit_floating_device_type(g.dtype(), [&]<class T>() {
      const T* gp = g.template data<T>();
      const T* yp = y.template data<T>();
      T* dx = result.template data<T>();
      if (s.inner == 1) {
        const dim3 block = row_block(s.n, 1);
        const auto grid = static_cast<unsigned>((s.outer + block.y - 1) / block.y);
        softmax_backward_rows_kernel<T, kLog><<<grid, block, 0, stream>>>(gp, yp, dx, s.outer, s.n);
        GB_CUDA_KERNEL_LAUNCH_CHECK();
      } else {
        for_each_index(grad.device().index, s.outer * s.inner,
                       SoftmaxBackwardColumn<T, opmath_t<T>, kLog>{gp, yp, dx, s.n, s.inner});
      }
    });
  }
}
}  // namespace

void softmax_into(const Tensor& self, int64_t dim, bool log, Tensor& result) {
  log ? softmax_impl<true>(self, dim, result) : softmax_impl<false>(self, dim, result);
}
void softmax_backward_into(const Tensor& grad, const Tensor& output, int64_t dim, bool log, Tensor& result) {
  log ? softmax_backward_impl<true>(grad, output, dim, result)
      : softmax_backward_impl<false>(grad, output, dim, result);
}

}  // namespace glassbox::cuda
