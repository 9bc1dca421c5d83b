// 2-D max and average pooling on the CPU: the element functors of engine/ops/kernels/pool.h in
// parallel loops over outputs (or, for the average's gradient, inputs). Max pooling's gradient
// scatters: each thread takes whole planes, which never share an input element.
#include <algorithm>
#include <type_traits>

#include "engine/cpu/for_each_index.h"
#include "engine/cpu/loops.h"
#include "engine/ops/kernels/pool.h"

namespace glassbox::cpu {

namespace {
using namespace kernels;

// Enough elements per thread to cover the hand-off, each reading a window.
int64_t grain(const PoolPlan& g) { return std::max<int64_t>(1, kDefaultGrain / (g.kh * g.kw)); }

void max_pool(const PoolPlan& g, const Tensor& in, Tensor& out, Tensor& indices) {
  visit_scalar_type(in.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      for_each_index(out.numel(), grain(g),
                     MaxPoolOutput<T, opmath_t<T>>{g, in.data<T>(), out.data<T>(), indices.data<int64_t>()});
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
      for_each_index(g.planes, std::max<int64_t>(1, kDefaultGrain / out_plane), [&](int64_t p) {
        for (int64_t o = p * out_plane; o < (p + 1) * out_plane; ++o) f(o);
      });
    }
  });
  return std::nullopt;
}

void avg_pool(const PoolPlan& g, const Tensor& in, Tensor& out) {
  visit_scalar_type(in.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>)
      for_each_index(out.numel(), grain(g), AvgPoolOutput<T, opmath_t<T>>{g, in.data<T>(), out.data<T>()});
  });
}

void avg_pool_backward(const PoolPlan& g, const Tensor& grad_out, Tensor& grad_in) {
  visit_scalar_type(grad_out.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      for_each_index(grad_in.numel(), grain(g),
                     AvgPoolInputGrad<T, opmath_t<T>>{g, grad_out.data<T>(), grad_in.data<T>()});
    }
  });
}

const PoolBackend kPool{max_pool, max_pool_backward, avg_pool, avg_pool_backward};
const PoolBackends::Registration kRegistered(DeviceType::CPU, kPool);
}  // namespace

}  // namespace glassbox::cpu
