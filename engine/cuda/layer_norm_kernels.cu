// Layer normalisation on CUDA, fused per row: one group of threads per row computes the mean and
// then the variance around it (two passes over the row, sums in double as on the CPU), and
// writes the normalised, scaled and shifted row. The backward's grad_input is per row likewise;
// grad_weight and grad_bias are column sums over chunks of rows, then over the chunks.
#include <cmath>

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
  const RowLaunch l = row_launch(o.s.rows, o.s.cols, kWarpRowColumns);
  visit_floating_device_type(o.x.dtype(), [&]<class T>() {
    layer_norm_kernel<T><<<l.grid, l.block, 0, stream_of(o.x)>>>(
        o.x.template data<T>(), data_or_null<T>(o.w), data_or_null<T>(o.b), o.out.template data<T>(),
        o.mean.template data<T>(), o.rstd.template data<T>(), o.s.rows, o.s.cols, eps);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void backward(LayerNormBackwardOperands& o) {
  DeviceGuard guard(o.x.device().index);
  if (o.s.cols == 0) return;
  const RowLaunch l = row_launch(o.s.rows, o.s.cols, kWarpRowColumns);
  const Tensor& input = o.x;
  visit_floating_device_type(input.dtype(), [&]<class T>() {
    if (o.s.rows > 0) {
      layer_norm_backward_kernel<T><<<l.grid, l.block, 0, stream_of(input)>>>(
          o.g.template data<T>(), o.x.template data<T>(), o.mu.template data<T>(), o.rs.template data<T>(),
          data_or_null<T>(o.w), o.grad_in.template data<T>(), o.s.rows, o.s.cols);
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
