// Reductions that also say where: max.dim, min.dim (values and indices), argmax, argmin.
// Which value wins is engine/ops/kernels/reduce.h's replaces_extreme, as on CUDA.
#include "engine/core/error.h"
#include "engine/cpu/reduce_ops.h"

namespace glassbox::cpu {

namespace {
// Over x viewed as [outer, reduced, inner]: values[o, i] and indices[o, i] of the extreme of
// x[o, :, i]. The inner loop runs across i, so column reductions vectorise too.
template <class T>
void arg_extreme(const ReduceGeometry& g, bool largest, T* values, int64_t* indices) {
  using C = opmath_t<T>;
  const T* x = g.data.template data<T>();
  const int64_t R = g.reduced, I = g.inner;
  constexpr int64_t kTile = 256;
  const int64_t tiles = (I + kTile - 1) / kTile;
  parallel_for(0, g.outer * tiles, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(R * std::min(I, kTile), 1)),
               [&](int64_t lo, int64_t hi) {
    C best[kTile];
    int64_t where[kTile];
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t o = t / tiles, c0 = (t % tiles) * kTile, w = std::min(kTile, I - c0);
      const T* base = x + o * R * I + c0;
      for (int64_t j = 0; j < w; ++j) best[j] = static_cast<C>(base[j]), where[j] = 0;
      for (int64_t r = 1; r < R; ++r) {
        const T* row = base + r * I;
        for (int64_t j = 0; j < w; ++j) {
          const C v = static_cast<C>(row[j]);
          if (replaces_extreme(v, best[j], largest)) best[j] = v, where[j] = r;
        }
      }
      for (int64_t j = 0; j < w; ++j) {
        if (values) values[o * I + c0 + j] = static_cast<T>(best[j]);
        indices[o * I + c0 + j] = where[j];
      }
    }
  });
}

}  // namespace

void arg_extreme_into(const Tensor& self, std::optional<int64_t> dim, const DimVector&, bool largest, Tensor& values,
                      Tensor& indices) {
  ReduceGeometry g;
  if (dim) {
    g = dim_geometry(self, *dim);
  } else {  // the index into the flattened tensor
    g.data = self.is_contiguous() ? self : self.contiguous();
    g.reduced = self.numel();
  }
  visit_scalar_type(self.dtype(), [&]<class T>() {
    arg_extreme<T>(g, largest, values.defined() ? values.data<T>() : nullptr, indices.data<int64_t>());
  });
}

}  // namespace glassbox::cpu
