// Random numbers on CUDA from the generator the CPU uses (engine/core/generator.h): element i (in
// row-major order) draws from Philox block i / PerBlock of the call's (seed, offset), one thread
// per block, with the formulas of engine/cpu/random_kernels.cpp. The same seed and offset give the
// same numbers on both devices (normal_ to within the last bits of log, sin and cos).
#include <cmath>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/core/generator.h"
#include "engine/core/philox.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/random_ops.h"
#include "glassbox/ops/NativeFunctions.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

template <class T, int PerBlock, class Draw>
__global__ void random_kernel(T* out, int64_t n, PhiloxState state, Draw draw) {
  const int64_t block = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t first = block * PerBlock;
  if (first >= n) return;
  const PhiloxWords words = philox_block(state.seed, state.offset, static_cast<uint64_t>(block));
#pragma unroll
  for (int p = 0; p < PerBlock; ++p)
    if (first + p < n) out[first + p] = draw(words.w, p);
}

// Writes draw(words, p) into every element of self; a non-contiguous self through a contiguous temporary.
template <class T, int PerBlock, class Draw>
Tensor& fill_random(Tensor& self, PhiloxState state, Draw draw) {
  DeviceGuard guard(self.device().index);
  Tensor target = self.is_contiguous() ? self : empty_tensor(self.sizes(), self.dtype(), self.device());
  const int64_t blocks = (target.numel() + PerBlock - 1) / PerBlock;
  if (blocks > 0) {
    const auto grid = static_cast<unsigned>((blocks + kElementwiseThreads - 1) / kElementwiseThreads);
    random_kernel<T, PerBlock><<<grid, kElementwiseThreads, 0, current_stream(self.device().index).handle()>>>(
        static_cast<T*>(target.data_ptr()), target.numel(), state, draw);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  }
  if (!target.is_same(self)) copy_between(self, target);
  mark_written(self);
  return self;
}

// Significand bits of the float types: uniform numbers use no more, so they stay below 1.
template <class T>
inline constexpr int kSignificandBits = std::is_same_v<T, __half>          ? 11
                                        : std::is_same_v<T, __nv_bfloat16> ? 8
                                                                           : 24;

// from + span * u in [from, to): a draw that rounds up to `to` becomes `from`.
template <class T>
struct Uniform {
  double from, to, span;
  __device__ T operator()(const uint32_t* w, int p) const {
    double u;
    if constexpr (std::is_same_v<T, double>) u = unit_double(w[2 * p], w[2 * p + 1]);
    else u = unit_float(w[p], kSignificandBits<T>);
    const T r = from_opmath<T>(static_cast<opmath_t<T>>(from + span * u));
    return static_cast<double>(to_opmath(r)) < to || span == 0.0 ? r : from_opmath<T>(static_cast<opmath_t<T>>(from));
  }
};

// Box-Muller: two uniform numbers give two independent standard normal ones.
template <class R>
__device__ R box_muller(R u_open_below, R u, bool second) {
  const R radius = ::sqrt(R(-2) * ::log(u_open_below));
  const R angle = R(2) * R(3.14159265358979323846) * u;
  return radius * (second ? ::sin(angle) : ::cos(angle));
}

template <class T>
struct Normal {
  double mean, std;
  __device__ T operator()(const uint32_t* w, int p) const {
    if constexpr (std::is_same_v<T, double>) {
      return mean + std * box_muller(1.0 - unit_double(w[0], w[1]), unit_double(w[2], w[3]), p == 1);
    } else {
      const int pair = p / 2;
      const float z = box_muller(1.0f - unit_float(w[2 * pair]), unit_float(w[2 * pair + 1]), (p & 1) != 0);
      return from_opmath<T>(static_cast<float>(mean + std * static_cast<double>(z)));
    }
  }
};

// u = word / 2^32 < p: exactly p's chance up to 2^-32.
template <class T>
struct Bernoulli {
  double p;
  __device__ T operator()(const uint32_t* w, int i) const {
    return from_opmath<T>(static_cast<opmath_t<T>>(static_cast<double>(w[i]) * 0x1p-32 < p ? 1 : 0));
  }
};

// from + 64 random bits modulo the range, counted unsigned (the range may be all of int64 but one).
template <class T>
struct RandomInRange {
  int64_t from;
  uint64_t range;
  __device__ T operator()(const uint32_t* w, int p) const {
    const uint64_t bits = (static_cast<uint64_t>(w[2 * p]) << 32) | w[2 * p + 1];
    const auto v = static_cast<int64_t>(static_cast<uint64_t>(from) + bits % range);
    if constexpr (std::is_same_v<T, bool>) return v != 0;
    else return from_opmath<T>(static_cast<opmath_t<T>>(v));
  }
};

// out[i] = 1 when word i % 4 of Philox block i / 4 (over 2^32) is below probs[i], as on the CPU.
template <class T>
__global__ void bernoulli_tensor_kernel(T* out, const double* probs, int64_t n, PhiloxState state) {
  const int64_t block = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t first = block * 4;
  if (first >= n) return;
  const PhiloxWords words = philox_block(state.seed, state.offset, static_cast<uint64_t>(block));
#pragma unroll
  for (int p = 0; p < 4; ++p)
    if (first + p < n)
      out[first + p] = from_opmath<T>(static_cast<double>(words.w[p]) * 0x1p-32 < probs[first + p] ? 1.0f : 0.0f);
}

// The position of the first probability outside [0, 1] (NaN included).
__global__ void first_bad_probability_kernel(const double* probs, int64_t n, unsigned long long* first) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    if (!(probs[i] >= 0.0 && probs[i] <= 1.0)) atomicMin(first, static_cast<unsigned long long>(i));
}
}  // namespace

Tensor& uniform_cuda_(Tensor& self, double from, double to) {
  check_floating_dtype("uniform_", self.dtype());
  check_uniform_range("uniform_", from, to);
  const PhiloxState state = default_generator().next_call();
  visit_floating_device_type(self.dtype(), [&]<class T>() {
    constexpr int kPerBlock = std::is_same_v<T, double> ? 2 : 4;
    fill_random<T, kPerBlock>(self, state, Uniform<T>{from, to, to - from});
  });
  return self;
}

Tensor& normal_cuda_(Tensor& self, double mean, double std) {
  check_floating_dtype("normal_", self.dtype());
  check_normal_std("normal_", std);
  const PhiloxState state = default_generator().next_call();
  visit_floating_device_type(self.dtype(), [&]<class T>() {
    constexpr int kPerBlock = std::is_same_v<T, double> ? 2 : 4;
    fill_random<T, kPerBlock>(self, state, Normal<T>{mean, std});
  });
  return self;
}

Tensor& bernoulli_float_cuda_(Tensor& self, double p) {
  check_probability("bernoulli_", p);
  const PhiloxState state = default_generator().next_call();
  visit_scalar_device_type(self.dtype(), [&]<class T>() { fill_random<T, 4>(self, state, Bernoulli<T>{p}); });
  return self;
}

Tensor bernoulli_cuda(const Tensor& self) {
  check_floating_dtype("bernoulli", self.dtype());
  const int device = self.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  // The probabilities as contiguous float64, checked (read back) before anything is drawn.
  Tensor probs = empty_tensor(self.sizes(), ScalarType::Float64, self.device());
  copy_between(probs, self);
  const int64_t n = probs.numel();
  const auto* pr = static_cast<const double*>(probs.data_ptr());
  if (n > 0) {
    Tensor scratch = empty_tensor(DimVector{1}, ScalarType::Int64, self.device());
    auto* first = static_cast<unsigned long long*>(scratch.data_ptr());
    GB_CUDA_CHECK(cudaMemsetAsync(first, 0xff, sizeof(unsigned long long), stream));
    const auto grid =
        static_cast<unsigned>(std::min<int64_t>((n + kElementwiseThreads - 1) / kElementwiseThreads, 4096));
    first_bad_probability_kernel<<<grid, kElementwiseThreads, 0, stream>>>(pr, n, first);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
    unsigned long long position = 0;
    GB_CUDA_CHECK(cudaMemcpyAsync(&position, first, sizeof(position), cudaMemcpyDeviceToHost, stream));
    GB_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (position != ~0ull) {
      double value = 0;
      GB_CUDA_CHECK(cudaMemcpyAsync(&value, pr + position, sizeof(value), cudaMemcpyDeviceToHost, stream));
      GB_CUDA_CHECK(cudaStreamSynchronize(stream));
      throw Error(::glassbox::detail::str_cat("bernoulli: every probability must be in [0, 1], but element ", position,
                                              " of the input (shape ", shape_to_string(self.sizes()), ", ",
                                              to_string(self.dtype()), ") is ", value));
    }
  }
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  const PhiloxState state = default_generator().next_call();
  visit_floating_device_type(self.dtype(), [&]<class T>() {
    const int64_t blocks = (n + 3) / 4;
    if (blocks > 0) {
      const auto grid = static_cast<unsigned>((blocks + kElementwiseThreads - 1) / kElementwiseThreads);
      bernoulli_tensor_kernel<T>
          <<<grid, kElementwiseThreads, 0, stream>>>(static_cast<T*>(out.data_ptr()), pr, n, state);
      GB_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
  return out;
}

Tensor& random_from_cuda_(Tensor& self, int64_t from, int64_t to) {
  check_random_range("random_", self.dtype(), from, to);
  const PhiloxState state = default_generator().next_call();
  const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  visit_scalar_device_type(self.dtype(), [&]<class T>() {
    fill_random<T, 2>(self, state, RandomInRange<T>{from, range});
  });
  return self;
}

}  // namespace glassbox::native
