// Point-wise operators written in terms of others (CompositeImplicitAutograd): the forms that take
// a Python number call the Tensor forms with a wrapped number (a weak type in promotion), and the
// in-place comparisons and logical ops write through their out= forms.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/ops/pointwise_functors.h"
#include "engine/ops/pointwise_iterator.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/bitwise_and.h"
#include "glassbox/ops/native/bitwise_left_shift.h"
#include "glassbox/ops/native/bitwise_or.h"
#include "glassbox/ops/native/bitwise_right_shift.h"
#include "glassbox/ops/native/bitwise_xor.h"
#include "glassbox/ops/native/clamp.h"
#include "glassbox/ops/native/clamp_max.h"
#include "glassbox/ops/native/clamp_min.h"
#include "glassbox/ops/native/eq.h"
#include "glassbox/ops/native/floor_divide.h"
#include "glassbox/ops/native/fmod.h"
#include "glassbox/ops/native/ge.h"
#include "glassbox/ops/native/gt.h"
#include "glassbox/ops/native/le.h"
#include "glassbox/ops/native/lerp.h"
#include "glassbox/ops/native/logical_and.h"
#include "glassbox/ops/native/logical_or.h"
#include "glassbox/ops/native/logical_xor.h"
#include "glassbox/ops/native/lt.h"
#include "glassbox/ops/native/ne.h"
#include "glassbox/ops/native/pow.h"
#include "glassbox/ops/native/remainder.h"
#include "glassbox/ops/native/square.h"
#include "glassbox/ops/native/where.h"

namespace glassbox::functors {

// ---- the front-end checks of the structured functors that need more than a dtype rule
void check_integer_operand(const char* op, const Tensor& self) {
  GB_CHECK(self.defined(), op, ": the input is an undefined tensor");
  if (is_floating_point(self.dtype()))
    throw NotImplementedError(std::string(op) + ": expected an integer or bool tensor, got " + describe(self));
}

void check_integer_operands(const char* op, const Tensor& self, const Tensor& other, bool allow_bool) {
  const ScalarType t = binary_dtypes(op, BinaryKind::Promote, self, other).compute;
  if (is_floating_point(t) || (!allow_bool && t == ScalarType::Bool)) {
    throw NotImplementedError(std::string(op) + ": expected integer" + (allow_bool ? " or bool" : "") +
                              " tensors, got " + describe(self) + " and " + describe(other) + " (computing in " +
                              std::string(to_string(t)) + ")");
  }
}

// PyTorch raises on an integer division by zero rather than return what the hardware gives; the
// divisor's values decide, so the Meta device (no values) cannot check it.
void check_integer_divisor(const char* op, const Tensor& self, const Tensor& other) {
  const ScalarType t = binary_dtypes(op, BinaryKind::Numeric, self, other).compute;
  if (is_floating_point(t) || other.device().type == DeviceType::Meta || other.numel() == 0) return;
  const Tensor zeros = glassbox::sum(glassbox::eq(other, wrap_scalar(Scalar(int64_t{0}))));
  const Tensor count = zeros.device().type == DeviceType::CPU ? zeros : zeros.to(Device(DeviceType::CPU));
  if (*count.data<int64_t>() != 0) {
    throw Error(std::string(op) + ": integer division by zero (self " + describe(self) + ", other " + describe(other) +
                ")");
  }
}

void check_isclose(const char* op, const Tensor& self, const Tensor& other, double rtol, double atol) {
  GB_CHECK(self.defined() && other.defined(), op, ": an argument is an undefined tensor");
  if (self.dtype() != other.dtype()) {
    throw Error(std::string(op) + ": self and other must have the same dtype, got " + describe(self) + " and " +
                describe(other));
  }
  if (!(rtol >= 0) || !(atol >= 0)) {
    throw Error(std::string(op) + ": rtol and atol must not be negative, got rtol=" + std::to_string(rtol) +
                " and atol=" + std::to_string(atol));
  }
}

NanToNumLimits nan_to_num_limits(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                                 std::optional<double> neginf) {
  double largest = 0;
  switch (self.dtype()) {
    case ScalarType::Float16: largest = 65504.0; break;
    case ScalarType::BFloat16: largest = 3.3895313892515355e38; break;
    case ScalarType::Float32: largest = std::numeric_limits<float>::max(); break;
    default: largest = std::numeric_limits<double>::max(); break;
  }
  return {nan.value_or(0.0), posinf.value_or(largest), neginf.value_or(-largest)};
}

TensorIterator lerp_iterator(const char* op, const Tensor& self, const Tensor& end, const Tensor& weight, Tensor& out) {
  GB_CHECK(self.defined() && end.defined() && weight.defined(), op, ": an argument is an undefined tensor");
  const ScalarType t = self.dtype();
  if (!is_floating_point(t))
    throw NotImplementedError(std::string(op) + ": expected a floating-point tensor, got " + describe(self));
  for (const auto& [what, arg] : {std::pair{"end", &end}, std::pair{"weight", &weight}}) {
    if (arg->dtype() != t && !arg->unsafe_impl()->is_wrapped_number()) {
      throw Error(std::string(op) + ": expected " + what + " of self's dtype " + std::string(to_string(t)) + ", got " +
                  describe(*arg));
    }
  }
  return pointwise_iterator(op, {t, t}, out, {&self, &end, &weight});
}

TensorIterator addc_iterator(const char* op, bool divides, const Tensor& self, const Tensor& tensor1,
                             const Tensor& tensor2, Tensor& out) {
  GB_CHECK(self.defined() && tensor1.defined() && tensor2.defined(), op, ": an argument is an undefined tensor");
  if (divides && !is_floating_point(tensor1.dtype()) && !is_floating_point(tensor2.dtype())) {
    throw Error(std::string(op) + ": integer division is not supported (tensor1 " + describe(tensor1) + ", tensor2 " +
                describe(tensor2) + "); divide floating-point tensors, or use div(..., rounding_mode='trunc')");
  }
  const Tensor* all[] = {&self, &tensor1, &tensor2};
  const ScalarType t = result_type(all);
  if (t == ScalarType::Bool) {
    throw NotImplementedError(std::string(op) + ": not supported for bool tensors (got " + describe(self) + ")");
  }
  return pointwise_iterator(op, {t, t}, out, {&self, &tensor1, &tensor2});
}

}  // namespace glassbox::functors

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

// ---- bitwise ops, shifts, remainder and fmod with numbers (wrapped: weak types in promotion)
#define GB_TENSOR_SCALAR_COMPOSITES(name)                                                                   \
  Tensor name(const Tensor& self, const Scalar& other) { return glassbox::name(self, wrap_scalar(other)); } \
  Tensor& name##_(Tensor& self, const Scalar& other) { return self.name##_(wrap_scalar(other)); }
GB_TENSOR_SCALAR_COMPOSITES(bitwise_and)
GB_TENSOR_SCALAR_COMPOSITES(bitwise_or)
GB_TENSOR_SCALAR_COMPOSITES(bitwise_xor)
GB_TENSOR_SCALAR_COMPOSITES(bitwise_left_shift)
GB_TENSOR_SCALAR_COMPOSITES(bitwise_right_shift)
GB_TENSOR_SCALAR_COMPOSITES(remainder)
GB_TENSOR_SCALAR_COMPOSITES(fmod)
#undef GB_TENSOR_SCALAR_COMPOSITES
Tensor bitwise_left_shift(const Scalar& self, const Tensor& other) {
  return glassbox::bitwise_left_shift(wrap_scalar(self), other);
}
Tensor bitwise_right_shift(const Scalar& self, const Tensor& other) {
  return glassbox::bitwise_right_shift(wrap_scalar(self), other);
}
Tensor remainder(const Scalar& self, const Tensor& other) { return glassbox::remainder(wrap_scalar(self), other); }

// ---- floor_divide: div rounding toward -infinity (an integer division by zero raises there)
Tensor floor_divide(const Tensor& self, const Tensor& other) { return glassbox::div(self, other, "floor"); }
Tensor floor_divide(const Tensor& self, const Scalar& other) { return glassbox::div(self, other, "floor"); }
Tensor& floor_divide_(Tensor& self, const Tensor& other) { return self.div_(other, "floor"); }
Tensor& floor_divide_(Tensor& self, const Scalar& other) { return self.div_(wrap_scalar(other), "floor"); }
Tensor& floor_divide(const Tensor& self, const Tensor& other, Tensor& out) {
  return glassbox::div_out(out, self, other, "floor");
}

// ---- square: pow(self, 2); bool squares as int64, as in PyTorch
Tensor square(const Tensor& self) {
  if (self.dtype() == ScalarType::Bool) return glassbox::pow(self.to(ScalarType::Int64), Scalar(int64_t{2}));
  return glassbox::pow(self, Scalar(int64_t{2}));
}
Tensor& square_(Tensor& self) { return self.pow_(Scalar(int64_t{2})); }

// ---- lerp with a number for weight
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) {
  return glassbox::lerp(self, end, wrap_scalar(weight));
}
Tensor& lerp_(Tensor& self, const Tensor& end, const Scalar& weight) { return self.lerp_(end, wrap_scalar(weight)); }

}  // namespace glassbox::native
