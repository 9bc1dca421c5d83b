// The reduction family's front end: each operator's kernel on CPU, CUDA and Meta (see reductions.h).
// Errors are raised here only, so they read the same on every device.
#include "engine/ops/reductions.h"

#include <algorithm>

#include "engine/core/empty.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/_log_softmax_backward_data.h"
#include "glassbox/ops/native/_softmax_backward_data.h"
#include "glassbox/ops/native/amax.h"
#include "glassbox/ops/native/amin.h"
#include "glassbox/ops/native/argmax.h"
#include "glassbox/ops/native/argmin.h"
#include "glassbox/ops/native/cumsum.h"
#include "glassbox/ops/native/log_softmax.h"
#include "glassbox/ops/native/logsumexp.h"
#include "glassbox/ops/native/max.h"
#include "glassbox/ops/native/mean.h"
#include "glassbox/ops/native/min.h"
#include "glassbox/ops/native/prod.h"
#include "glassbox/ops/native/softmax.h"
#include "glassbox/ops/native/sort.h"
#include "glassbox/ops/native/std.h"
#include "glassbox/ops/native/sum.h"
#include "glassbox/ops/native/topk.h"
#include "glassbox/ops/native/var.h"

namespace glassbox::native {

namespace {
using R = ReduceKind;

ReductionDtype dtype_rule(ReduceKind kind) {
  switch (kind) {
    case R::Sum:
    case R::Prod: return ReductionDtype::Accumulate;
    case R::Mean: return ReductionDtype::Mean;
    case R::Max:
    case R::Min: return ReductionDtype::Same;
    case R::Var:
    case R::Std: return ReductionDtype::Floating;
    case R::LogSumExp: return ReductionDtype::ToFloat;
  }
  return ReductionDtype::Same;
}

ReducePlan plan_of(const char* op, ReduceKind kind, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype, double correction = 0) {
  ReducePlan plan{kind, reduction_shape(op, self, dim, keepdim, reduction_dtype(op, self, dtype, dtype_rule(kind)))};
  if (kind == R::Max || kind == R::Min) check_reduction_nonempty(op, self, plan.shape);
  plan.divisor = std::max(0.0, static_cast<double>(plan.shape.reduced_numel) - correction);
  return plan;
}

// The input in the dtype the backends compute in. Sums, means and products of a floating-point
// result compute in its dtype (sum(x, dtype=float64) adds in float64), and a floating input with an
// integer dtype is converted first, as PyTorch does (sum([0.6, 0.6], dtype=int64) is 0); logsumexp
// computes in its result dtype. Integers otherwise accumulate in int64 and extremes in their own dtype.
Tensor compute_input(const ReducePlan& plan, const Tensor& self) {
  const ScalarType t = plan.shape.dtype;
  const bool accumulate = plan.kind == R::Sum || plan.kind == R::Mean || plan.kind == R::Prod;
  const bool convert =
      plan.kind == R::LogSumExp || (accumulate && (is_floating_point(t) || is_floating_point(self.dtype())));
  return convert && self.dtype() != t ? self.to(t) : self;
}

Tensor run(const ReducePlan& plan, const Tensor& self) {
  Tensor result = empty_tensor(plan.shape.out_shape, plan.shape.dtype, self.device());
  const ReductionBackend* backend = ReductionBackends::of(self.device());
  if (backend && result.numel() > 0) backend->reduce(plan, compute_input(plan, self), result);
  return result;
}

Tensor reduce(const char* op, ReduceKind kind, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
              std::optional<ScalarType> dtype, double correction = 0) {
  return run(plan_of(op, kind, self, dim, keepdim, dtype, correction), self);
}

// out= variants: out is checked (and resized) before anything is computed, then receives the result.
Tensor& into(const Tensor& result_on_device, Tensor& out) {
  if (ReductionBackends::of(out.device())) glassbox::copy_(out, result_on_device, false);
  return out;
}
Tensor& reduce_out(const char* op, ReduceKind kind, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype, Tensor& out) {
  const ReducePlan plan = plan_of(op, kind, self, dim, keepdim, dtype);
  check_out(op, out, plan.shape.out_shape, plan.shape.dtype, self.device());
  return into(run(plan, self), out);
}

double correction_of(const std::optional<Scalar>& correction) {
  if (!correction) return 1.0;
  return correction->is_floating_point() ? correction->to_double() : static_cast<double>(correction->to_int());
}

// Values (unless only the indices are wanted) and indices of the extreme along dim, or over the
// flattened tensor when dim is empty.
std::tuple<Tensor, Tensor> extreme(const char* op, bool largest, const Tensor& self, std::optional<int64_t> dim,
                                   bool keepdim, bool want_values) {
  std::optional<IntArrayRef> dims;
  const int64_t d[] = {dim.value_or(0)};
  if (dim) dims = IntArrayRef(d);
  const ReductionShape shape = reduction_shape(op, self, dims, keepdim, dim ? self.dtype() : ScalarType::Int64);
  check_reduction_nonempty(op, self, shape);
  Tensor values = want_values ? empty_tensor(shape.out_shape, self.dtype(), self.device()) : Tensor();
  Tensor indices = empty_tensor(shape.out_shape, ScalarType::Int64, self.device());
  const ReductionBackend* backend = ReductionBackends::of(self.device());
  if (backend && indices.numel() > 0) {
    const std::optional<int64_t> wrapped = dim ? std::optional(wrap_dim(op, *dim, self)) : std::nullopt;
    backend->arg_extreme(self, wrapped, shape.reduced, largest, values, indices);
  }
  return {values, indices};
}

// Integers (and bool) run in int64 and convert at the end, floating point in the result dtype.
Tensor cumsum_of(const char* op, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const int64_t d = wrap_dim(op, dim, self);
  const ScalarType out_dtype = cumsum_dtype(self, dtype);
  Tensor result = empty_tensor(self.sizes(), out_dtype, self.device());
  const ReductionBackend* backend = ReductionBackends::of(self.device());
  if (!backend || result.numel() == 0) return result;
  const ScalarType run_dtype = is_floating_point(out_dtype) ? out_dtype : ScalarType::Int64;
  const Tensor in = self.dtype() == run_dtype ? self : self.to(run_dtype);
  Tensor sums = run_dtype == out_dtype ? result : empty_tensor(self.sizes(), run_dtype, self.device());
  backend->cumsum(in, self.dim() == 0 ? 0 : d, sums);
  if (!sums.is_same(result)) glassbox::copy_(result, sums, false);
  return result;
}

Tensor softmax_of(const char* op, bool log, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const int64_t d = wrap_dim(op, dim, self);
  const ScalarType out_dtype = softmax_dtype(op, self, dtype);
  Tensor result = empty_tensor(self.sizes(), out_dtype, self.device());
  const ReductionBackend* backend = ReductionBackends::of(self.device());
  if (backend && result.numel() > 0)
    backend->softmax(self.dtype() == out_dtype ? self : self.to(out_dtype), d, log, result);
  return result;
}

// The gradient is computed in grad's dtype and given in the forward input's.
Tensor softmax_backward_of(const char* op, bool log, const Tensor& grad, const Tensor& output, int64_t dim,
                           ScalarType input_dtype) {
  softmax_backward_shape(op, grad, output, dim, input_dtype);
  const int64_t d = wrap_dim(op, dim, grad);
  const ReductionBackend* backend = ReductionBackends::of(grad.device());
  if (!backend) return empty_tensor(grad.sizes(), input_dtype, grad.device());
  Tensor result = empty_tensor(grad.sizes(), grad.dtype(), grad.device());
  const Tensor y = output.dtype() == grad.dtype() ? output : output.to(grad.dtype());
  if (result.numel() > 0) backend->softmax_backward(grad, y, d, log, result);
  return result.dtype() == input_dtype ? result : result.to(input_dtype);
}

std::tuple<Tensor, Tensor> sorted(const Tensor& self, int64_t k, int64_t d, bool descending, const DimVector& shape) {
  Tensor values = empty_tensor(shape, self.dtype(), self.device());
  Tensor indices = empty_tensor(shape, ScalarType::Int64, self.device());
  const ReductionBackend* backend = ReductionBackends::of(self.device());
  if (backend && values.numel() > 0) backend->sort(self, k, d, descending, values, indices);
  return {values, indices};
}

constexpr std::nullopt_t kAllDims = std::nullopt;
}  // namespace

Tensor sum_generic(const Tensor& self, std::optional<ScalarType> dtype) {
  return reduce("sum", R::Sum, self, kAllDims, false, dtype);
}
Tensor sum_dim_generic(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                       std::optional<ScalarType> dtype) {
  return reduce("sum", R::Sum, self, dim, keepdim, dtype);
}
Tensor& sum_out_generic(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                        std::optional<ScalarType> dtype, Tensor& out) {
  return reduce_out("sum.out", R::Sum, self, dim, keepdim, dtype, out);
}
Tensor mean_generic(const Tensor& self, std::optional<ScalarType> dtype) {
  return reduce("mean", R::Mean, self, kAllDims, false, dtype);
}
Tensor mean_dim_generic(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                        std::optional<ScalarType> dtype) {
  return reduce("mean", R::Mean, self, dim, keepdim, dtype);
}
Tensor& mean_out_generic(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                         std::optional<ScalarType> dtype, Tensor& out) {
  return reduce_out("mean.out", R::Mean, self, dim, keepdim, dtype, out);
}
Tensor prod_generic(const Tensor& self, std::optional<ScalarType> dtype) {
  return reduce("prod", R::Prod, self, kAllDims, false, dtype);
}
Tensor prod_dim_generic(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  const int64_t dims[] = {dim};
  return reduce("prod", R::Prod, self, IntArrayRef(dims), keepdim, dtype);
}
Tensor amax_generic(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return reduce("amax", R::Max, self, dim, keepdim, std::nullopt);
}
Tensor& amax_out_generic(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  return reduce_out("amax.out", R::Max, self, dim, keepdim, std::nullopt, out);
}
Tensor amin_generic(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return reduce("amin", R::Min, self, dim, keepdim, std::nullopt);
}
Tensor& amin_out_generic(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  return reduce_out("amin.out", R::Min, self, dim, keepdim, std::nullopt, out);
}
Tensor max_generic(const Tensor& self) { return reduce("max", R::Max, self, kAllDims, false, std::nullopt); }
Tensor min_generic(const Tensor& self) { return reduce("min", R::Min, self, kAllDims, false, std::nullopt); }

Tensor var_generic(const Tensor& self, bool unbiased) {
  return reduce("var", R::Var, self, kAllDims, false, std::nullopt, unbiased);
}
Tensor var_dim_generic(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return reduce("var", R::Var, self, dim, keepdim, std::nullopt, unbiased);
}
Tensor var_correction_generic(const Tensor& self, std::optional<IntArrayRef> dim,
                              const std::optional<Scalar>& correction, bool keepdim) {
  return reduce("var", R::Var, self, dim, keepdim, std::nullopt, correction_of(correction));
}
Tensor std_generic(const Tensor& self, bool unbiased) {
  return reduce("std", R::Std, self, kAllDims, false, std::nullopt, unbiased);
}
Tensor std_dim_generic(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return reduce("std", R::Std, self, dim, keepdim, std::nullopt, unbiased);
}
Tensor std_correction_generic(const Tensor& self, std::optional<IntArrayRef> dim,
                              const std::optional<Scalar>& correction, bool keepdim) {
  return reduce("std", R::Std, self, dim, keepdim, std::nullopt, correction_of(correction));
}
Tensor logsumexp_generic(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return reduce("logsumexp", R::LogSumExp, self, dim, keepdim, std::nullopt);
}
Tensor& logsumexp_out_generic(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  return reduce_out("logsumexp.out", R::LogSumExp, self, dim, keepdim, std::nullopt, out);
}

std::tuple<Tensor, Tensor> max_dim_generic(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme("max", true, self, dim, keepdim, true);
}
std::tuple<Tensor, Tensor> min_dim_generic(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme("min", false, self, dim, keepdim, true);
}
Tensor argmax_generic(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return std::get<1>(extreme("argmax", true, self, dim, keepdim, false));
}
Tensor argmin_generic(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return std::get<1>(extreme("argmin", false, self, dim, keepdim, false));
}

Tensor cumsum_generic(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return cumsum_of("cumsum", self, dim, dtype);
}
Tensor& cumsum_out_generic(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  wrap_dim("cumsum.out", dim, self);
  check_out("cumsum.out", out, self.sizes(), cumsum_dtype(self, dtype), self.device());
  return into(cumsum_of("cumsum.out", self, dim, dtype), out);
}

Tensor softmax_generic(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_of("softmax", false, self, dim, dtype);
}
Tensor log_softmax_generic(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_of("log_softmax", true, self, dim, dtype);
}
Tensor softmax_backward_data_generic(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                     ScalarType input_dtype) {
  return softmax_backward_of("_softmax_backward_data", false, grad_output, output, dim, input_dtype);
}
Tensor log_softmax_backward_data_generic(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                         ScalarType input_dtype) {
  return softmax_backward_of("_log_softmax_backward_data", true, grad_output, output, dim, input_dtype);
}

std::tuple<Tensor, Tensor> sort_generic(const Tensor& self, int64_t dim, bool descending) {
  const int64_t d = wrap_dim("sort", dim, self);
  return sorted(self, self.dim() == 0 ? 1 : self.sizes()[d], d, descending, self.sizes());
}
// sorted=False still returns them sorted: any order is allowed, and this one is reproducible.
std::tuple<Tensor, Tensor> topk_generic(const Tensor& self, int64_t k, int64_t dim, bool largest, bool /*sorted*/) {
  const DimVector shape = topk_shape(self, k, dim);
  // A 0-d tensor is its own top-k for k = 0 and k = 1 alike (PyTorch's answer): its one element.
  return sorted(self, self.dim() == 0 ? 1 : k, wrap_dim("topk", dim, self), largest, shape);
}

}  // namespace glassbox::native
