// Reductions that also say where: max.dim, min.dim (values and indices), argmax, argmin.
// The first extreme wins on ties; NaN counts as the extreme (its first index is returned).
#include "engine/core/error.h"
#include "engine/cpu/reduce_ops.h"
#include "engine/ops/reduction_shape.h"
#include "glassbox/ops/native/argmax.h"
#include "glassbox/ops/native/argmin.h"
#include "glassbox/ops/native/max.h"
#include "glassbox/ops/native/min.h"

namespace glassbox::native {

namespace {
// Over x viewed as [outer, reduced, inner]: values[o, i] and indices[o, i] of the extreme of
// x[o, :, i]. The inner loop runs across i, so column reductions vectorise too.
template <class T>
void arg_extreme(const cpu::ReduceGeometry& g, bool largest, T* values, int64_t* indices) {
  using C = cpu::compute_t<T>;
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
                       const bool nan_first = v != v && best[j] == best[j];
                       const bool better = largest ? v > best[j] : v < best[j];
                       if (better || nan_first) best[j] = v, where[j] = r;
                     }
                   }
                   for (int64_t j = 0; j < w; ++j) {
                     if (values) values[o * I + c0 + j] = static_cast<T>(best[j]);
                     indices[o * I + c0 + j] = where[j];
                   }
                 }
               });
}

std::tuple<Tensor, Tensor> extreme_dim(const char* op, bool largest, const Tensor& self, int64_t dim, bool keepdim,
                                       bool want_values) {
  const int64_t dims[] = {dim};
  const ReductionShape shape = reduction_shape(op, self, IntArrayRef(dims), keepdim, self.dtype());
  check_reduction_nonempty(op, self, shape);
  Tensor values = want_values ? empty_tensor(shape.out_shape, self.dtype(), self.device()) : Tensor();
  Tensor indices = empty_tensor(shape.out_shape, ScalarType::Int64, self.device());
  if (indices.numel() == 0) return {values, indices};
  const cpu::ReduceGeometry g = cpu::dim_geometry(self, self.dim() == 0 ? 0 : wrap_dim(op, dim, self));
  visit_scalar_type(self.dtype(), [&]<class T>() {
    arg_extreme<T>(g, largest, want_values ? values.data<T>() : nullptr, indices.data<int64_t>());
  });
  return {values, indices};
}

Tensor arg_extreme_all(const char* op, bool largest, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (dim) return std::get<1>(extreme_dim(op, largest, self, *dim, keepdim, false));
  // No dim: the index into the flattened tensor.
  const ReductionShape shape = reduction_shape(op, self, std::nullopt, keepdim, ScalarType::Int64);
  check_reduction_nonempty(op, self, shape);
  Tensor indices = empty_tensor(shape.out_shape, ScalarType::Int64, self.device());
  cpu::ReduceGeometry g;
  g.data = self.is_contiguous() ? self : self.contiguous();
  g.reduced = self.numel();
  visit_scalar_type(self.dtype(), [&]<class T>() { arg_extreme<T>(g, largest, nullptr, indices.data<int64_t>()); });
  return indices;
}
}  // namespace

std::tuple<Tensor, Tensor> max_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme_dim("max", true, self, dim, keepdim, true);
}
std::tuple<Tensor, Tensor> min_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme_dim("min", false, self, dim, keepdim, true);
}
Tensor argmax_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme_all("argmax", true, self, dim, keepdim);
}
Tensor argmin_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme_all("argmin", false, self, dim, keepdim);
}

}  // namespace glassbox::native
