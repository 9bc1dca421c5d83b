// where and div with a rounding mode, the two element-wise operators that are not structured: one
// kernel each for CPU, CUDA and Meta. The iterator (engine/ops/pointwise_iterator.h) decides the
// result; the device's WhereDivModeBackend (engine/ops/kernels/where_div_mode.h) computes, Meta
// has none. An out= of another dtype than where's result is written through a temporary.
#include "engine/ops/kernels/where_div_mode.h"
#include "engine/core/error.h"
#include "engine/ops/pointwise_iterator.h"
#include "glassbox/ops/native/div.h"
#include "glassbox/ops/native/where.h"

namespace glassbox::native {

namespace {
using kernels::WhereDivModeBackend;
using kernels::WhereDivModeBackends;

// Autograd's version counter notices the write.
void mark_written(const Tensor& out) {
  if (out.unsafe_impl()->storage()) out.unsafe_impl()->storage()->bump_version();
}

Tensor& where_into(const char* op, const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  WhereIterator w = where_iterator(op, condition, self, other, out);
  const WhereDivModeBackend* backend = WhereDivModeBackends::of(w.result.device());
  if (backend) backend->where(w.it);
  if (!out.defined()) out = w.result;
  else if (backend && !out.is_same(w.result)) copy_between(out, w.result);  // out= of another dtype
  if (backend) mark_written(out);
  return out;
}

Tensor& divide_rounded(const char* op, const Tensor& self, const Tensor& other,
                       std::optional<std::string_view> rounding_mode, Tensor& out) {
  const RoundingMode mode = parse_rounding_mode(op, rounding_mode);
  const WhereDivModeBackend* backend =
      WhereDivModeBackends::of(self.device().type == DeviceType::CPU ? other.device() : self.device());
  if (mode == RoundingMode::None && backend) return backend->true_divide(op, out, self, other);
  const bool allocated = !out.defined();
  TensorIterator it = div_mode_iterator(op, mode, self, other, out);
  if (!backend) return out;
  const bool floor = mode == RoundingMode::Floor;
  if (backend->div_rounded(it, floor)) {
    throw Error(std::string(op) + ": integer division by zero (rounding_mode='" + (floor ? "floor" : "trunc") +
                "', self " + describe(self) + ", other " + describe(other) + ")");
  }
  it.finish();
  if (!allocated) mark_written(out);
  return out;
}
}  // namespace

Tensor where_generic(const Tensor& condition, const Tensor& self, const Tensor& other) {
  Tensor out;
  return where_into("where", condition, self, other, out);
}
Tensor& where_out_generic(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  return where_into("where.out", condition, self, other, out);
}

Tensor div_mode_generic(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  Tensor out;
  divide_rounded("div", self, other, rounding_mode, out);
  return out;
}
Tensor& div_mode_generic_(Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  return divide_rounded("div_", self, other, rounding_mode, self);
}
Tensor& div_mode_out_generic(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode,
                             Tensor& out) {
  return divide_rounded("div.out", self, other, rounding_mode, out);
}

}  // namespace glassbox::native
