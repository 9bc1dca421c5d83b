// Layer normalisation on CUDA, fused per row: one group of threads per row computes the mean and
// then the variance around it (two passes over the row, sums in double as on the CPU), and
// writes the normalised, scaled and shifted row. The backward's grad_input is per row likewise;
// grad_weight and grad_bias are column sums over chunks of rows, then over the chunks.
// Rows of 256 to 8,192 elements (4,096 in float64) whose data allows 16-byte accesses are read
// once, into registers (the "cached" kernels), and the cached backward adds each thread's own
// values in the compute type before the double sums over threads; other rows are read again for
// each pass.
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/block_reduce.cuh"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/kernels/layer_norm.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::cuda {

namespace {
using namespace kernels;

struct Add {
  __device__ __forceinline__ double operator()(double a, double b) const { return a + b; }
};

// Rows of n: blockDim.x threads per row, blockDim.y rows per block.
template <class T>
__global__ void layer_norm_kernel(const T* x, const T* w, const T* b, T* y, T* mean, T* rstd, int64_t rows, int64_t n,
                                  double eps) {
  using C = opmath_t<T>;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  const bool active = row < rows;
  const T* xr = x + row * n;
  double s = 0;
  if (active)
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += static_cast<double>(to_opmath(xr[j]));
  const double mu = group_reduce(s, Add{}, 0.0) / static_cast<double>(n);
  double sq = 0;
  if (active)
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const double d = static_cast<double>(to_opmath(xr[j])) - mu;
      sq += d * d;
    }
  const double rs = layer_norm_rstd(group_reduce(sq, Add{}, 0.0), n, eps);
  if (!active) return;
  const C mu_c = static_cast<C>(mu), rs_c = static_cast<C>(rs);
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x)
    y[row * n + j] = from_opmath<T>(layer_norm_output(to_opmath(xr[j]), mu_c, rs_c, w, b, j));
  if (threadIdx.x == 0) mean[row] = from_opmath<T>(mu), rstd[row] = from_opmath<T>(rs);
}

// grad_input per row (layer_norm_grad_input): the sums of g and g * xhat first.
template <class T>
__global__ void layer_norm_backward_kernel(const T* go, const T* x, const T* mean, const T* rstd, const T* w, T* grad,
                                           int64_t rows, int64_t n) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  const bool active = row < rows;
  const double m = active ? static_cast<double>(to_opmath(mean[row])) : 0.0;
  const double rs = active ? static_cast<double>(to_opmath(rstd[row])) : 0.0;
  auto g_at = [&](int64_t j) {
    const double g = to_opmath(go[row * n + j]);
    return w ? g * static_cast<double>(to_opmath(w[j])) : g;
  };
  auto xhat_at = [&](int64_t j) { return (static_cast<double>(to_opmath(x[row * n + j])) - m) * rs; };
  double sg = 0, sgx = 0;
  if (active)
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const double g = g_at(j);
      sg += g;
      sgx += g * xhat_at(j);
    }
  const double mean_g = group_reduce(sg, Add{}, 0.0) / static_cast<double>(n);
  const double mean_gx = group_reduce(sgx, Add{}, 0.0) / static_cast<double>(n);
  if (!active) return;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x)
    grad[row * n + j] = from_opmath<T>(layer_norm_grad_input(rs, g_at(j), xhat_at(j), mean_g, mean_gx));
}

// ---- Rows held in registers: each of a row's threads loads kPacks packs of 16 bytes once, at pack
// indices threadIdx.x, threadIdx.x + blockDim.x, ...; the two passes over the row and the output
// then read registers. A group is a warp (8 rows a block) or, for longer rows, a whole block.
template <class T>
struct RowPacks {
  static constexpr int kVec = 16 / sizeof(T);
  static constexpr int kPacks = sizeof(T) == 2 ? 4 : 8;  // 32 elements a thread (16 of double)
  using Pack = AlignedVec<T, kVec>;
};

template <class T>
__global__ void layer_norm_cached_kernel(const T* x, const T* w, const T* b, T* y, T* mean, T* rstd, int64_t rows,
                                         int64_t n, double eps) {
  using C = opmath_t<T>;
  using R = RowPacks<T>;
  using Pack = typename R::Pack;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (row >= rows) return;  // a whole warp (warp rows) or block (block rows): no shuffle partner is lost
  const int64_t packs = n / R::kVec;
  const Pack* xr = reinterpret_cast<const Pack*>(x + row * n);
  Pack v[R::kPacks];
  double s = 0;
#pragma unroll
  for (int i = 0; i < R::kPacks; ++i) {
    const int64_t p = i * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (p < packs) {
      v[i] = xr[p];
#pragma unroll
      for (int k = 0; k < R::kVec; ++k) s += static_cast<double>(to_opmath(v[i].val[k]));
    }
  }
  const double mu = group_reduce(s, Add{}, 0.0) / static_cast<double>(n);
  double sq = 0;
#pragma unroll
  for (int i = 0; i < R::kPacks; ++i)
    if (i * static_cast<int64_t>(blockDim.x) + threadIdx.x < packs)
#pragma unroll
      for (int k = 0; k < R::kVec; ++k) {
        const double d = static_cast<double>(to_opmath(v[i].val[k])) - mu;
        sq += d * d;
      }
  const double rs = layer_norm_rstd(group_reduce(sq, Add{}, 0.0), n, eps);
  const C mu_c = static_cast<C>(mu), rs_c = static_cast<C>(rs);
  Pack* yr = reinterpret_cast<Pack*>(y + row * n);
#pragma unroll
  for (int i = 0; i < R::kPacks; ++i) {
    const int64_t p = i * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (p >= packs) continue;
    Pack wv, bv, out;
    if (w) wv = reinterpret_cast<const Pack*>(w)[p];
    if (b) bv = reinterpret_cast<const Pack*>(b)[p];
#pragma unroll
    for (int k = 0; k < R::kVec; ++k) {  // layer_norm_output's formula, with w and b from packs in registers
      C yk = (to_opmath(v[i].val[k]) - mu_c) * rs_c;
      if (w) yk *= to_opmath(wv.val[k]);
      if (b) yk += to_opmath(bv.val[k]);
      out.val[k] = from_opmath<T>(yk);
    }
    yr[p] = out;
  }
  if (threadIdx.x == 0) mean[row] = from_opmath<T>(mu), rstd[row] = from_opmath<T>(rs);
}

// grad_input from registers. The per-element arithmetic is in the compute type C (float for
// float32): in double it bound the kernel (35 us against 57 us for 8192 rows of 1,024 on an H200,
// PyTorch 27 us). A thread's own sums are in C, the sums over the row's threads in double.
template <class T>
__global__ void layer_norm_backward_cached_kernel(const T* go, const T* x, const T* mean, const T* rstd, const T* w,
                                                  T* grad, int64_t rows, int64_t n) {
  using C = opmath_t<T>;
  using R = RowPacks<T>;
  using Pack = typename R::Pack;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const int64_t packs = n / R::kVec;
  const C m = to_opmath(mean[row]), rs = to_opmath(rstd[row]);
  const Pack* xr = reinterpret_cast<const Pack*>(x + row * n);
  const Pack* gr = reinterpret_cast<const Pack*>(go + row * n);
  C g[R::kPacks][R::kVec], xhat[R::kPacks][R::kVec];
  C sg = 0, sgx = 0;
#pragma unroll
  for (int i = 0; i < R::kPacks; ++i) {
    const int64_t p = i * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (p >= packs) continue;
    const Pack xv = xr[p], gv = gr[p];
    Pack wv;
    if (w) wv = reinterpret_cast<const Pack*>(w)[p];
#pragma unroll
    for (int k = 0; k < R::kVec; ++k) {
      g[i][k] = to_opmath(gv.val[k]);
      if (w) g[i][k] *= to_opmath(wv.val[k]);
      xhat[i][k] = (to_opmath(xv.val[k]) - m) * rs;
      sg += g[i][k];
      sgx += g[i][k] * xhat[i][k];
    }
  }
  const C mean_g = static_cast<C>(group_reduce(static_cast<double>(sg), Add{}, 0.0) / static_cast<double>(n));
  const C mean_gx = static_cast<C>(group_reduce(static_cast<double>(sgx), Add{}, 0.0) / static_cast<double>(n));
  Pack* out = reinterpret_cast<Pack*>(grad + row * n);
#pragma unroll
  for (int i = 0; i < R::kPacks; ++i) {
    const int64_t p = i * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (p >= packs) continue;
    Pack o;
#pragma unroll
    for (int k = 0; k < R::kVec; ++k)
      o.val[k] = from_opmath<T>(layer_norm_grad_input(rs, g[i][k], xhat[i][k], mean_g, mean_gx));
    out[p] = o;
  }
}

// The cached kernels' launch for rows of n elements, or nothing where they do not apply: n of 256
// or more (shorter rows ran faster on the other kernels), whole packs, at most 256 threads a row,
// and every pointer 16-byte aligned. Threads a row: the fewest (a power of two, at least a warp)
// whose packs cover n.
template <class T>
std::optional<RowLaunch> cached_row_launch(int64_t rows, int64_t n, std::initializer_list<const void*> data) {
  using R = RowPacks<T>;
  if (n < 256 || n % R::kVec != 0) return std::nullopt;
  for (const void* p : data)
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0) return std::nullopt;
  int64_t threads = 32;
  while (threads * R::kPacks * R::kVec < n) threads *= 2;
  if (threads > 256) return std::nullopt;
  const dim3 block(static_cast<unsigned>(threads), threads == 32 ? 8 : 1);
  return RowLaunch{dim3(static_cast<unsigned>((rows + block.y - 1) / block.y)), block};
}

// grad_weight[j] = sum over rows of grad_out * xhat, grad_bias[j] = sum of grad_out: column sums,
// in two steps so that every SM has work however few the columns are. First each block sums one
// chunk of rows for 32 columns (16 row lanes, then shared memory); then the chunks' partial sums
// are added in a fixed order (deterministic, no atomics).
constexpr int kParamCols = 32, kParamLanes = 16;

// The column sums (sw, sb) of a block's Lanes row lanes (threadIdx.y) added in lane order into
// lane 0's; true on lane 0's threads, which hold the block's sums.
template <int Lanes>
__device__ __forceinline__ bool add_lanes(double& sw, double& sb) {
  __shared__ double lane_w[Lanes][kParamCols + 1], lane_b[Lanes][kParamCols + 1];
  lane_w[threadIdx.y][threadIdx.x] = sw;
  lane_b[threadIdx.y][threadIdx.x] = sb;
  __syncthreads();
  if (threadIdx.y != 0) return false;
  for (int lane = 1; lane < Lanes; ++lane) {
    sw += lane_w[lane][threadIdx.x];
    sb += lane_b[lane][threadIdx.x];
  }
  return true;
}

template <class T>
__global__ void layer_norm_params_partial_kernel(const T* go, const T* x, const T* mean, const T* rstd, double* part_w,
                                                 double* part_b, int64_t rows, int64_t n, int64_t rows_per_chunk) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * kParamCols + threadIdx.x;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * rows_per_chunk;
  const int64_t end = begin + rows_per_chunk < rows ? begin + rows_per_chunk : rows;
  double sw = 0, sb = 0;
  if (j < n)
    for (int64_t r = begin + threadIdx.y; r < end; r += kParamLanes) {
      const double g = to_opmath(go[r * n + j]);
      const double m = to_opmath(mean[r]), rs = to_opmath(rstd[r]);
      sw += g * (static_cast<double>(to_opmath(x[r * n + j])) - m) * rs;
      sb += g;
    }
  if (!add_lanes<kParamLanes>(sw, sb) || j >= n) return;
  part_w[blockIdx.y * n + j] = sw;
  part_b[blockIdx.y * n + j] = sb;
}

// The chunks' partial sums of 32 columns a block: kParamSumLanes lanes of 32 threads each add
// every kParamSumLanes-th chunk, then the lanes' sums are added in lane order. (One thread per
// column adding every chunk in turn left most of the GPU idle: 12 us on 512 columns of 64 chunks,
// against 4 us.)
constexpr int kParamSumLanes = 8;

template <class T>
__global__ void layer_norm_params_sum_kernel(const double* part_w, const double* part_b, T* grad_w, T* grad_b,
                                             int64_t chunks, int64_t n) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * kParamCols + threadIdx.x;
  double sw = 0, sb = 0;
  if (j < n)
    for (int64_t c = threadIdx.y; c < chunks; c += kParamSumLanes) {
      sw += part_w[c * n + j];
      sb += part_b[c * n + j];
    }
  if (!add_lanes<kParamSumLanes>(sw, sb) || j >= n) return;
  grad_w[j] = from_opmath<T>(sw);
  grad_b[j] = from_opmath<T>(sb);
}

// At least 64 rows a chunk, and at most 256 chunks.
int64_t param_rows_per_chunk(int64_t rows) {
  const int64_t spread = (rows + 255) / 256;
  return spread > 4 * kParamLanes ? spread : 4 * kParamLanes;
}

cudaStream_t stream_of(const Tensor& t) { return current_stream(t.device().index).handle(); }

// A warp per row up to 512 columns, else 256 threads: on an H100, 4096 rows of 512 took 15.5 us
// forward and 16.2 us backward with 256 threads a row, 10.8 and 11.5 with a warp (the block-wide
// combining costs more than the row's arithmetic); at 1,024 columns the warp is slower.
constexpr int64_t kWarpRowColumns = 512;

void forward(LayerNormOperands& o, double eps) {
  DeviceGuard guard(o.x.device().index);
  if (o.s.rows == 0) return;
  visit_floating_device_type(o.x.dtype(), [&]<class T>() {
    const T *x = o.x.template data<T>(), *w = data_or_null<T>(o.w), *b = data_or_null<T>(o.b);
    T *y = o.out.template data<T>(), *mean = o.mean.template data<T>(), *rstd = o.rstd.template data<T>();
    if (const auto c = cached_row_launch<T>(o.s.rows, o.s.cols, {x, w, b, y})) {
      layer_norm_cached_kernel<T>
          <<<c->grid, c->block, 0, stream_of(o.x)>>>(x, w, b, y, mean, rstd, o.s.rows, o.s.cols, eps);
    } else {
      const RowLaunch l = row_launch(o.s.rows, o.s.cols, kWarpRowColumns);
      layer_norm_kernel<T><<<l.grid, l.block, 0, stream_of(o.x)>>>(x, w, b, y, mean, rstd, o.s.rows, o.s.cols, eps);
    }
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void backward(LayerNormBackwardOperands& o) {
  DeviceGuard guard(o.x.device().index);
  if (o.s.cols == 0) return;
  const Tensor& input = o.x;
  visit_floating_device_type(input.dtype(), [&]<class T>() {
    if (o.s.rows > 0) {
      const T *g = o.g.template data<T>(), *x = o.x.template data<T>(), *w = data_or_null<T>(o.w);
      const T *mu = o.mu.template data<T>(), *rs = o.rs.template data<T>();
      T* grad = o.grad_in.template data<T>();
      if (const auto c = cached_row_launch<T>(o.s.rows, o.s.cols, {g, x, w, grad})) {
        layer_norm_backward_cached_kernel<T>
            <<<c->grid, c->block, 0, stream_of(input)>>>(g, x, mu, rs, w, grad, o.s.rows, o.s.cols);
      } else {
        const RowLaunch l = row_launch(o.s.rows, o.s.cols, kWarpRowColumns);
        layer_norm_backward_kernel<T>
            <<<l.grid, l.block, 0, stream_of(input)>>>(g, x, mu, rs, w, grad, o.s.rows, o.s.cols);
      }
      GB_CUDA_KERNEL_LAUNCH_CHECK();
    }
    const int64_t per_chunk = param_rows_per_chunk(o.s.rows);
    const int64_t chunks = o.s.rows == 0 ? 1 : (o.s.rows + per_chunk - 1) / per_chunk;
    Tensor partial = glassbox::empty({2, chunks, o.s.cols}, ScalarType::Float64, input.device());
    double* part_w = partial.template data<double>();
    double* part_b = part_w + chunks * o.s.cols;
    const dim3 grid(static_cast<unsigned>((o.s.cols + kParamCols - 1) / kParamCols), static_cast<unsigned>(chunks));
    layer_norm_params_partial_kernel<T><<<grid, dim3(kParamCols, kParamLanes), 0, stream_of(input)>>>(
        o.g.template data<T>(), o.x.template data<T>(), o.mu.template data<T>(), o.rs.template data<T>(), part_w,
        part_b, o.s.rows, o.s.cols, per_chunk);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
    layer_norm_params_sum_kernel<T><<<grid.x, dim3(kParamCols, kParamSumLanes), 0, stream_of(input)>>>(
        part_w, part_b, o.grad_w.template data<T>(), o.grad_b.template data<T>(), chunks, o.s.cols);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

const LayerNormBackend kLayerNorm{forward, backward};
const LayerNormBackends::Registration kRegistered(DeviceType::CUDA, kLayerNorm);
}  // namespace

}  // namespace glassbox::cuda
