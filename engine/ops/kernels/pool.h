#pragma once
// 2-D max and average pooling, written once for both backends: functors of one element's flat
// index that CUDA runs one thread per element (engine/cuda/for_each_launch.cuh); the CPU runs
// their at(plane, row, column) along output rows in a parallel loop (engine/cpu/for_each_index.h),
// which spares it the index's divisions. T is the element type, C the type it is read and
// summed in (float for float16/bfloat16). NaN wins a max window and the first maximum's index is
// kept, as in PyTorch. The front end (engine/ops/linalg_shape.cpp) checks, allocates and fills the
// plan; a backend's PoolBackend entry visits the dtype and runs these.
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "engine/core/tensor.h"
#include "engine/ops/backend_table.h"
#include "engine/ops/kernels/element.h"

namespace glassbox::kernels {

// Pool2dShape (engine/ops/linalg_shape.h) as plain values the device receives by copy: planes
// (N * C) of h x w in, oh x ow out; window kh x kw, stride, padding, dilation.
struct PoolPlan {
  int64_t planes, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
  bool count_include_pad;  // average pooling's divisor counts the padding
};

// The smallest value of C: where every max window starts.
template <class C>
GLASSBOX_HOST_DEVICE C lowest_value() {
  if constexpr (std::is_floating_point_v<C>) return -C(INFINITY);
  else if constexpr (std::is_signed_v<C>) return static_cast<C>(C(-1) << (8 * sizeof(C) - 1));
  else return C(0);
}

template <class T, class C>
struct MaxPoolOutput {
  PoolPlan g;
  const T* in;
  T* out;
  int64_t* indices;
  GLASSBOX_HOST_DEVICE void operator()(int64_t o) const { at(o / g.ow / g.oh, o / g.ow % g.oh, o % g.ow, o); }
  // Output o = (plane p, row oy, column ox).
  GLASSBOX_HOST_DEVICE void at(int64_t p, int64_t oy, int64_t ox, int64_t o) const {
    int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
    const int64_t y1 = imin(y0 + g.dh * (g.kh - 1) + 1, g.h), x1 = imin(x0 + g.dw * (g.kw - 1) + 1, g.w);
    while (y0 < 0) y0 += g.dh;
    while (x0 < 0) x0 += g.dw;
    const T* src = in + p * g.h * g.w;
    C best = lowest_value<C>();
    int64_t best_at = y0 * g.w + x0;
    for (int64_t y = y0; y < y1; y += g.dh) {
      for (int64_t x = x0; x < x1; x += g.dw) {
        const C v = static_cast<C>(src[y * g.w + x]);
        if (v > best || v != v) {  // NaN wins (v != v is false for integers)
          best = v;
          best_at = y * g.w + x;
        }
      }
    }
    out[o] = static_cast<T>(best);
    indices[o] = best_at;
  }
};

// The accumulator of max pooling's gradient: float for float16/bfloat16, int32 for the integers
// narrower than it (CUDA adds atomically in nothing narrower), T otherwise.
template <class T>
using max_pool_grad_t = std::conditional_t<std::is_integral_v<T>, std::conditional_t<(sizeof(T) < 4), int32_t, T>,
                                           std::conditional_t<std::is_floating_point_v<T>, T, float>>;

// grad_in[p, indices[o]] += grad_out[o] through Add::add (plain on the CPU, whose threads own
// whole planes; atomic on CUDA); an index outside its plane goes to Add::bad instead.
template <class T, class Add>
struct MaxPoolInputGrad {
  using A = max_pool_grad_t<T>;
  PoolPlan g;
  const T* grad_out;
  const int64_t* indices;
  A* grad_in;
  unsigned long long* first_bad;
  GLASSBOX_HOST_DEVICE void operator()(int64_t o) const {
    const int64_t at = indices[o], plane = g.h * g.w;
    if (at < 0 || at >= plane) Add::bad(first_bad, o);
    else Add::add(grad_in + o / (g.oh * g.ow) * plane + at, static_cast<A>(grad_out[o]));
  }
};

// The window of output (oy, ox) clipped to the input, and its divisor.
struct AvgWindow {
  int64_t y0, y1, x0, x1, divisor;
};
GLASSBOX_HOST_DEVICE inline AvgWindow avg_window(const PoolPlan& g, int64_t oy, int64_t ox) {
  int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
  int64_t y1 = imin(y0 + g.kh, g.h + g.ph), x1 = imin(x0 + g.kw, g.w + g.pw);
  const int64_t padded = (y1 - y0) * (x1 - x0);  // the window inside the padded input
  y0 = imax(y0, 0), x0 = imax(x0, 0);
  y1 = imin(y1, g.h), x1 = imin(x1, g.w);
  return {y0, y1, x0, x1, g.count_include_pad ? padded : (y1 - y0) * (x1 - x0)};
}

template <class T, class C>
struct AvgPoolOutput {
  PoolPlan g;
  const T* in;
  T* out;
  GLASSBOX_HOST_DEVICE void operator()(int64_t o) const { at(o / g.ow / g.oh, o / g.ow % g.oh, o % g.ow, o); }
  GLASSBOX_HOST_DEVICE void at(int64_t p, int64_t oy, int64_t ox, int64_t o) const {
    const AvgWindow a = avg_window(g, oy, ox);
    const T* src = in + p * g.h * g.w;
    C sum = 0;
    for (int64_t y = a.y0; y < a.y1; ++y)
      for (int64_t x = a.x0; x < a.x1; ++x) sum += static_cast<C>(src[y * g.w + x]);
    out[o] = static_cast<T>(sum / static_cast<C>(a.divisor));
  }
};

// grad_in[p, y, x] = the sum of grad_out[o] / divisor(o) over the outputs whose clipped window
// holds (y, x): a gather per input element, so no two elements write one place (CUDA's way; the
// CPU, whose threads own whole planes, scatters each output's share over its avg_window).
template <class T, class C>
struct AvgPoolInputGrad {
  PoolPlan g;
  const T* grad_out;
  T* grad_in;
  GLASSBOX_HOST_DEVICE void operator()(int64_t i) const {
    const int64_t x = i % g.w, y = i / g.w % g.h, p = i / g.w / g.h;
    // Window oy starts at oy*sh - ph and spans kh rows: oy in [ceil((y + ph - kh + 1) / sh), floor((y + ph) / sh)].
    const int64_t oy_lo = imax(0, (y + g.ph - g.kh + g.sh) / g.sh), oy_hi = imin((y + g.ph) / g.sh, g.oh - 1);
    const int64_t ox_lo = imax(0, (x + g.pw - g.kw + g.sw) / g.sw), ox_hi = imin((x + g.pw) / g.sw, g.ow - 1);
    const T* src = grad_out + p * g.oh * g.ow;
    C acc = 0;
    for (int64_t oy = oy_lo; oy <= oy_hi; ++oy) {
      for (int64_t ox = ox_lo; ox <= ox_hi; ++ox) {
        const AvgWindow a = avg_window(g, oy, ox);
        if (y < a.y0 || y >= a.y1 || x < a.x0 || x >= a.x1) continue;
        acc += static_cast<C>(src[oy * g.ow + ox]) / static_cast<C>(a.divisor);
      }
    }
    grad_in[i] = static_cast<T>(acc);
  }
};

// A backend's pooling compute on contiguous operands the front end allocated (never empty).
struct PoolBackend {
  void (*max_pool)(const PoolPlan& g, const Tensor& in, Tensor& out, Tensor& indices);
  // grad_in: zeros of max_pool_grad_t. Returns the first output whose index is outside its plane.
  std::optional<int64_t> (*max_pool_backward)(const PoolPlan& g, const Tensor& grad_out, const Tensor& indices,
                                              Tensor& grad_in);
  void (*avg_pool)(const PoolPlan& g, const Tensor& in, Tensor& out);
  void (*avg_pool_backward)(const PoolPlan& g, const Tensor& grad_out, Tensor& grad_in);
};
using PoolBackends = BackendTable<PoolBackend>;

}  // namespace glassbox::kernels
