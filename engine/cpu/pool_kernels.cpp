// 2-D max and average pooling on the CPU: the element functors of engine/ops/kernels/pool.h in
// parallel loops over output rows. The gradients scatter: each thread takes whole planes, which
// never share an input element.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "engine/cpu/for_each_index.h"
#include "engine/cpu/loops.h"
#include "engine/ops/kernels/pool.h"

namespace glassbox::cpu {

namespace {
using namespace kernels;

// f.at(p, oy, ox, o) for every output, a row (p, oy) at a time; enough rows per thread to cover
// the hand-off, each output reading a window.
template <class F>
void for_each_output(const PoolPlan& g, const F& f) {
  for_each_index(g.planes * g.oh, std::max<int64_t>(1, kDefaultGrain / (g.ow * g.kh * g.kw)), [&](int64_t row) {
    const int64_t p = row / g.oh, oy = row % g.oh;
    for (int64_t ox = 0; ox < g.ow; ++ox) f.at(p, oy, ox, row * g.ow + ox);
  });
}

// f(p) for every plane, enough planes per thread to cover the hand-off.
template <class F>
void for_each_plane(const PoolPlan& g, const F& f) {
  for_each_index(g.planes, std::max<int64_t>(1, kDefaultGrain / (g.oh * g.ow * g.kh * g.kw)), f);
}

void max_pool(const PoolPlan& g, const Tensor& in, Tensor& out, Tensor& indices) {
  visit_scalar_type(in.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      for_each_output(g, MaxPoolOutput<T, opmath_t<T>>{g, in.data<T>(), out.data<T>(), indices.data<int64_t>()});
    }
  });
}

struct PlainAdd {
  template <class A>
  static void add(A* dst, A v) {
    *dst += v;
  }
  static void bad(unsigned long long*, int64_t) {}  // indices are checked before the scatter
};

std::optional<int64_t> max_pool_backward(const PoolPlan& g, const Tensor& grad_out, const Tensor& indices,
                                         Tensor& grad_in) {
  const int64_t* at = indices.data<int64_t>();
  for (int64_t o = 0; o < indices.numel(); ++o)
    if (at[o] < 0 || at[o] >= g.h * g.w) return o;
  const int64_t out_plane = g.oh * g.ow;
  visit_scalar_type(grad_out.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      const MaxPoolInputGrad<T, PlainAdd> f{g, grad_out.data<T>(), at, grad_in.data<max_pool_grad_t<T>>(), nullptr};
      for_each_plane(g, [&](int64_t p) {
        for (int64_t o = p * out_plane; o < (p + 1) * out_plane; ++o) f(o);
      });
    }
  });
  return std::nullopt;
}

void avg_pool(const PoolPlan& g, const Tensor& in, Tensor& out) {
  visit_scalar_type(in.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>)
      for_each_output(g, AvgPoolOutput<T, opmath_t<T>>{g, in.data<T>(), out.data<T>()});
  });
}

// Each output's share, grad_out / divisor, added over its clipped window, in T's compute type.
void avg_pool_backward(const PoolPlan& g, const Tensor& grad_out, Tensor& grad_in) {
  visit_scalar_type(grad_out.dtype(), [&]<class T>() {
    using C = opmath_t<T>;
    if constexpr (std::is_floating_point_v<C>) {
      for_each_plane(g, [&](int64_t p) {
        std::vector<C> acc(static_cast<size_t>(g.h * g.w), C(0));
        const T* src = grad_out.data<T>() + p * g.oh * g.ow;
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          for (int64_t ox = 0; ox < g.ow; ++ox) {
            const AvgWindow a = avg_window(g, oy, ox);
            const C share = static_cast<C>(src[oy * g.ow + ox]) / static_cast<C>(a.divisor);
            for (int64_t y = a.y0; y < a.y1; ++y)
              for (int64_t x = a.x0; x < a.x1; ++x) acc[y * g.w + x] += share;
          }
        }
        T* dst = grad_in.data<T>() + p * g.h * g.w;
        for (int64_t i = 0; i < g.h * g.w; ++i) dst[i] = static_cast<T>(acc[i]);
      });
    }
  });
}

const PoolBackend kPool{max_pool, max_pool_backward, avg_pool, avg_pool_backward};
const PoolBackends::Registration kRegistered(DeviceType::CPU, kPool);
}  // namespace

}  // namespace glassbox::cpu
