// Meta kernels of the reductions, scans, softmax and sorting: the front end's shapes and dtypes
// (engine/ops/reduction_shape.h, the same calls the CPU kernels make) with no data.
#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/ops/reduction_shape.h"
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
Tensor meta(std::span<const int64_t> shape, ScalarType dtype) { return empty_tensor(shape, dtype, Device(DeviceType::Meta)); }

Tensor reduced(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
               std::optional<ScalarType> dtype, ReductionDtype rule, bool needs_values = false) {
  const ReductionShape s = reduction_shape(op, self, dim, keepdim, reduction_dtype(op, self, dtype, rule));
  if (needs_values) check_reduction_nonempty(op, self, s);
  return meta(s.out_shape, s.dtype);
}
Tensor& reduced_out(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                    std::optional<ScalarType> dtype, ReductionDtype rule, Tensor& out, bool needs_values = false) {
  const Tensor r = reduced(op, self, dim, keepdim, dtype, rule, needs_values);
  check_out(op, out, r.sizes(), r.dtype(), out.device());
  return out;
}
std::tuple<Tensor, Tensor> values_and_indices(const char* op, const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t dims[] = {dim};
  const ReductionShape s = reduction_shape(op, self, IntArrayRef(dims), keepdim, self.dtype());
  check_reduction_nonempty(op, self, s);
  return {meta(s.out_shape, self.dtype()), meta(s.out_shape, ScalarType::Int64)};
}
Tensor arg(const char* op, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (dim) return std::get<1>(values_and_indices(op, self, *dim, keepdim));
  const ReductionShape s = reduction_shape(op, self, std::nullopt, keepdim, ScalarType::Int64);
  check_reduction_nonempty(op, self, s);
  return meta(s.out_shape, ScalarType::Int64);
}
constexpr auto kNoDims = std::nullopt;
using R = ReductionDtype;
}  // namespace

Tensor sum_meta(const Tensor& self, std::optional<ScalarType> dtype) { return reduced("sum", self, kNoDims, false, dtype, R::Accumulate); }
Tensor sum_dim_meta(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduced("sum", self, dim, keepdim, dtype, R::Accumulate);
}
Tensor& sum_out_meta(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                     Tensor& out) {
  return reduced_out("sum.out", self, dim, keepdim, dtype, R::Accumulate, out);
}
Tensor mean_meta(const Tensor& self, std::optional<ScalarType> dtype) { return reduced("mean", self, kNoDims, false, dtype, R::Mean); }
Tensor mean_dim_meta(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduced("mean", self, dim, keepdim, dtype, R::Mean);
}
Tensor& mean_out_meta(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                      Tensor& out) {
  return reduced_out("mean.out", self, dim, keepdim, dtype, R::Mean, out);
}
Tensor prod_meta(const Tensor& self, std::optional<ScalarType> dtype) { return reduced("prod", self, kNoDims, false, dtype, R::Accumulate); }
Tensor prod_dim_meta(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  const int64_t dims[] = {dim};
  return reduced("prod", self, IntArrayRef(dims), keepdim, dtype, R::Accumulate);
}
Tensor amax_meta(const Tensor& self, IntArrayRef dim, bool keepdim) { return reduced("amax", self, dim, keepdim, std::nullopt, R::Same, true); }
Tensor& amax_out_meta(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  return reduced_out("amax.out", self, dim, keepdim, std::nullopt, R::Same, out, true);
}
Tensor amin_meta(const Tensor& self, IntArrayRef dim, bool keepdim) { return reduced("amin", self, dim, keepdim, std::nullopt, R::Same, true); }
Tensor& amin_out_meta(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  return reduced_out("amin.out", self, dim, keepdim, std::nullopt, R::Same, out, true);
}
Tensor max_meta(const Tensor& self) { return reduced("max", self, kNoDims, false, std::nullopt, R::Same, true); }
Tensor min_meta(const Tensor& self) { return reduced("min", self, kNoDims, false, std::nullopt, R::Same, true); }
std::tuple<Tensor, Tensor> max_dim_meta(const Tensor& self, int64_t dim, bool keepdim) {
  return values_and_indices("max", self, dim, keepdim);
}
std::tuple<Tensor, Tensor> min_dim_meta(const Tensor& self, int64_t dim, bool keepdim) {
  return values_and_indices("min", self, dim, keepdim);
}
Tensor argmax_meta(const Tensor& self, std::optional<int64_t> dim, bool keepdim) { return arg("argmax", self, dim, keepdim); }
Tensor argmin_meta(const Tensor& self, std::optional<int64_t> dim, bool keepdim) { return arg("argmin", self, dim, keepdim); }

Tensor var_meta(const Tensor& self, bool) { return reduced("var", self, kNoDims, false, std::nullopt, R::Floating); }
Tensor var_dim_meta(const Tensor& self, std::optional<IntArrayRef> dim, bool, bool keepdim) {
  return reduced("var", self, dim, keepdim, std::nullopt, R::Floating);
}
Tensor var_correction_meta(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>&, bool keepdim) {
  return reduced("var", self, dim, keepdim, std::nullopt, R::Floating);
}
Tensor std_meta(const Tensor& self, bool) { return reduced("std", self, kNoDims, false, std::nullopt, R::Floating); }
Tensor std_dim_meta(const Tensor& self, std::optional<IntArrayRef> dim, bool, bool keepdim) {
  return reduced("std", self, dim, keepdim, std::nullopt, R::Floating);
}
Tensor std_correction_meta(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>&, bool keepdim) {
  return reduced("std", self, dim, keepdim, std::nullopt, R::Floating);
}
Tensor logsumexp_meta(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return reduced("logsumexp", self, dim, keepdim, std::nullopt, R::ToFloat);
}
Tensor& logsumexp_out_meta(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  return reduced_out("logsumexp.out", self, dim, keepdim, std::nullopt, R::ToFloat, out);
}

Tensor cumsum_meta(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  wrap_dim("cumsum", dim, self);
  return meta(self.sizes(), cumsum_dtype(self, dtype));
}
Tensor& cumsum_out_meta(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  wrap_dim("cumsum.out", dim, self);
  check_out("cumsum.out", out, self.sizes(), cumsum_dtype(self, dtype), out.device());
  return out;
}
Tensor softmax_meta(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  wrap_dim("softmax", dim, self);
  return meta(self.sizes(), softmax_dtype("softmax", self, dtype));
}
Tensor log_softmax_meta(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  wrap_dim("log_softmax", dim, self);
  return meta(self.sizes(), softmax_dtype("log_softmax", self, dtype));
}
Tensor softmax_backward_data_meta(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  softmax_backward_shape("_softmax_backward_data", grad_output, output, dim, input_dtype);
  return meta(grad_output.sizes(), input_dtype);
}
Tensor log_softmax_backward_data_meta(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  softmax_backward_shape("_log_softmax_backward_data", grad_output, output, dim, input_dtype);
  return meta(grad_output.sizes(), input_dtype);
}
std::tuple<Tensor, Tensor> topk_meta(const Tensor& self, int64_t k, int64_t dim, bool, bool) {
  const DimVector shape = topk_shape(self, k, dim);
  return {meta(shape, self.dtype()), meta(shape, ScalarType::Int64)};
}
std::tuple<Tensor, Tensor> sort_meta(const Tensor& self, int64_t dim, bool) {
  wrap_dim("sort", dim, self);
  return {meta(self.sizes(), self.dtype()), meta(self.sizes(), ScalarType::Int64)};
}

}  // namespace glassbox::native
