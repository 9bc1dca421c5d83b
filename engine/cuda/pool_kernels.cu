// 2-D max and average pooling on CUDA, forward and backward; the same windows and rules as
// engine/cpu/pool_kernels.cpp (NaN wins a max window, the first maximum's index is kept).
// Forward: one thread per output. Max backward scatters each output's gradient to its recorded
// index with atomics (in float32 for float16/bfloat16, int32 for the small integers); average
// backward gathers, one thread per input element, from the windows that cover it.
#include <cuda/std/limits>

#include <string>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/linalg_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/NativeFunctions.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

struct PoolGeometry {
  int64_t planes, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
};
PoolGeometry geometry_of(const Pool2dShape& s) {
  const Window2d& w = s.window;
  return {s.planes,    s.height,    s.width,      s.out_height, s.out_width,   w.kernel[0],  w.kernel[1],
          w.stride[0], w.stride[1], w.padding[0], w.padding[1], w.dilation[0], w.dilation[1]};
}

__host__ __device__ __forceinline__ int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + 255) / 256); }
cudaStream_t stream_of(const Tensor& t) { return current_stream(t.device().index).handle(); }

template <class T>
__global__ void max_pool_kernel(const T* in, T* out, int64_t* indices, PoolGeometry g, int64_t total) {
  using C = opmath_t<T>;
  const int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (o >= total) return;
  const int64_t ox = o % g.ow, oy = (o / g.ow) % g.oh, p = o / (g.ow * g.oh);
  int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
  const int64_t y1 = imin(y0 + g.dh * (g.kh - 1) + 1, g.h), x1 = imin(x0 + g.dw * (g.kw - 1) + 1, g.w);
  while (y0 < 0) y0 += g.dh;
  while (x0 < 0) x0 += g.dw;
  const T* src = in + p * g.h * g.w;
  C best = ::cuda::std::numeric_limits<C>::has_infinity ? -::cuda::std::numeric_limits<C>::infinity()
                                                        : ::cuda::std::numeric_limits<C>::lowest();
  int64_t best_at = y0 * g.w + x0;
  for (int64_t y = y0; y < y1; y += g.dh) {
    for (int64_t x = x0; x < x1; x += g.dw) {
      const C v = to_opmath(src[y * g.w + x]);
      if (v > best || v != v) {  // NaN wins (v != v is false for integers)
        best = v;
        best_at = y * g.w + x;
      }
    }
  }
  out[o] = from_opmath<T>(best);
  indices[o] = best_at;
}

// grad[p, idx[o]] += g[o]; an index outside the plane is reported through *bad (the first output).
template <class T, class A>
__global__ void max_pool_backward_kernel(const T* go, const int64_t* indices, A* grad, int64_t plane, int64_t out_plane,
                                         int64_t total, unsigned long long* bad) {
  const int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (o >= total) return;
  const int64_t at = indices[o];
  if (at < 0 || at >= plane) {
    atomicMin(bad, static_cast<unsigned long long>(o));
    return;
  }
  A* dst = grad + o / out_plane * plane + at;
  const auto v = to_opmath(go[o]);
  if constexpr (std::is_same_v<A, int64_t>)
    atomicAdd(reinterpret_cast<unsigned long long*>(dst), static_cast<unsigned long long>(static_cast<int64_t>(v)));
  else atomicAdd(dst, static_cast<A>(v));
}

// The clipped window of output (oy, ox) and its divisor, as the CPU's avg_window.
struct AvgWindow {
  int64_t y0, y1, x0, x1, divisor;
};
__device__ __forceinline__ AvgWindow avg_window(const PoolGeometry& g, int64_t oy, int64_t ox, bool count_include_pad) {
  int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
  int64_t y1 = imin(y0 + g.kh, g.h + g.ph), x1 = imin(x0 + g.kw, g.w + g.pw);
  const int64_t padded = (y1 - y0) * (x1 - x0);
  y0 = imax(y0, 0), x0 = imax(x0, 0);
  y1 = imin(y1, g.h), x1 = imin(x1, g.w);
  return {y0, y1, x0, x1, count_include_pad ? padded : (y1 - y0) * (x1 - x0)};
}

template <class T>
__global__ void avg_pool_kernel(const T* in, T* out, PoolGeometry g, bool count_include_pad, int64_t total) {
  using C = opmath_t<T>;
  const int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (o >= total) return;
  const int64_t ox = o % g.ow, oy = (o / g.ow) % g.oh, p = o / (g.ow * g.oh);
  const AvgWindow a = avg_window(g, oy, ox, count_include_pad);
  const T* src = in + p * g.h * g.w;
  C sum = 0;
  for (int64_t y = a.y0; y < a.y1; ++y)
    for (int64_t x = a.x0; x < a.x1; ++x) sum += to_opmath(src[y * g.w + x]);
  out[o] = from_opmath<T>(sum / static_cast<C>(a.divisor));
}

// grad[p, y, x] = the sum of g[o] / divisor(o) over the outputs whose clipped window holds (y, x).
template <class T>
__global__ void avg_pool_backward_kernel(const T* go, T* grad, PoolGeometry g, bool count_include_pad, int64_t total) {
  using C = opmath_t<T>;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const int64_t x = i % g.w, y = (i / g.w) % g.h, p = i / (g.w * g.h);
  // Window oy starts at oy*sh - ph and spans kh rows: oy in [ceil((y + ph - kh + 1) / sh), floor((y + ph) / sh)].
  const int64_t oy_lo = imax(0, (y + g.ph - g.kh + g.sh) / g.sh), oy_hi = imin((y + g.ph) / g.sh, g.oh - 1);
  const int64_t ox_lo = imax(0, (x + g.pw - g.kw + g.sw) / g.sw), ox_hi = imin((x + g.pw) / g.sw, g.ow - 1);
  const T* src = go + p * g.oh * g.ow;
  C acc = 0;
  for (int64_t oy = oy_lo; oy <= oy_hi; ++oy) {
    for (int64_t ox = ox_lo; ox <= ox_hi; ++ox) {
      const AvgWindow a = avg_window(g, oy, ox, count_include_pad);
      if (y < a.y0 || y >= a.y1 || x < a.x0 || x >= a.x1) continue;
      acc += to_opmath(src[oy * g.ow + ox]) / static_cast<C>(a.divisor);
    }
  }
  grad[i] = from_opmath<T>(acc);
}

// Accumulator of max pooling's gradient: float32 for float16/bfloat16, int32 for small integers.
ScalarType grad_acc_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Float16:
    case ScalarType::BFloat16: return ScalarType::Float32;
    case ScalarType::Int16:
    case ScalarType::Int8:
    case ScalarType::UInt8: return ScalarType::Int32;
    default: return t;
  }
}
}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                        IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const Pool2dShape s =
      pool2d_shape("max_pool2d_with_indices", self, kernel_size, stride, padding, dilation, ceil_mode);
  DeviceGuard guard(self.device().index);
  const Tensor in = self.contiguous();
  Tensor out = empty_tensor(s.output, self.dtype(), self.device());
  Tensor indices = empty_tensor(s.output, ScalarType::Int64, self.device());
  const int64_t total = out.numel();
  if (total == 0) return {out, indices};
  visit_numeric_device_type(self.dtype(), [&]<class T>() {
    max_pool_kernel<T><<<blocks_for(total), 256, 0, stream_of(self)>>>(in.template data<T>(), out.template data<T>(),
                                                                       indices.data<int64_t>(), geometry_of(s), total);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return {out, indices};
}

Tensor max_pool2d_with_indices_backward_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                             bool ceil_mode, const Tensor& indices) {
  const char* op = "max_pool2d_with_indices_backward";
  const Pool2dShape s =
      max_pool2d_backward_shape(op, grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices);
  DeviceGuard guard(self.device().index);
  const Tensor go = grad_output.contiguous(), idx = indices.contiguous();
  Tensor grad = glassbox::zeros(self.sizes(), grad_acc_dtype(self.dtype()), self.device());
  const int64_t total = go.numel(), plane = s.height * s.width, out_plane = s.out_height * s.out_width;
  if (total == 0) return grad.to(self.dtype());
  Tensor bad = glassbox::full({}, Scalar(total), ScalarType::Int64, self.device());
  visit_numeric_device_type(self.dtype(), [&]<class T>() {
    visit_scalar_device_type(grad.dtype(), [&]<class A>() {
      if constexpr (std::is_same_v<A, float> || std::is_same_v<A, double> || std::is_same_v<A, int32_t> ||
                    std::is_same_v<A, int64_t>) {
        max_pool_backward_kernel<T, A><<<blocks_for(total), 256, 0, stream_of(self)>>>(
            go.template data<T>(), idx.data<int64_t>(), grad.template data<A>(), plane, out_plane, total,
            reinterpret_cast<unsigned long long*>(bad.data<int64_t>()));
        GB_CUDA_KERNEL_LAUNCH_CHECK();
      }
    });
  });
  const int64_t first_bad = bad.to(Device(DeviceType::CPU)).data<int64_t>()[0];
  if (first_bad < total) {
    const int64_t flat[] = {-1};
    const int64_t at = glassbox::reshape(idx, flat).to(Device(DeviceType::CPU)).data<int64_t>()[first_bad];
    throw IndexError(glassbox::detail::str_cat(op, ": index ", at, " is out of range for an input plane of ", s.height,
                                               "x", s.width));
  }
  return grad.to(self.dtype());
}

Tensor avg_pool2d_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                       bool ceil_mode, bool count_include_pad) {
  const Pool2dShape s = avg_pool2d_shape("avg_pool2d", self, kernel_size, stride, padding, ceil_mode);
  DeviceGuard guard(self.device().index);
  const Tensor in = self.contiguous();
  Tensor out = empty_tensor(s.output, self.dtype(), self.device());
  const int64_t total = out.numel();
  if (total == 0) return out;
  visit_floating_device_type(self.dtype(), [&]<class T>() {
    avg_pool_kernel<T><<<blocks_for(total), 256, 0, stream_of(self)>>>(in.template data<T>(), out.template data<T>(),
                                                                       geometry_of(s), count_include_pad, total);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return out;
}

Tensor avg_pool2d_backward_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad) {
  const Pool2dShape s =
      avg_pool2d_backward_shape("avg_pool2d_backward", grad_output, self, kernel_size, stride, padding, ceil_mode);
  DeviceGuard guard(self.device().index);
  const Tensor go = grad_output.contiguous();
  Tensor grad = empty_tensor(self.sizes(), self.dtype(), self.device());
  const int64_t total = grad.numel();
  if (total == 0) return grad;
  visit_floating_device_type(self.dtype(), [&]<class T>() {
    avg_pool_backward_kernel<T><<<blocks_for(total), 256, 0, stream_of(self)>>>(
        go.template data<T>(), grad.template data<T>(), geometry_of(s), count_include_pad, total);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return grad;
}

}  // namespace glassbox::native
