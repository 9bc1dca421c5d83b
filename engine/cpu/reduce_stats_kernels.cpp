// var, std and logsumexp on the CPU: two passes over the data, the second centred on the first
// (the mean for var/std, the maximum for logsumexp), which keeps them accurate and overflow-free.
#include <cmath>

#include "engine/core/error.h"
#include "engine/cpu/reduce_ops.h"

namespace glassbox::cpu {

void variance_into(const ReducePlan& plan, const Tensor& self, Tensor& result) {
  const ReduceGeometry g = reduce_geometry(self, plan.shape.reduced);
  const double n = static_cast<double>(plan.shape.reduced_numel);
  const bool take_sqrt = plan.kind == ReduceKind::Std;
  visit_scalar_type(self.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      using A = variance_acc_of<opmath_t<T>>;
      std::vector<A> mean = reduce_values<T>(g, SumOp<A>{});
      for (A& m : mean) m = static_cast<A>(m / n);
      const std::vector<A> squares = reduce_values<T, SumSquaresOp<A>, true>(g, {}, mean.data());
      write_values(result, squares, [&](A ss, size_t) { return variance_from(ss, plan.divisor, take_sqrt); });
    }
  });
}

void logsumexp_into(const ReducePlan& plan, const Tensor& self, Tensor& result) {
  const ReduceGeometry g = reduce_geometry(self, plan.shape.reduced);
  visit_scalar_type(self.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      using A = opmath_t<T>;
      std::vector<A> center = reduce_values<T>(g, MaxOp<A>{});
      for (A& c : center) c = logsumexp_center(c);
      const std::vector<A> sums = reduce_values<T, SumExpOp<A>, true>(g, {}, center.data());
      write_values(result, sums, [&](A s, size_t k) { return static_cast<A>(std::log(s) + center[k]); });
    }
  });
}

}  // namespace glassbox::cpu
