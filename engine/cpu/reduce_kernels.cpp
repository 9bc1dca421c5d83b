// Reductions on the CPU: sum, mean, prod, amax, amin, max, min, and the table of the family's CPU
// computes. The front end (engine/ops/reductions.cpp) checks and allocates; reduce_loop.h does the work.
#include "engine/core/error.h"
#include "engine/cpu/reduce_ops.h"
#include "glassbox/ops/Functions.h"

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

namespace glassbox::cpu {

namespace {
using R = ReduceKind;

// One reduction of self into result, a fresh contiguous tensor of the result's shape and dtype.
// Sums and products compute in the result dtype when it is floating point (sum(x, dtype=float64)
// sums in float64); integers accumulate in int64. A floating input with an integer dtype is
// converted first, as PyTorch does (sum([0.6, 0.6], dtype=int64) is 0).
void reduce_into(const ReducePlan& plan, const Tensor& self, Tensor& result) {
  const ReductionShape& shape = plan.shape;
  if (plan.kind == R::Var || plan.kind == R::Std) return variance_into(plan, self, result);
  if (plan.kind == R::LogSumExp) return logsumexp_into(plan, self, result);
  const bool accumulate = plan.kind == R::Sum || plan.kind == R::Prod || plan.kind == R::Mean;
  const bool convert = is_floating_point(shape.dtype) || is_floating_point(self.dtype());
  const Tensor in = accumulate && convert ? converted(self, shape.dtype) : self;
  const ReduceGeometry g = reduce_geometry(in, shape.reduced);
  const double n = static_cast<double>(shape.reduced_numel);
  visit_scalar_type(in.dtype(), [&]<class T>() {
    using S = sum_acc_t<T>;
    // Extremes compare in the compute type (bool as uint8_t: std::vector<bool> has no data()).
    using C = std::conditional_t<std::is_same_v<T, bool>, uint8_t, opmath_t<T>>;
    switch (plan.kind) {
      case R::Sum: write_values(result, reduce_values<T>(g, SumOp<S>{}), [](S v, size_t) { return v; }); break;
      case R::Mean:
        write_values(result, reduce_values<T>(g, SumOp<S>{}),
                     [n](S v, size_t) { return static_cast<S>(static_cast<double>(v) / n); });
        break;
      case R::Prod: write_values(result, reduce_values<T>(g, ProdOp<S>{}), [](S v, size_t) { return v; }); break;
      case R::Max: write_values(result, reduce_values<T>(g, MaxOp<C>{}), [](C v, size_t) { return v; }); break;
      case R::Min: write_values(result, reduce_values<T>(g, MinOp<C>{}), [](C v, size_t) { return v; }); break;
      default: break;
    }
  });
}

const ReductionBackend kReductions{reduce_into,  arg_extreme_into,      cumsum_into,
                                   softmax_into, softmax_backward_into, sort_into};
const ReductionBackends::Registration kRegistered(DeviceType::CPU, kReductions);
}  // namespace

}  // namespace glassbox::cpu
