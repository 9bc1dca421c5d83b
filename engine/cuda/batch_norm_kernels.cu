// Batch normalisation on CUDA in three launches each way. A channel's N * spatial elements are
// summed in chunks, one block per (channel, chunk), so that few channels still fill the GPU; one
// thread per channel then adds its chunks' partial sums in order (deterministic, no atomics) and
// turns them into the statistics, the running statistics' update and per-channel coefficients;
// last, an element-wise pass writes the output (or grad_input) as one multiply-add per element.
// float16/bfloat16 compute in float; the sums of a thread are kept in float (double for float64)
// and combined in double.
#include <cstdint>
#include <type_traits>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/block_reduce.cuh"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/kernels/batch_norm.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::cuda {

namespace {
using namespace kernels;

constexpr int kThreads = 256;

struct Add {
  __device__ __forceinline__ double operator()(double a, double b) const { return a + b; }
};

// What a thread accumulates in: float for float32 and the halves, double for float64.
template <class T>
using thread_acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class A>
struct Pair {
  A first, second;
};

// Forward terms: x - shift and its square, the shift being the channel's first element.
template <class T>
struct ShiftedTerms {
  const T* x;
  int64_t spatial;
  using Acc = thread_acc_t<T>;
  __device__ __forceinline__ Acc shift(int64_t c) const { return static_cast<Acc>(to_opmath(x[c * spatial])); }
  __device__ __forceinline__ Pair<Acc> operator()(int64_t at, Acc shift) const {
    const Acc d = static_cast<Acc>(to_opmath(x[at])) - shift;
    return {d, d * d};
  }
};

// Backward terms: g and g * (x - mean).
template <class T>
struct GradTerms {
  const T *g, *x;
  const opmath_t<T>* mean;
  using Acc = thread_acc_t<T>;
  __device__ __forceinline__ Acc shift(int64_t c) const { return static_cast<Acc>(mean[c]); }
  __device__ __forceinline__ Pair<Acc> operator()(int64_t at, Acc mean_c) const {
    const Acc gv = static_cast<Acc>(to_opmath(g[at]));
    return {gv, gv * (static_cast<Acc>(to_opmath(x[at])) - mean_c)};
  }
};

// part[(c * chunks + chunk) * 2 + {0, 1}]: the two sums of chunk `chunk` (blockIdx.y) of channel c
// (blockIdx.x), a chunk being elements [chunk * per_chunk, +per_chunk) of the channel's `count`.
// I is the index type: 32 bits when the input is small enough, whose divisions are cheaper.
template <class I, class Terms>
__global__ void channel_sums_kernel(Terms terms, double* part, I count, I spatial, I channels, I per_chunk) {
  using Acc = typename Terms::Acc;
  const I c = blockIdx.x, chunk = blockIdx.y;
  const I begin = chunk * per_chunk;
  const I end = begin + per_chunk < count ? begin + per_chunk : count;
  const Acc shift = terms.shift(static_cast<int64_t>(c));
  Acc s1 = 0, s2 = 0;
  for (I e = begin + threadIdx.x; e < end; e += blockDim.x) {
    const I n = e / spatial, s = e - n * spatial;
    const Pair<Acc> v = terms(static_cast<int64_t>((n * channels + c) * spatial + s), shift);
    s1 += v.first;
    s2 += v.second;
  }
  const double t1 = group_reduce(static_cast<double>(s1), Add{}, 0.0);
  const double t2 = group_reduce(static_cast<double>(s2), Add{}, 0.0);
  if (threadIdx.x != 0) return;
  const int64_t at = (static_cast<int64_t>(c) * gridDim.y + chunk) * 2;
  part[at] = t1;
  part[at + 1] = t2;
}

__device__ __forceinline__ Pair<double> chunk_total(const double* part, int64_t c, int64_t chunks) {
  Pair<double> t{0, 0};
  for (int64_t k = 0; k < chunks; ++k) {
    t.first += part[(c * chunks + k) * 2];
    t.second += part[(c * chunks + k) * 2 + 1];
  }
  return t;
}

// Per channel: the statistics (the batch's in training, where the running ones move too; else the
// running ones), save_mean, save_invstd, and the output's coefficients: coef[c] = scale,
// coef[2C + c] = shift (coef[C + c] unused).
template <class T>
__global__ void batch_norm_stats_kernel(const T* x, const double* part, int64_t chunks, int64_t channels,
                                        int64_t spatial, int64_t count, bool training, double momentum, double eps,
                                        const opmath_t<T>* w, const opmath_t<T>* b, opmath_t<T>* rm, opmath_t<T>* rv,
                                        opmath_t<T>* save_mean, opmath_t<T>* save_invstd, opmath_t<T>* coef) {
  using A = opmath_t<T>;
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  double mean, var;
  if (training) {
    const Pair<double> t = chunk_total(part, c, chunks);
    // The shift as the sums kernel took it (rounded to its accumulator type).
    const double shift = static_cast<thread_acc_t<T>>(to_opmath(x[c * spatial]));
    const ChannelStats st = channel_stats(ShiftedSums{t.first, t.second}, shift, count);
    mean = st.mean, var = st.var;
    if (rm) rm[c] = static_cast<A>(running_update(rm[c], mean, momentum));
    if (rv) rv[c] = static_cast<A>(running_update(rv[c], unbiased_var(var, count), momentum));
  } else {
    mean = rm[c], var = rv[c];
  }
  const double invstd = batch_norm_invstd(var, eps);
  save_mean[c] = static_cast<A>(mean), save_invstd[c] = static_cast<A>(invstd);
  const Affine f =
      output_affine(mean, invstd, w ? static_cast<double>(w[c]) : 1.0, b ? static_cast<double>(b[c]) : 0.0);
  coef[c] = static_cast<A>(f.scale);
  coef[channels + c] = A(0);
  coef[2 * channels + c] = static_cast<A>(f.shift);
}

// Per channel: grad_bias, grad_weight and grad_input's coefficients (coef[c] on g, coef[C + c] on
// x, coef[2C + c] constant).
template <class A>
__global__ void batch_norm_backward_coefficients_kernel(const double* part, int64_t chunks, int64_t channels,
                                                        int64_t count, bool training, const A* w, const A* mean,
                                                        const A* invstd, A* grad_w, A* grad_b, A* coef) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  const Pair<double> t = chunk_total(part, c, chunks);
  const double m = mean[c], is = invstd[c];
  grad_b[c] = static_cast<A>(t.first);
  grad_w[c] = static_cast<A>(t.second * is);
  const GradInputCoefficients k =
      grad_input_coefficients(t.first, t.second, m, is, w ? static_cast<double>(w[c]) : 1.0, count, training);
  coef[c] = static_cast<A>(k.g);
  coef[channels + c] = static_cast<A>(k.x);
  coef[2 * channels + c] = static_cast<A>(k.constant);
}

// out = in0 * coef[c] + in1 * coef[C + c] + coef[2C + c] over every element (in1 may be null).
template <class T, class I>
__global__ void batch_norm_apply_kernel(const T* in0, const T* in1, const opmath_t<T>* coef, T* out, I numel, I spatial,
                                        I channels) {
  using A = opmath_t<T>;
  const I stride = static_cast<I>(gridDim.x) * blockDim.x;
  for (I i = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; i < numel; i += stride) {
    const I c = (i / spatial) % channels;
    A v = to_opmath(in0[i]) * coef[c] + coef[2 * channels + c];
    if (in1) v += to_opmath(in1[i]) * coef[channels + c];
    out[i] = from_opmath<T>(v);
  }
}

cudaStream_t stream_of(const Tensor& t) { return current_stream(t.device().index).handle(); }

template <class A>
A* data_or_null(const Tensor& t) {
  return t.defined() ? t.template data<A>() : nullptr;
}

unsigned blocks_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < (1 << 20) ? (blocks > 0 ? blocks : 1) : (1 << 20));
}

// About 1024 blocks in all, but at least 8 elements a thread and at most 1024 chunks a channel.
int64_t chunks_for(int64_t channels, int64_t count) {
  const int64_t wanted = 1024 / channels > 1 ? 1024 / channels : 1;
  const int64_t most = count / (kThreads * 8) > 1 ? count / (kThreads * 8) : 1;
  return wanted < most ? wanted : most;
}

// The channel sums of `terms` into part ([C, chunks, 2] doubles), with the cheaper 32-bit index
// where every element index fits.
template <class Terms>
void launch_channel_sums(const Terms& terms, double* part, const BatchNormShape& s, int64_t numel, int64_t chunks,
                         cudaStream_t stream) {
  const int64_t per_chunk = (s.count() + chunks - 1) / chunks;
  const dim3 grid(static_cast<unsigned>(s.channels), static_cast<unsigned>(chunks));
  if (numel < (int64_t{1} << 31)) {
    using I = uint32_t;
    channel_sums_kernel<I><<<grid, kThreads, 0, stream>>>(terms, part, static_cast<I>(s.count()),
                                                          static_cast<I>(s.spatial), static_cast<I>(s.channels),
                                                          static_cast<I>(per_chunk));
  } else {
    using I = int64_t;
    channel_sums_kernel<I><<<grid, kThreads, 0, stream>>>(terms, part, s.count(), s.spatial, s.channels, per_chunk);
  }
  GB_CUDA_KERNEL_LAUNCH_CHECK();
}

template <class T>
void launch_apply(const T* in0, const T* in1, const opmath_t<T>* coef, T* out, const BatchNormShape& s, int64_t numel,
                  cudaStream_t stream) {
  if (numel == 0) return;
  if (numel < (int64_t{1} << 31)) {
    using I = uint32_t;
    batch_norm_apply_kernel<T, I><<<blocks_for(numel), kThreads, 0, stream>>>(
        in0, in1, coef, out, static_cast<I>(numel), static_cast<I>(s.spatial), static_cast<I>(s.channels));
  } else {
    batch_norm_apply_kernel<T, int64_t>
        <<<blocks_for(numel), kThreads, 0, stream>>>(in0, in1, coef, out, numel, s.spatial, s.channels);
  }
  GB_CUDA_KERNEL_LAUNCH_CHECK();
}

void forward(BatchNormOperands& o) {
  DeviceGuard guard(o.x.device().index);
  const BatchNormShape& s = o.s;
  if (s.channels == 0) return;
  const cudaStream_t stream = stream_of(o.x);
  const int64_t numel = o.x.numel();
  visit_floating_device_type(o.x.dtype(), [&]<class T>() {
    using A = opmath_t<T>;
    const T* x = o.x.template data<T>();
    const int64_t chunks = o.training ? chunks_for(s.channels, s.count()) : 1;
    Tensor part;
    if (o.training) {
      part = glassbox::empty({s.channels, chunks, 2}, ScalarType::Float64, o.x.device());
      launch_channel_sums(ShiftedTerms<T>{x, s.spatial}, part.template data<double>(), s, numel, chunks, stream);
    }
    Tensor coef = glassbox::empty({3, s.channels}, o.save_mean.dtype(), o.x.device());
    batch_norm_stats_kernel<T><<<blocks_for(s.channels), kThreads, 0, stream>>>(
        x, part.defined() ? part.template data<double>() : nullptr, chunks, s.channels, s.spatial, s.count(),
        o.training, o.momentum, o.eps, data_or_null<const A>(o.w), data_or_null<const A>(o.b),
        data_or_null<A>(o.running_mean), data_or_null<A>(o.running_var), o.save_mean.template data<A>(),
        o.save_invstd.template data<A>(), coef.template data<A>());
    GB_CUDA_KERNEL_LAUNCH_CHECK();
    launch_apply<T>(x, nullptr, coef.template data<A>(), o.out.template data<T>(), s, numel, stream);
  });
}

void backward(BatchNormBackwardOperands& o) {
  DeviceGuard guard(o.x.device().index);
  const BatchNormShape& s = o.s;
  if (s.channels == 0) return;
  const cudaStream_t stream = stream_of(o.x);
  const int64_t numel = o.x.numel();
  visit_floating_device_type(o.x.dtype(), [&]<class T>() {
    using A = opmath_t<T>;
    const T *x = o.x.template data<T>(), *g = o.g.template data<T>();
    const A* mean = o.mean.template data<A>();
    const int64_t chunks = chunks_for(s.channels, s.count());
    Tensor part = glassbox::empty({s.channels, chunks, 2}, ScalarType::Float64, o.x.device());
    launch_channel_sums(GradTerms<T>{g, x, mean}, part.template data<double>(), s, numel, chunks, stream);
    Tensor coef = glassbox::empty({3, s.channels}, o.mean.dtype(), o.x.device());
    batch_norm_backward_coefficients_kernel<A><<<blocks_for(s.channels), kThreads, 0, stream>>>(
        part.template data<double>(), chunks, s.channels, s.count(), o.training, data_or_null<const A>(o.w), mean,
        o.invstd.template data<A>(), o.grad_w.template data<A>(), o.grad_b.template data<A>(), coef.template data<A>());
    GB_CUDA_KERNEL_LAUNCH_CHECK();
    // In eval mode grad_input does not depend on x: the second input is left out.
    launch_apply<T>(g, o.training ? x : nullptr, coef.template data<A>(), o.grad_in.template data<T>(), s, numel,
                    stream);
  });
}

const BatchNormBackend kBatchNorm{forward, backward};
const BatchNormBackends::Registration kRegistered(DeviceType::CUDA, kBatchNorm);
}  // namespace

}  // namespace glassbox::cuda
