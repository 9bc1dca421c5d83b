// Reductions on the CPU: sum, mean, prod, amax, amin, max, min. The front end
// (engine/ops/reduction_shape.h) decides shape and dtype; reduce_loop.h does the work.
#include "engine/core/error.h"
#include "engine/cpu/reduce_ops.h"
#include "engine/ops/reduction_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/amax.h"
#include "glassbox/ops/native/amin.h"
#include "glassbox/ops/native/max.h"
#include "glassbox/ops/native/mean.h"
#include "glassbox/ops/native/min.h"
#include "glassbox/ops/native/prod.h"
#include "glassbox/ops/native/sum.h"

namespace glassbox::cpu {

ReduceGeometry reduce_geometry(const Tensor& self, const DimVector& reduced) {
  ReduceGeometry g;
  const int64_t nd = self.dim();
  // The reduced dims (ignoring size-1 dims) must form one run of a contiguous tensor for a view.
  int state = 0;  // 0: before the run, 1: inside it, 2: after it
  bool one_run = true;
  int64_t kept = 1, red = 1;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t s = self.sizes()[d];
    reduced[d] ? red *= s : kept *= s;
    if (s == 1) continue;
    if (reduced[d]) {
      if (state == 2) one_run = false;
      state = 1;
      g.reduced *= s;
    } else {
      if (state == 1) state = 2;
      (state == 0 ? g.outer : g.inner) *= s;
    }
  }
  if (self.numel() == 0 || (one_run && self.is_contiguous())) {
    if (self.numel() == 0) g.outer = kept, g.reduced = red, g.inner = 1;
    g.data = self;
    return g;
  }
  DimVector perm;
  for (int64_t d = 0; d < nd; ++d)
    if (!reduced[d]) perm.push_back(d);
  for (int64_t d = 0; d < nd; ++d)
    if (reduced[d]) perm.push_back(d);
  g.data = glassbox::permute(self, perm).contiguous();
  g.outer = kept, g.reduced = red, g.inner = 1;
  return g;
}

ReduceGeometry dim_geometry(const Tensor& self, int64_t dim) {
  ReduceGeometry g;
  g.data = self.is_contiguous() ? self : self.contiguous();
  for (int64_t d = 0; d < self.dim(); ++d) (d < dim ? g.outer : d == dim ? g.reduced : g.inner) *= self.sizes()[d];
  return g;
}

}  // namespace glassbox::cpu

namespace glassbox::native {

namespace {
using cpu::converted;

enum class Kind { Sum, Mean, Prod, Max, Min };

// One reduction of self (already checked by the front end) into result, a fresh contiguous
// tensor of the result's shape and dtype. Sums and products compute in the result dtype when it
// is floating point (sum(x, dtype=float64) sums in float64); integers accumulate in int64. A floating
// input with an integer dtype is converted first, as PyTorch does (sum([0.6, 0.6], dtype=int64) is 0).
void reduce_into(Kind kind, const Tensor& self, const ReductionShape& shape, Tensor& result) {
  const bool accumulate = kind == Kind::Sum || kind == Kind::Prod || kind == Kind::Mean;
  const bool convert = is_floating_point(shape.dtype) || is_floating_point(self.dtype());
  const Tensor in = accumulate && convert ? converted(self, shape.dtype) : self;
  const cpu::ReduceGeometry g = cpu::reduce_geometry(in, shape.reduced);
  const double n = static_cast<double>(shape.reduced_numel);
  visit_scalar_type(in.dtype(), [&]<class T>() {
    using S = cpu::sum_acc_t<T>;
    // Extremes compare in the compute type (bool as uint8_t: std::vector<bool> has no data()).
    using C = std::conditional_t<std::is_same_v<T, bool>, uint8_t, cpu::compute_t<T>>;
    switch (kind) {
      case Kind::Sum:
        cpu::write_values(result, cpu::reduce_values<T>(g, cpu::SumOp<S>{}), [](S v, size_t) { return v; });
        break;
      case Kind::Mean:
        cpu::write_values(result, cpu::reduce_values<T>(g, cpu::SumOp<S>{}),
                          [n](S v, size_t) { return static_cast<S>(static_cast<double>(v) / n); });
        break;
      case Kind::Prod:
        cpu::write_values(result, cpu::reduce_values<T>(g, cpu::ProdOp<S>{}), [](S v, size_t) { return v; });
        break;
      case Kind::Max:
        cpu::write_values(result, cpu::reduce_values<T>(g, cpu::MaxOp<C>{}), [](C v, size_t) { return v; });
        break;
      case Kind::Min:
        cpu::write_values(result, cpu::reduce_values<T>(g, cpu::MinOp<C>{}), [](C v, size_t) { return v; });
        break;
    }
  });
}

Tensor reduce(const char* op, Kind kind, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
              std::optional<ScalarType> dtype) {
  const ReductionDtype rule = kind == Kind::Mean                       ? ReductionDtype::Mean
                              : kind == Kind::Sum || kind == Kind::Prod ? ReductionDtype::Accumulate
                                                                        : ReductionDtype::Same;
  const ReductionShape shape = reduction_shape(op, self, dim, keepdim, reduction_dtype(op, self, dtype, rule));
  if (kind == Kind::Max || kind == Kind::Min) check_reduction_nonempty(op, self, shape);
  Tensor result = empty_tensor(shape.out_shape, shape.dtype, self.device());
  reduce_into(kind, self, shape, result);
  return result;
}

// out= variants: the same result, copied into out after its shape and dtype are checked.
Tensor& reduce_out(const char* op, Kind kind, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype, Tensor& out) {
  const Tensor result = reduce(op, kind, self, dim, keepdim, dtype);
  check_out(op, out, result.sizes(), result.dtype(), self.device());
  glassbox::copy_(out, result, false);
  return out;
}

std::optional<IntArrayRef> all_dims() { return std::nullopt; }
}  // namespace

Tensor sum_cpu(const Tensor& self, std::optional<ScalarType> dtype) {
  return reduce("sum", Kind::Sum, self, all_dims(), false, dtype);
}
Tensor sum_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce("sum", Kind::Sum, self, dim, keepdim, dtype);
}
Tensor& sum_out_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                    Tensor& out) {
  return reduce_out("sum.out", Kind::Sum, self, dim, keepdim, dtype, out);
}
Tensor mean_cpu(const Tensor& self, std::optional<ScalarType> dtype) {
  return reduce("mean", Kind::Mean, self, all_dims(), false, dtype);
}
Tensor mean_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce("mean", Kind::Mean, self, dim, keepdim, dtype);
}
Tensor& mean_out_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                     Tensor& out) {
  return reduce_out("mean.out", Kind::Mean, self, dim, keepdim, dtype, out);
}
Tensor prod_cpu(const Tensor& self, std::optional<ScalarType> dtype) {
  return reduce("prod", Kind::Prod, self, all_dims(), false, dtype);
}
Tensor prod_dim_cpu(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  const int64_t dims[] = {dim};
  return reduce("prod", Kind::Prod, self, IntArrayRef(dims), keepdim, dtype);
}
Tensor amax_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return reduce("amax", Kind::Max, self, dim, keepdim, std::nullopt);
}
Tensor& amax_out_cpu(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  return reduce_out("amax.out", Kind::Max, self, dim, keepdim, std::nullopt, out);
}
Tensor amin_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return reduce("amin", Kind::Min, self, dim, keepdim, std::nullopt);
}
Tensor& amin_out_cpu(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  return reduce_out("amin.out", Kind::Min, self, dim, keepdim, std::nullopt, out);
}
Tensor max_cpu(const Tensor& self) { return reduce("max", Kind::Max, self, all_dims(), false, std::nullopt); }
Tensor min_cpu(const Tensor& self) { return reduce("min", Kind::Min, self, all_dims(), false, std::nullopt); }

}  // namespace glassbox::native
