// 2-D max and average pooling on the CPU, forward and backward. Every (sample, channel) plane is
// independent, so planes are spread over threads; within a plane each output reads its window.
// float16/bfloat16 compute (and accumulate gradients) in float32.
#include <cmath>
#include <limits>
#include <type_traits>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "engine/cpu/loops.h"
#include "engine/ops/linalg_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/avg_pool2d.h"
#include "glassbox/ops/native/avg_pool2d_backward.h"
#include "glassbox/ops/native/max_pool2d_with_indices.h"
#include "glassbox/ops/native/max_pool2d_with_indices_backward.h"

namespace glassbox::native {

namespace {

ScalarType compute_dtype(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 ? ScalarType::Float32 : t;
}

// Runs f(plane) for every plane, enough planes per thread to cover the hand-off.
template <class F>
void for_each_plane(const Pool2dShape& s, F f) {
  const int64_t work = std::max<int64_t>(1, s.out_height * s.out_width * s.window.kernel[0] * s.window.kernel[1]);
  parallel_for(0, s.planes, std::max<int64_t>(1, kDefaultGrain / work), [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) f(p);
  });
}

// The clipped window of output (oy, ox) for average pooling and its divisor.
struct AvgWindow {
  int64_t y0, y1, x0, x1, divisor;
};
AvgWindow avg_window(const Pool2dShape& s, int64_t oy, int64_t ox, bool count_include_pad) {
  const Window2d& w = s.window;
  int64_t y0 = oy * w.stride[0] - w.padding[0], x0 = ox * w.stride[1] - w.padding[1];
  int64_t y1 = std::min(y0 + w.kernel[0], s.height + w.padding[0]),
          x1 = std::min(x0 + w.kernel[1], s.width + w.padding[1]);
  const int64_t padded = (y1 - y0) * (x1 - x0);  // the window inside the padded input
  y0 = std::max<int64_t>(y0, 0);
  x0 = std::max<int64_t>(x0, 0);
  y1 = std::min(y1, s.height);
  x1 = std::min(x1, s.width);
  return {y0, y1, x0, x1, count_include_pad ? padded : (y1 - y0) * (x1 - x0)};
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const Pool2dShape s =
      pool2d_shape("max_pool2d_with_indices", self, kernel_size, stride, padding, dilation, ceil_mode);
  const Tensor in = self.contiguous();
  Tensor out = empty_tensor(s.output, self.dtype(), self.device());
  Tensor indices = empty_tensor(s.output, ScalarType::Int64, self.device());
  const Window2d& w = s.window;
  const int64_t H = s.height, W = s.width, OH = s.out_height, OW = s.out_width;
  visit_scalar_type(self.dtype(), [&]<class T>() {
    using C = cpu::opmath_t<T>;
    if constexpr (!std::is_same_v<T, bool>) {
      const T* src_all = in.data<T>();
      T* dst_all = out.data<T>();
      int64_t* idx_all = indices.data<int64_t>();
      for_each_plane(s, [&](int64_t p) {
        const T* src = src_all + p * H * W;
        for (int64_t oy = 0; oy < OH; ++oy) {
          int64_t y0 = oy * w.stride[0] - w.padding[0];
          const int64_t y1 = std::min(y0 + w.dilation[0] * (w.kernel[0] - 1) + 1, H);
          while (y0 < 0) y0 += w.dilation[0];
          for (int64_t ox = 0; ox < OW; ++ox) {
            int64_t x0 = ox * w.stride[1] - w.padding[1];
            const int64_t x1 = std::min(x0 + w.dilation[1] * (w.kernel[1] - 1) + 1, W);
            while (x0 < 0) x0 += w.dilation[1];
            C best = std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                          : std::numeric_limits<C>::lowest();
            int64_t best_at = y0 * W + x0;
            for (int64_t y = y0; y < y1; y += w.dilation[0]) {
              for (int64_t x = x0; x < x1; x += w.dilation[1]) {
                const C v = static_cast<C>(src[y * W + x]);
                bool take = v > best;
                if constexpr (std::is_floating_point_v<C>) take = take || std::isnan(v);  // NaN wins, as in PyTorch
                if (take) {
                  best = v;
                  best_at = y * W + x;
                }
              }
            }
            const int64_t o = p * OH * OW + oy * OW + ox;
            dst_all[o] = static_cast<T>(best);
            idx_all[o] = best_at;
          }
        }
      });
    }
  });
  return {out, indices};
}

Tensor max_pool2d_with_indices_backward_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                            IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                            bool ceil_mode, const Tensor& indices) {
  const Pool2dShape s = max_pool2d_backward_shape("max_pool2d_with_indices_backward", grad_output, self, kernel_size,
                                                  stride, padding, dilation, ceil_mode, indices);
  const Tensor go = grad_output.contiguous(), idx = indices.contiguous();
  Tensor grad_in = glassbox::zeros(self.sizes(), compute_dtype(self.dtype()), self.device());
  const int64_t plane = s.height * s.width, out_plane = s.out_height * s.out_width;
  visit_scalar_type(self.dtype(), [&]<class T>() {
    using C = cpu::opmath_t<T>;
    if constexpr (!std::is_same_v<T, bool>) {
      for_each_plane(s, [&](int64_t p) {
        C* dst = grad_in.data<C>() + p * plane;
        const T* g = go.data<T>() + p * out_plane;
        const int64_t* at = idx.data<int64_t>() + p * out_plane;
        for (int64_t o = 0; o < out_plane; ++o) {
          if (at[o] < 0 || at[o] >= plane) {
            throw IndexError(detail::str_cat("max_pool2d_with_indices_backward: index ", at[o],
                                             " is out of range for an input plane of ", s.height, "x", s.width));
          }
          dst[at[o]] += static_cast<C>(g[o]);
        }
      });
    }
  });
  return grad_in.to(self.dtype());
}

Tensor avg_pool2d_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      bool ceil_mode, bool count_include_pad) {
  const Pool2dShape s = avg_pool2d_shape("avg_pool2d", self, kernel_size, stride, padding, ceil_mode);
  const Tensor in = self.contiguous();
  Tensor out = empty_tensor(s.output, self.dtype(), self.device());
  const int64_t H = s.height, W = s.width, OH = s.out_height, OW = s.out_width;
  visit_scalar_type(self.dtype(), [&]<class T>() {
    using C = cpu::opmath_t<T>;
    if constexpr (std::is_floating_point_v<C>) {
      for_each_plane(s, [&](int64_t p) {
        const T* src = in.data<T>() + p * H * W;
        T* dst = out.data<T>() + p * OH * OW;
        for (int64_t oy = 0; oy < OH; ++oy) {
          for (int64_t ox = 0; ox < OW; ++ox) {
            const AvgWindow a = avg_window(s, oy, ox, count_include_pad);
            C sum = 0;
            for (int64_t y = a.y0; y < a.y1; ++y)
              for (int64_t x = a.x0; x < a.x1; ++x) sum += static_cast<C>(src[y * W + x]);
            dst[oy * OW + ox] = static_cast<T>(sum / static_cast<C>(a.divisor));
          }
        }
      });
    }
  });
  return out;
}

Tensor avg_pool2d_backward_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                               IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad) {
  const Pool2dShape s =
      avg_pool2d_backward_shape("avg_pool2d_backward", grad_output, self, kernel_size, stride, padding, ceil_mode);
  const Tensor go = grad_output.contiguous();
  Tensor grad_in = glassbox::zeros(self.sizes(), compute_dtype(self.dtype()), self.device());
  const int64_t H = s.height, W = s.width, OH = s.out_height, OW = s.out_width;
  visit_scalar_type(self.dtype(), [&]<class T>() {
    using C = cpu::opmath_t<T>;
    if constexpr (std::is_floating_point_v<C>) {
      for_each_plane(s, [&](int64_t p) {
        C* dst = grad_in.data<C>() + p * H * W;
        const T* g = go.data<T>() + p * OH * OW;
        for (int64_t oy = 0; oy < OH; ++oy) {
          for (int64_t ox = 0; ox < OW; ++ox) {
            const AvgWindow a = avg_window(s, oy, ox, count_include_pad);
            const C share = static_cast<C>(g[oy * OW + ox]) / static_cast<C>(a.divisor);
            for (int64_t y = a.y0; y < a.y1; ++y)
              for (int64_t x = a.x0; x < a.x1; ++x) dst[y * W + x] += share;
          }
        }
      });
    }
  });
  return grad_in.to(self.dtype());
}

}  // namespace glassbox::native
