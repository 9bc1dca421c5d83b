// Point-wise operators written in terms of others (CompositeImplicitAutograd): the forms that take
// a Python number call the Tensor forms with a wrapped number (a weak type in promotion), and the
// in-place comparisons and logical ops write through their out= forms.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/ops/pointwise_iterator.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/clamp.h"
#include "glassbox/ops/native/clamp_max.h"
#include "glassbox/ops/native/clamp_min.h"
#include "glassbox/ops/native/eq.h"
#include "glassbox/ops/native/ge.h"
#include "glassbox/ops/native/gt.h"
#include "glassbox/ops/native/le.h"
#include "glassbox/ops/native/logical_and.h"
#include "glassbox/ops/native/logical_or.h"
#include "glassbox/ops/native/logical_xor.h"
#include "glassbox/ops/native/lt.h"
#include "glassbox/ops/native/ne.h"
#include "glassbox/ops/native/pow.h"
#include "glassbox/ops/native/where.h"

namespace glassbox::native {

namespace {
std::optional<Tensor> wrap_optional(const std::optional<Scalar>& s) {
  if (!s) return std::nullopt;
  return wrap_scalar(*s);
}

// An integer bound of clamp on an integer tensor, as PyTorch takes it: one that no value could reach (min
// above the dtype's largest value, max below its smallest) is refused, and one that every value already
// meets becomes the dtype's own limit, which clamps nothing, instead of wrapping around to a wrong bound.
std::optional<Tensor> clamp_bound(const char* op, const Tensor& self, const std::optional<Scalar>& bound, bool is_min) {
  if (!bound || !bound->is_integral() || !is_integral(self.dtype(), /*include_bool=*/false))
    return wrap_optional(bound);
  int64_t lowest = 0, highest = 0;
  visit_scalar_type(self.dtype(), [&]<class T>() {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      lowest = std::numeric_limits<T>::min();
      highest = static_cast<int64_t>(std::numeric_limits<T>::max());
    }
  });
  const int64_t v = bound->to_int();
  if (is_min ? v > highest : v < lowest) {
    throw Error(detail::str_cat(op, ": ", is_min ? "min" : "max", " value ", v, " is outside the range of ",
                                to_string(self.dtype()), " [", lowest, ", ", highest, "]"));
  }
  return wrap_scalar(Scalar(std::clamp(v, lowest, highest)));
}

// As in PyTorch, an integer tensor raised to a negative integer number is an error rather than 0.
void check_integer_exponent(const char* op, const Tensor& self, const Scalar& exponent) {
  if (is_integral(self.dtype(), /*include_bool=*/false) && exponent.is_integral() && exponent.to_int() < 0) {
    throw Error(std::string(op) + ": integers to negative integer powers are not allowed (self " + describe(self) +
                ", exponent " + exponent.to_string() + ")");
  }
}
}  // namespace

// ---- pow
Tensor pow(const Tensor& self, const Scalar& exponent) {
  check_integer_exponent("pow", self, exponent);
  return glassbox::pow(self, wrap_scalar(exponent));
}
Tensor pow(const Scalar& self, const Tensor& exponent) { return glassbox::pow(wrap_scalar(self), exponent); }
Tensor& pow_(Tensor& self, const Scalar& exponent) {
  check_integer_exponent("pow_", self, exponent);
  return self.pow_(wrap_scalar(exponent));
}
Tensor& pow(const Tensor& self, const Scalar& exponent, Tensor& out) {
  check_integer_exponent("pow.out", self, exponent);
  return glassbox::pow_out(out, self, wrap_scalar(exponent));
}
Tensor& pow(const Scalar& self, const Tensor& exponent, Tensor& out) {
  return glassbox::pow_out(out, wrap_scalar(self), exponent);
}

// ---- clamp by numbers, clamp_min, clamp_max
Tensor clamp(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return glassbox::clamp_Tensor(self, clamp_bound("clamp", self, min, true), clamp_bound("clamp", self, max, false));
}
Tensor& clamp_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return glassbox::clamp__Tensor(self, clamp_bound("clamp_", self, min, true), clamp_bound("clamp_", self, max, false));
}
Tensor& clamp(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max, Tensor& out) {
  return glassbox::clamp_Tensor_out(out, self, clamp_bound("clamp.out", self, min, true),
                                    clamp_bound("clamp.out", self, max, false));
}
Tensor clamp_min(const Tensor& self, const Scalar& min) {
  return glassbox::clamp_Tensor(self, clamp_bound("clamp_min", self, min, true));
}
Tensor clamp_min(const Tensor& self, const Tensor& min) { return glassbox::clamp_Tensor(self, min); }
Tensor& clamp_min_(Tensor& self, const Scalar& min) {
  return glassbox::clamp__Tensor(self, clamp_bound("clamp_min_", self, min, true));
}
Tensor& clamp_min_(Tensor& self, const Tensor& min) { return glassbox::clamp__Tensor(self, min); }
Tensor clamp_max(const Tensor& self, const Scalar& max) {
  return glassbox::clamp_Tensor(self, std::nullopt, clamp_bound("clamp_max", self, max, false));
}
Tensor clamp_max(const Tensor& self, const Tensor& max) { return glassbox::clamp_Tensor(self, std::nullopt, max); }
Tensor& clamp_max_(Tensor& self, const Scalar& max) {
  return glassbox::clamp__Tensor(self, std::nullopt, clamp_bound("clamp_max_", self, max, false));
}
Tensor& clamp_max_(Tensor& self, const Tensor& max) { return glassbox::clamp__Tensor(self, std::nullopt, max); }

// ---- where with numbers
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  return glassbox::where(condition, wrap_scalar(self), other);
}
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  return glassbox::where(condition, self, wrap_scalar(other));
}
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  return glassbox::where(condition, wrap_scalar(self), wrap_scalar(other));
}

// ---- comparisons with numbers, and in place (the bool result converted to self's dtype)
#define GB_COMPARISON_COMPOSITES(name)                                                                      \
  Tensor name(const Tensor& self, const Scalar& other) { return glassbox::name(self, wrap_scalar(other)); } \
  Tensor& name(const Tensor& self, const Scalar& other, Tensor& out) {                                      \
    return glassbox::name##_out(out, self, wrap_scalar(other));                                             \
  }                                                                                                         \
  Tensor& name##_(Tensor& self, const Tensor& other) { return glassbox::name##_out(self, self, other); }    \
  Tensor& name##_(Tensor& self, const Scalar& other) { return glassbox::name##_out(self, self, wrap_scalar(other)); }
GB_COMPARISON_COMPOSITES(eq)
GB_COMPARISON_COMPOSITES(ne)
GB_COMPARISON_COMPOSITES(lt)
GB_COMPARISON_COMPOSITES(le)
GB_COMPARISON_COMPOSITES(gt)
GB_COMPARISON_COMPOSITES(ge)
#undef GB_COMPARISON_COMPOSITES

Tensor& logical_and_(Tensor& self, const Tensor& other) { return glassbox::logical_and_out(self, self, other); }
Tensor& logical_or_(Tensor& self, const Tensor& other) { return glassbox::logical_or_out(self, self, other); }
Tensor& logical_xor_(Tensor& self, const Tensor& other) { return glassbox::logical_xor_out(self, self, other); }

}  // namespace glassbox::native
