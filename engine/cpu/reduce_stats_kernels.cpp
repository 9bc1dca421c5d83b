// var, std and logsumexp on the CPU: two passes over the data, the second centred on the first
// (the mean for var/std, the maximum for logsumexp), which keeps them accurate and overflow-free.
#include <cmath>

#include "engine/core/error.h"
#include "engine/cpu/reduce_ops.h"
#include "engine/ops/reduction_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/logsumexp.h"
#include "glassbox/ops/native/std.h"
#include "glassbox/ops/native/var.h"

namespace glassbox::native {

namespace {
// correction: 1 for the unbiased estimate (divide by N - 1), 0 for the population variance.
Tensor variance(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, double correction, bool keepdim,
                bool take_sqrt) {
  const ReductionShape shape =
      reduction_shape(op, self, dim, keepdim, reduction_dtype(op, self, std::nullopt, ReductionDtype::Floating));
  Tensor result = empty_tensor(shape.out_shape, shape.dtype, self.device());
  const cpu::ReduceGeometry g = cpu::reduce_geometry(self, shape.reduced);
  const double n = static_cast<double>(shape.reduced_numel);
  const double divisor = std::max(0.0, n - correction);
  visit_scalar_type(self.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<cpu::compute_t<T>>) {
      // float32 (and half) values accumulate in double: squares of deviations past 1.8e19 overflow a
      // float, although their variance's square root (std) is in range.
      using A = std::conditional_t<std::is_same_v<cpu::compute_t<T>, float>, double, cpu::compute_t<T>>;
      std::vector<A> mean = cpu::reduce_values<T>(g, cpu::SumOp<A>{});
      for (A& m : mean) m = static_cast<A>(m / n);
      const std::vector<A> squares = cpu::reduce_values<T, cpu::SumSquaresOp<A>, true>(g, {}, mean.data());
      cpu::write_values(result, squares, [&](A ss, size_t) {
        const A v = static_cast<A>(ss / divisor);
        return take_sqrt ? std::sqrt(v) : v;
      });
    }
  });
  return result;
}

double correction_of(const std::optional<Scalar>& correction) {
  return correction ? (correction->is_floating_point() ? correction->to_double() : static_cast<double>(correction->to_int()))
                    : 1.0;
}

Tensor logsumexp_impl(const Tensor& self, IntArrayRef dim, bool keepdim) {
  const ReductionShape shape = reduction_shape("logsumexp", self, dim, keepdim,
                                               reduction_dtype("logsumexp", self, std::nullopt, ReductionDtype::ToFloat));
  const Tensor in = cpu::converted(self, shape.dtype);
  Tensor result = empty_tensor(shape.out_shape, shape.dtype, self.device());
  const cpu::ReduceGeometry g = cpu::reduce_geometry(in, shape.reduced);
  visit_scalar_type(in.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<cpu::compute_t<T>>) {
      using A = cpu::compute_t<T>;
      std::vector<A> center = cpu::reduce_values<T>(g, cpu::MaxOp<A>{});
      for (A& c : center) c = std::isfinite(c) ? c : A(0);  // all -inf, some +inf or NaN: exp() decides
      const std::vector<A> sums = cpu::reduce_values<T, cpu::SumExpOp<A>, true>(g, {}, center.data());
      cpu::write_values(result, sums, [&](A s, size_t k) { return static_cast<A>(std::log(s) + center[k]); });
    }
  });
  return result;
}
}  // namespace

Tensor var_cpu(const Tensor& self, bool unbiased) { return variance("var", self, std::nullopt, unbiased ? 1 : 0, false, false); }
Tensor var_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return variance("var", self, dim, unbiased ? 1 : 0, keepdim, false);
}
Tensor var_correction_cpu(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                          bool keepdim) {
  return variance("var", self, dim, correction_of(correction), keepdim, false);
}
Tensor std_cpu(const Tensor& self, bool unbiased) { return variance("std", self, std::nullopt, unbiased ? 1 : 0, false, true); }
Tensor std_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return variance("std", self, dim, unbiased ? 1 : 0, keepdim, true);
}
Tensor std_correction_cpu(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                          bool keepdim) {
  return variance("std", self, dim, correction_of(correction), keepdim, true);
}

Tensor logsumexp_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) { return logsumexp_impl(self, dim, keepdim); }
Tensor& logsumexp_out_cpu(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  const Tensor result = logsumexp_impl(self, dim, keepdim);
  check_out("logsumexp.out", out, result.sizes(), result.dtype(), self.device());
  glassbox::copy_(out, result, false);
  return out;
}

}  // namespace glassbox::native
