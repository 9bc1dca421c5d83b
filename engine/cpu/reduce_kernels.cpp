// Reductions on the CPU: sum, mean, prod, amax, amin, max, min, and the table of the family's CPU
// computes. The front end (engine/ops/reductions.cpp) checks and allocates; reduce_loop.h does the work.
#include "engine/core/error.h"
#include "engine/cpu/reduce_ops.h"

namespace glassbox::cpu {

namespace {
using R = ReduceKind;

// One reduction of self (in the dtype to compute in) into result, a fresh contiguous tensor of the
// result's shape and dtype.
void reduce_into(const ReducePlan& plan, const Tensor& self, Tensor& result) {
  if (plan.kind == R::Var || plan.kind == R::Std) return variance_into(plan, self, result);
  if (plan.kind == R::LogSumExp) return logsumexp_into(plan, self, result);
  const ReduceGeometry g = reduce_geometry(self, plan.shape.reduced);
  const double n = static_cast<double>(plan.shape.reduced_numel);
  visit_scalar_type(self.dtype(), [&]<class T>() {
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
