// softmax and log_softmax along one dim, fused per row: the maximum, the sum of exp(x - max)
// and the normalised output in three passes over a row that stays in cache. Their gradients
// (_softmax_backward_data, _log_softmax_backward_data) work from the saved output, with the
// arithmetic CUDA shares (engine/ops/kernels/softmax.h).
#include <cmath>
#include <limits>

#include "engine/core/error.h"
#include "engine/cpu/for_each_index.h"
#include "engine/cpu/reduce_ops.h"
#include "engine/ops/kernels/softmax.h"

namespace glassbox::cpu {

namespace {
// One contiguous row. The maximum and the sum run in kLanes independent accumulators so that
// they vectorise (a single running sum would be a serial chain). buf (n values) holds the exp
// values of log_softmax and of float16/bfloat16 rows; softmax of float rows writes them to y.
template <class T, bool kLog>
inline void softmax_row(const T* x, T* y, int64_t n, opmath_t<T>* buf) {
  using A = opmath_t<T>;
  constexpr int64_t kLanes = 16;
  const int64_t body = n - n % kLanes;
  A lanes[kLanes];
  for (A& l : lanes) l = -std::numeric_limits<A>::infinity();
  for (int64_t i = 0; i < body; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k) {
      const A v = static_cast<A>(x[i + k]);
      lanes[k] = v > lanes[k] ? v : lanes[k];
    }
  A m = -std::numeric_limits<A>::infinity();
  for (A l : lanes) m = l > m ? l : m;
  for (int64_t i = body; i < n; ++i) m = static_cast<A>(x[i]) > m ? static_cast<A>(x[i]) : m;
  // No finite maximum (all -inf, or +inf present): x - m is NaN somewhere and the whole row NaN, as in PyTorch.
  // exp(x - m) as a plain map (it vectorises), then summed in lanes.
  A* e = std::is_same_v<T, A> && !kLog ? reinterpret_cast<A*>(y) : buf;
  for (int64_t i = 0; i < n; ++i) e[i] = exp_acc<A>(static_cast<A>(x[i]) - m);
  for (A& l : lanes) l = 0;
  for (int64_t i = 0; i < body; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k) lanes[k] += e[i + k];
  A s = 0;
  for (A l : lanes) s += l;
  for (int64_t i = body; i < n; ++i) s += e[i];
  if constexpr (kLog) {
    // (x - m) - log(s), not x - (m + log(s)): next to a large m, log(s) would round away.
    const A log_s = std::log(s);
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>((static_cast<A>(x[i]) - m) - log_s);
  } else {
    const A inv = A(1) / s;
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(e[i] * inv);
  }
}

#ifdef GLASSBOX_X86_DISPATCH
template <class T, bool kLog>
__attribute__((target("avx2"))) void softmax_row_avx2(const T* x, T* y, int64_t n, opmath_t<T>* buf) {
  softmax_row<T, kLog>(x, y, n, buf);
}
#endif

// x[o, :, i] for a tile of columns i: the same three passes, vectorised across columns.
template <class T, bool kLog>
void softmax_columns(const T* x, T* y, int64_t n, int64_t I, int64_t w) {
  using A = opmath_t<T>;
  constexpr int64_t kTile = 256;
  A m[kTile], s[kTile];
  for (int64_t j = 0; j < w; ++j) m[j] = -std::numeric_limits<A>::infinity(), s[j] = 0;
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < w; ++j) {
      const A v = static_cast<A>(x[r * I + j]);
      m[j] = v > m[j] ? v : m[j];
    }
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < w; ++j) s[j] += exp_acc<A>(static_cast<A>(x[r * I + j]) - m[j]);
  for (int64_t j = 0; j < w; ++j) s[j] = kLog ? std::log(s[j]) : A(1) / s[j];
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < w; ++j) {
      const A v = static_cast<A>(x[r * I + j]);
      y[r * I + j] = static_cast<T>(kLog ? (v - m[j]) - s[j] : exp_acc<A>(v - m[j]) * s[j]);
    }
}

template <bool kLog>
void softmax_impl(const Tensor& in, int64_t d, Tensor& result) {
  const ReduceGeometry g = dim_geometry(in, d);
  const int64_t n = g.reduced, I = g.inner;
  visit_scalar_type(in.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      using A = opmath_t<T>;
      const T* x = g.data.template data<T>();
      T* y = result.data<T>();
      constexpr int64_t kTile = 256;
      const int64_t tiles = I == 1 ? 1 : (I + kTile - 1) / kTile;
      const int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(n * std::min(I, kTile), 1));
      parallel_for(0, g.outer * tiles, grain, [&](int64_t lo, int64_t hi) {
        std::vector<A> buf(I != 1 || (std::is_same_v<T, A> && !kLog) ? 0 : static_cast<size_t>(n));
        for (int64_t t = lo; t < hi; ++t) {
          if (I == 1) {
#ifdef GLASSBOX_X86_DISPATCH
            if (cpu_has_avx2()) {
              softmax_row_avx2<T, kLog>(x + t * n, y + t * n, n, buf.data());
              continue;
            }
#endif
            softmax_row<T, kLog>(x + t * n, y + t * n, n, buf.data());
          } else {
            const int64_t o = t / tiles, c0 = (t % tiles) * kTile;
            softmax_columns<T, kLog>(x + o * n * I + c0, y + o * n * I + c0, n, I, std::min(kTile, I - c0));
          }
        }
      });
    }
  });
}

// The gradient along the dim (engine/ops/kernels/softmax.h), one slice at a time.
template <bool kLog>
void softmax_backward_impl(const Tensor& grad, const Tensor& output, int64_t d, Tensor& result) {
  const ReduceGeometry gg = dim_geometry(grad, d);
  const ReduceGeometry gy = dim_geometry(output, d);
  const int64_t n = gg.reduced, I = gg.inner;
  visit_scalar_type(grad.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      for_each_index(gg.outer * I, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(n, 1)),
                     kernels::SoftmaxBackwardColumn<T, opmath_t<T>, kLog>{
                         gg.data.template data<T>(), gy.data.template data<T>(), result.data<T>(), n, I});
    }
  });
}
}  // namespace

void softmax_into(const Tensor& self, int64_t dim, bool log, Tensor& result) {
  log ? softmax_impl<true>(self, dim, result) : softmax_impl<false>(self, dim, result);
}
void softmax_backward_into(const Tensor& grad, const Tensor& output, int64_t dim, bool log, Tensor& result) {
  log ? softmax_backward_impl<true>(grad, output, dim, result)
      : softmax_backward_impl<false>(grad, output, dim, result);
}

}  // namespace glassbox::cpu
