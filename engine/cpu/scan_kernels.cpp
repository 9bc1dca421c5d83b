// cumsum on the CPU: a running sum along one dim, rows split across threads. Integers and bool
// sum in int64 (the result's dtype); float16/bfloat16 accumulate in float32.
#include "engine/core/error.h"
#include "engine/cpu/reduce_ops.h"

namespace glassbox::cpu {

namespace {
template <class T, class R>
void cumsum_loop(const ReduceGeometry& g, R* out) {
  using A = sum_acc_t<T>;
  const T* x = g.data.template data<T>();
  const int64_t n = g.reduced, I = g.inner;
  constexpr int64_t kTile = 256;
  const int64_t tiles = (I + kTile - 1) / kTile;
  parallel_for(0, g.outer * tiles, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(n * std::min(I, kTile), 1)),
               [&](int64_t lo, int64_t hi) {
    A acc[kTile];
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t o = t / tiles, c0 = (t % tiles) * kTile, w = std::min(kTile, I - c0);
      for (int64_t j = 0; j < w; ++j) acc[j] = A(0);
      for (int64_t r = 0; r < n; ++r) {
        const int64_t at = (o * n + r) * I + c0;
        for (int64_t j = 0; j < w; ++j) {
          acc[j] += load_as<T, A>(x + at + j);
          out[at + j] = convert_value<R>(acc[j]);
        }
      }
    }
  });
}

}  // namespace

// self is floating point (the result's dtype) or int64 (the front end converted it).
void cumsum_into(const Tensor& self, int64_t dim, Tensor& result) {
  const ReduceGeometry g = dim_geometry(self, dim);
  visit_scalar_type(self.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>> || std::is_same_v<T, int64_t>)
      cumsum_loop<T, T>(g, result.data<T>());
  });
}

}  // namespace glassbox::cpu
