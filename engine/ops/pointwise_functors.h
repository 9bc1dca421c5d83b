#pragma once
// The element formulas of the structured element-wise operators, each written once as a
// host/device functor on the compute type C (float for float16/bfloat16): the CPU loops
// (engine/cpu/pointwise_kernel.h) and the CUDA launcher (engine/cuda/pointwise_launch.cuh) both
// call them. Each operator's functor has a `name` and a `formula` (what the tools and a fusing
// compiler read) and its family (engine/ops/structured_pointwise.h); ops.yaml names it in
// `structured:`.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "engine/core/host_device.h"
#include "engine/core/scalar.h"
#include "engine/ops/division_rounding.h"
#include "engine/ops/structured_pointwise.h"

namespace glassbox::functors {

template <class C>
GLASSBOX_HOST_DEVICE bool is_nan(C x) {
  if constexpr (std::is_floating_point_v<C>) return x != x;
  else return false;
}

// A number argument (alpha, threshold) in the compute type; integers through int64, so that -1
// becomes 255 for uint8 as the arithmetic wraps.
template <class C>
C scalar_as(const Scalar& s) {
  if constexpr (std::is_floating_point_v<C>) return static_cast<C>(s.to_double());
  else return static_cast<C>(s.is_floating_point() ? static_cast<int64_t>(s.to_double()) : s.to_int());
}

// ---- unary math
struct Abs : UnaryOp<UnaryKind::Keep> {
  static constexpr const char* name = "abs";
  static constexpr const char* formula = "|self|";
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) return x;
    else if constexpr (std::is_floating_point_v<C>) return std::fabs(x);
    else return static_cast<C>(x < 0 ? -x : x);
  }
};
// NaN gives 0, as in PyTorch (both comparisons are false); bool keeps its value.
struct Sign : UnaryOp<UnaryKind::KeepWithBool> {
  static constexpr const char* name = "sign";
  static constexpr const char* formula = "(0 < self) - (self < 0)";
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x) const {
    if constexpr (std::is_same_v<C, bool>) return x;
    else if constexpr (std::is_unsigned_v<C>) return static_cast<C>(C(0) < x);
    else return static_cast<C>((C(0) < x) - (x < C(0)));
  }
};
struct Neg : UnaryOp<UnaryKind::Keep> {
  static constexpr const char* name = "neg";
  static constexpr const char* formula = "-self";
  static void check(const char* op, const Tensor& self) { check_not_bool_variant(op, self, "logical_not"); }
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x) const {
    return static_cast<C>(-x);
  }
};

// Floating-point math: C is float or double.
#define GB_FLOAT_FUNCTOR(Name, op, kind_, heavy, text, expr) \
  struct Name : UnaryOp<UnaryKind::kind_> {                  \
    static constexpr const char* name = op;                  \
    static constexpr const char* formula = text;             \
    static constexpr bool transcendental = heavy;            \
    template <class C>                                       \
    GLASSBOX_HOST_DEVICE C operator()(C x) const {           \
      return expr;                                           \
    }                                                        \
  };
GB_FLOAT_FUNCTOR(Sqrt, "sqrt", IntToFloat, false, "sqrt(self)", std::sqrt(x))
GB_FLOAT_FUNCTOR(Rsqrt, "rsqrt", IntToFloat, false, "1 / sqrt(self)", C(1) / std::sqrt(x))
GB_FLOAT_FUNCTOR(Exp, "exp", IntToFloat, true, "exp(self)", std::exp(x))
GB_FLOAT_FUNCTOR(Log, "log", IntToFloat, true, "log(self)", std::log(x))
GB_FLOAT_FUNCTOR(Log1p, "log1p", IntToFloat, true, "log(1 + self)", std::log1p(x))
GB_FLOAT_FUNCTOR(Expm1, "expm1", IntToFloat, true, "exp(self) - 1", std::expm1(x))
GB_FLOAT_FUNCTOR(Sin, "sin", IntToFloat, true, "sin(self)", std::sin(x))
GB_FLOAT_FUNCTOR(Cos, "cos", IntToFloat, true, "cos(self)", std::cos(x))
GB_FLOAT_FUNCTOR(Tanh, "tanh", IntToFloat, true, "tanh(self)", std::tanh(x))
// ---- activations
GB_FLOAT_FUNCTOR(Sigmoid, "sigmoid", IntToFloat, true, "1 / (1 + exp(-self))", C(1) / (C(1) + std::exp(-x)))
GB_FLOAT_FUNCTOR(Silu, "silu", FloatOnly, true, "self / (1 + exp(-self))", x / (C(1) + std::exp(-x)))
GB_FLOAT_FUNCTOR(Exp2, "exp2", IntToFloat, true, "2^self", std::exp2(x))
GB_FLOAT_FUNCTOR(Log2, "log2", IntToFloat, true, "log2(self)", std::log2(x))
GB_FLOAT_FUNCTOR(Log10, "log10", IntToFloat, true, "log10(self)", std::log10(x))
GB_FLOAT_FUNCTOR(Tan, "tan", IntToFloat, true, "tan(self)", std::tan(x))
GB_FLOAT_FUNCTOR(Asin, "asin", IntToFloat, true, "asin(self)", std::asin(x))
GB_FLOAT_FUNCTOR(Acos, "acos", IntToFloat, true, "acos(self)", std::acos(x))
GB_FLOAT_FUNCTOR(Atan, "atan", IntToFloat, true, "atan(self)", std::atan(x))
GB_FLOAT_FUNCTOR(Sinh, "sinh", IntToFloat, true, "sinh(self)", std::sinh(x))
GB_FLOAT_FUNCTOR(Cosh, "cosh", IntToFloat, true, "cosh(self)", std::cosh(x))
GB_FLOAT_FUNCTOR(Asinh, "asinh", IntToFloat, true, "asinh(self)", std::asinh(x))
GB_FLOAT_FUNCTOR(Acosh, "acosh", IntToFloat, true, "acosh(self)", std::acosh(x))
GB_FLOAT_FUNCTOR(Atanh, "atanh", IntToFloat, true, "atanh(self)", std::atanh(x))
GB_FLOAT_FUNCTOR(Erf, "erf", IntToFloat, true, "erf(self)", std::erf(x))
GB_FLOAT_FUNCTOR(Erfc, "erfc", IntToFloat, true, "erfc(self)", std::erfc(x))
GB_FLOAT_FUNCTOR(Recip, "reciprocal", IntToFloat, false, "1 / self", C(1) / x)
GB_FLOAT_FUNCTOR(Frac, "frac", FloatOnly, false, "self - trunc(self)", x - std::trunc(x))
#undef GB_FLOAT_FUNCTOR

// erfinv: a closed-form first guess (|error| < 2e-3) refined by Newton steps on erf, each of
// which squares the relative error; +-1 give +-inf and |self| > 1 NaN.
struct Erfinv : UnaryOp<UnaryKind::IntToFloat> {
  static constexpr const char* name = "erfinv";
  static constexpr const char* formula = "erf^-1(self)";
  static constexpr bool transcendental = true;
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C y) const {
    if (!(y > C(-1) && y < C(1))) {
      if (y == C(1)) return C(1) / C(0);
      if (y == C(-1)) return C(-1) / C(0);
      return C(0) / C(0);
    }
    const C a = C(0.147), two_over_pi_a = C(2.0 / (3.14159265358979323846 * 0.147));
    const C ln = std::log((C(1) - y) * (C(1) + y));
    const C first = two_over_pi_a + ln / C(2);
    C x = std::sqrt(std::sqrt(first * first - ln / a) - first);
    if (y < C(0)) x = -x;
    for (int i = 0; i < 3; ++i) {
      const C slope = C(1.12837916709551257390) * std::exp(-x * x);  // d erf / dx
      if (slope == C(0)) break;
      x -= (std::erf(x) - y) / slope;
    }
    return x;
  }
};

// Rounding: integers are already whole (their own value), floating point rounds; bool is refused.
#define GB_ROUNDING_FUNCTOR(Name, op, expr)                   \
  struct Name : UnaryOp<UnaryKind::Keep> {                    \
    static constexpr const char* name = op;                   \
    static constexpr const char* formula = op "(self)";       \
    template <class C>                                        \
    GLASSBOX_HOST_DEVICE C operator()(C x) const {            \
      if constexpr (std::is_floating_point_v<C>) return expr; \
      else return x;                                          \
    }                                                         \
  };
GB_ROUNDING_FUNCTOR(Floor, "floor", std::floor(x))
GB_ROUNDING_FUNCTOR(Ceil, "ceil", std::ceil(x))
GB_ROUNDING_FUNCTOR(Trunc, "trunc", std::trunc(x))
GB_ROUNDING_FUNCTOR(Round, "round", std::nearbyint(x))  // half to even, the default rounding mode
#undef GB_ROUNDING_FUNCTOR
// round(decimals=): scaled by 10^|decimals|, rounded half to even, scaled back (floating point only).
struct RoundDecimals : UnaryOp<UnaryKind::FloatOnly> {
  static constexpr const char* name = "round";
  static constexpr const char* formula = "round(self * 10^decimals) / 10^decimals";
  template <class C>
  struct Fn {
    C scale;
    bool negative;
    GLASSBOX_HOST_DEVICE C operator()(C x) const {
      return negative ? std::nearbyint(x / scale) * scale : std::nearbyint(x * scale) / scale;
    }
  };
  template <class C, class Run>
  static void with(const Run& run, const Tensor&, int64_t decimals) {
    const bool negative = decimals < 0;
    run(Fn<C>{static_cast<C>(std::pow(10.0, static_cast<double>(negative ? -decimals : decimals))), negative});
  }
};
// sgn: sign for real numbers (PyTorch's name for the complex-aware form).
struct Sgn : Sign {
  static constexpr const char* name = "sgn";
};

// isnan, isinf, isfinite: bool results; integers and bool are always finite. x - x is NaN exactly
// for infinities and NaN.
struct IsNan : UnaryOp<UnaryKind::Logical> {
  static constexpr const char* name = "isnan";
  static constexpr const char* formula = "self != self";
  template <class C>
  GLASSBOX_HOST_DEVICE bool operator()(C x) const {
    return is_nan(x);
  }
};
struct IsInf : UnaryOp<UnaryKind::Logical> {
  static constexpr const char* name = "isinf";
  static constexpr const char* formula = "self == inf || self == -inf";
  template <class C>
  GLASSBOX_HOST_DEVICE bool operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) return !is_nan(x) && is_nan(x - x);
    else return false;
  }
};
struct IsFinite : UnaryOp<UnaryKind::Logical> {
  static constexpr const char* name = "isfinite";
  static constexpr const char* formula = "!isnan(self) && !isinf(self)";
  template <class C>
  GLASSBOX_HOST_DEVICE bool operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) return !is_nan(x - x);
    else return true;
  }
};

// nan_to_num: NaN, +inf and -inf replaced by the given numbers, by default 0 and the largest and
// lowest finite values of self's dtype; integers and bool keep their values.
struct NanToNumLimits {
  double nan, posinf, neginf;
};
NanToNumLimits nan_to_num_limits(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                                 std::optional<double> neginf);
struct NanToNum : UnaryOp<UnaryKind::KeepWithBool> {
  static constexpr const char* name = "nan_to_num";
  static constexpr const char* formula = "isnan(self) ? nan : self == inf ? posinf : self == -inf ? neginf : self";
  template <class C>
  struct Fn {
    C nan, posinf, neginf;
    GLASSBOX_HOST_DEVICE C operator()(C x) const {
      if constexpr (std::is_floating_point_v<C>) {
        if (is_nan(x)) return nan;
        if (is_nan(x - x)) return x > C(0) ? posinf : neginf;
      }
      return x;
    }
  };
  template <class C, class Run>
  static void with(const Run& run, const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                   std::optional<double> neginf) {
    const NanToNumLimits l = nan_to_num_limits(self, nan, posinf, neginf);
    run(Fn<C>{static_cast<C>(l.nan), static_cast<C>(l.posinf), static_cast<C>(l.neginf)});
  }
};
// bitwise_not: ~ on integers, logical not on bool; floating point refused.
void check_integer_operand(const char* op, const Tensor& self);
struct BitwiseNot : UnaryOp<UnaryKind::KeepWithBool> {
  static constexpr const char* name = "bitwise_not";
  static constexpr const char* formula = "~self";
  static void check(const char* op, const Tensor& self) { check_integer_operand(op, self); }
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x) const {
    if constexpr (std::is_same_v<C, bool>) return !x;
    else if constexpr (std::is_integral_v<C>) return static_cast<C>(~x);
    else return x;
  }
};

// x < 0 rather than x > 0 so that NaN passes through.
struct Relu : UnaryOp<UnaryKind::Keep> {
  static constexpr const char* name = "relu";
  static constexpr const char* formula = "self < 0 ? 0 : self";
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) return x;
    else return x < C(0) ? C(0) : x;
  }
};

inline constexpr double kSqrtHalf = 0.70710678118654752440;     // 1/sqrt(2)
inline constexpr double kInvSqrt2Pi = 0.39894228040143267794;   // 1/sqrt(2 pi)
inline constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2/pi)
inline constexpr double kGeluTanhCubic = 0.044715;

struct GeluErf : UnaryOp<UnaryKind::FloatOnly> {
  static constexpr const char* name = "gelu";
  static constexpr const char* formula = "self / 2 * (1 + erf(self / sqrt(2)))";
  static constexpr bool transcendental = true;
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x) const {
    return C(0.5) * x * (C(1) + std::erf(x * C(kSqrtHalf)));
  }
};
struct GeluTanh : UnaryOp<UnaryKind::FloatOnly> {
  static constexpr const char* name = "gelu(tanh)";
  static constexpr const char* formula = "self / 2 * (1 + tanh(sqrt(2 / pi) * (self + 0.044715 self^3)))";
  static constexpr bool transcendental = true;
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x) const {
    const C inner = C(kSqrt2OverPi) * (x + C(kGeluTanhCubic) * x * x * x);
    return C(0.5) * x * (C(1) + std::tanh(inner));
  }
};
// The approximation picks the functor type, not a flag inside it: a run-time choice in the element
// function would keep the CPU loop from vectorising.
struct Gelu : UnaryOp<UnaryKind::FloatOnly> {
  static constexpr const char* name = "gelu";
  static constexpr const char* formula = "gelu(self) or gelu(tanh)(self), by approximate";
  static constexpr bool transcendental = true;
  static void check(const char* op, const Tensor&, std::string_view approximate) { gelu_uses_tanh(op, approximate); }
  template <class C, class Run>
  static void with(const Run& run, const Tensor&, std::string_view approximate) {
    if (approximate == "tanh") run(GeluTanh{});
    else run(GeluErf{});
  }
};

// Any dtype in, bool out: zero is false, everything else (NaN included) true.
struct LogicalNot : UnaryOp<UnaryKind::Logical> {
  static constexpr const char* name = "logical_not";
  static constexpr const char* formula = "self == 0";
  template <class C>
  GLASSBOX_HOST_DEVICE bool operator()(C x) const {
    return x == C(0);
  }
};

// ---- arithmetic
struct Plus : BinaryOp<BinaryKind::Promote> {
  static constexpr const char* name = "add";
  static constexpr const char* formula = "self + other";
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    return static_cast<C>(x + y);
  }
};
struct Minus : BinaryOp<BinaryKind::Promote> {
  static constexpr const char* name = "sub";
  static constexpr const char* formula = "self - other";
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    return static_cast<C>(x - y);
  }
};
// alpha == 1 takes the plain form (one multiplication less per element).
struct Add : BinaryOp<BinaryKind::Promote> {
  static constexpr const char* name = "add";
  static constexpr const char* formula = "self + alpha * other";
  static constexpr bool direct = true;
  template <class C>
  struct Scaled {
    C alpha;
    GLASSBOX_HOST_DEVICE C operator()(C x, C y) const { return static_cast<C>(x + alpha * y); }
  };
  static void check(const char* op, const Tensor& self, const Tensor& other, const Scalar& alpha) {
    check_alpha_of(op, self, other, alpha);
  }
  template <class C, class Run>
  static void with(const Run& run, const Tensor&, const Tensor&, const Scalar& alpha) {
    const C a = scalar_as<C>(alpha);
    if (a == C(1)) run(Plus{});
    else run(Scaled<C>{a});
  }
};
struct Sub : BinaryOp<BinaryKind::Promote> {
  static constexpr const char* name = "sub";
  static constexpr const char* formula = "self - alpha * other";
  static constexpr bool direct = true;
  template <class C>
  struct Scaled {
    C alpha;
    GLASSBOX_HOST_DEVICE C operator()(C x, C y) const { return static_cast<C>(x - alpha * y); }
  };
  static void check(const char* op, const Tensor& self, const Tensor& other, const Scalar& alpha) {
    check_not_bool_variant(op, self, "logical_xor");
    check_alpha_of(op, self, other, alpha);
  }
  template <class C, class Run>
  static void with(const Run& run, const Tensor&, const Tensor&, const Scalar& alpha) {
    const C a = scalar_as<C>(alpha);
    if (a == C(1)) run(Minus{});
    else run(Scaled<C>{a});
  }
};
struct Mul : BinaryOp<BinaryKind::Promote> {
  static constexpr const char* name = "mul";
  static constexpr const char* formula = "self * other";
  static constexpr bool direct = true;
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    return static_cast<C>(x * y);
  }
};
struct Div : BinaryOp<BinaryKind::IntToFloat> {
  static constexpr const char* name = "div";
  static constexpr const char* formula = "self / other";
  static constexpr bool direct = true;
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    return x / y;
  }
};
// A NaN on either side wins.
struct Maximum : BinaryOp<BinaryKind::Promote> {
  static constexpr const char* name = "maximum";
  static constexpr const char* formula = "isnan(self) ? self : isnan(other) ? other : max(self, other)";
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    return is_nan(x) ? x : is_nan(y) ? y : x < y ? y : x;
  }
};
struct Minimum : BinaryOp<BinaryKind::Promote> {
  static constexpr const char* name = "minimum";
  static constexpr const char* formula = "isnan(self) ? self : isnan(other) ? other : min(self, other)";
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    return is_nan(x) ? x : is_nan(y) ? y : y < x ? y : x;
  }
};
struct Hypot : BinaryOp<BinaryKind::FloatOnly> {
  static constexpr const char* name = "hypot";
  static constexpr const char* formula = "sqrt(self^2 + other^2)";
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    return std::hypot(x, y);
  }
};

// ---- bitwise ops and shifts: integers and bool only, refused for a floating-point operand before
// the loop (PyTorch has no kernel for them either), so the float branches below never run.
void check_integer_operands(const char* op, const Tensor& self, const Tensor& other, bool allow_bool);
#define GB_BITWISE_FUNCTOR(Name, op, text, expr)                                \
  struct Name : BinaryOp<BinaryKind::Promote> {                                 \
    static constexpr const char* name = op;                                     \
    static constexpr const char* formula = text;                                \
    static void check(const char* o, const Tensor& self, const Tensor& other) { \
      check_integer_operands(o, self, other, /*allow_bool=*/true);              \
    }                                                                           \
    template <class C>                                                          \
    GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {                         \
      if constexpr (std::is_integral_v<C>) return static_cast<C>(expr);         \
      else return x;                                                            \
    }                                                                           \
  };
GB_BITWISE_FUNCTOR(BitwiseAnd, "bitwise_and", "self & other", x& y)
GB_BITWISE_FUNCTOR(BitwiseOr, "bitwise_or", "self | other", x | y)
GB_BITWISE_FUNCTOR(BitwiseXor, "bitwise_xor", "self ^ other", x ^ y)
#undef GB_BITWISE_FUNCTOR

// A shift by a negative count or by the width of the type or more gives 0 (left), or fills with the
// sign bit (right), as PyTorch defines them; shifting left works on the unsigned bits (no overflow).
template <class C>
GLASSBOX_HOST_DEVICE bool shift_out_of_range(C y) {
  constexpr C bits = static_cast<C>(sizeof(C) * 8);
  if constexpr (std::is_signed_v<C>) return y < 0 || y >= bits;
  else return y >= bits;
}
struct LeftShift : BinaryOp<BinaryKind::Promote> {
  static constexpr const char* name = "bitwise_left_shift";
  static constexpr const char* formula = "self << other";
  static void check(const char* op, const Tensor& self, const Tensor& other) {
    check_integer_operands(op, self, other, /*allow_bool=*/false);
  }
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
      using U = std::make_unsigned_t<C>;
      return shift_out_of_range(y) ? C(0) : static_cast<C>(static_cast<U>(static_cast<U>(x) << y));
    } else {
      return x;
    }
  }
};
struct RightShift : BinaryOp<BinaryKind::Promote> {
  static constexpr const char* name = "bitwise_right_shift";
  static constexpr const char* formula = "self >> other";
  static void check(const char* op, const Tensor& self, const Tensor& other) {
    check_integer_operands(op, self, other, /*allow_bool=*/false);
  }
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
      if (!shift_out_of_range(y)) return static_cast<C>(x >> y);
      if constexpr (std::is_signed_v<C>) return x < 0 ? C(-1) : C(0);
      else return C(0);
    } else {
      return x;
    }
  }
};

// ---- remainder (the sign of the divisor, Python's %) and fmod (the sign of the dividend, C's fmod).
// An integer division by zero is refused before the loop (it reads the divisor's values); the loop
// still guards it, and the one overflowing quotient (INT_MIN / -1), whose remainder is 0.
void check_integer_divisor(const char* op, const Tensor& self, const Tensor& other);
struct Remainder : BinaryOp<BinaryKind::Numeric> {
  static constexpr const char* name = "remainder";
  static constexpr const char* formula = "self - floor(self / other) * other";
  static void check(const char* op, const Tensor& self, const Tensor& other) { check_integer_divisor(op, self, other); }
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    if constexpr (std::is_floating_point_v<C>) {
      C m = std::fmod(x, y);
      if (m != C(0) && ((y < C(0)) != (m < C(0)))) m += y;
      return m;
    } else if constexpr (std::is_signed_v<C>) {
      if (y == C(0) || y == C(-1)) return C(0);
      C r = static_cast<C>(x % y);
      if (r != C(0) && ((r < C(0)) != (y < C(0)))) r = static_cast<C>(r + y);
      return r;
    } else {
      return y == C(0) ? C(0) : static_cast<C>(x % y);
    }
  }
};
struct Fmod : BinaryOp<BinaryKind::Numeric> {
  static constexpr const char* name = "fmod";
  static constexpr const char* formula = "self - trunc(self / other) * other";
  static void check(const char* op, const Tensor& self, const Tensor& other) { check_integer_divisor(op, self, other); }
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    if constexpr (std::is_floating_point_v<C>) return std::fmod(x, y);
    else if constexpr (std::is_signed_v<C>) return (y == C(0) || y == C(-1)) ? C(0) : static_cast<C>(x % y);
    else return y == C(0) ? C(0) : static_cast<C>(x % y);
  }
};

// ---- more binary math: integers and bool compute in the default float dtype (copysign, atan2) or
// are refused (logaddexp)
struct Copysign : BinaryOp<BinaryKind::IntToFloat> {
  static constexpr const char* name = "copysign";
  static constexpr const char* formula = "|self| * sign bit of other";
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    return std::copysign(x, y);
  }
};
struct Atan2 : BinaryOp<BinaryKind::IntToFloat> {
  static constexpr const char* name = "atan2";
  static constexpr const char* formula = "atan2(self, other)";
  static constexpr bool transcendental = true;
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    return std::atan2(x, y);
  }
};
// max + log(1 + exp(-|x - y|)); equal infinities give themselves rather than inf - inf = NaN.
struct LogAddExp : BinaryOp<BinaryKind::FloatOnly> {
  static constexpr const char* name = "logaddexp";
  static constexpr const char* formula = "log(exp(self) + exp(other))";
  static constexpr bool transcendental = true;
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    if (x == y && (x - x != x - x) && !is_nan(x)) return x;
    const C m = x < y ? y : x;
    const C d = x < y ? x - y : y - x;
    return is_nan(d) ? d : m + std::log1p(std::exp(d));
  }
};
struct LogAddExp2 : BinaryOp<BinaryKind::FloatOnly> {
  static constexpr const char* name = "logaddexp2";
  static constexpr const char* formula = "log2(2^self + 2^other)";
  static constexpr bool transcendental = true;
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    if (x == y && (x - x != x - x) && !is_nan(x)) return x;
    const C m = x < y ? y : x;
    const C d = x < y ? x - y : y - x;
    return is_nan(d) ? d : m + std::log1p(std::exp2(d)) / C(0.69314718055994530942);
  }
};

// isclose: |self - other| <= atol + rtol * |other|, or equal (infinities included); NaNs are close
// to each other only with equal_nan. Integers compare in double.
void check_isclose(const char* op, const Tensor& self, const Tensor& other, double rtol, double atol);
struct IsClose : BinaryOp<BinaryKind::Compare> {
  static constexpr const char* name = "isclose";
  static constexpr const char* formula = "self == other || |self - other| <= atol + rtol * |other|";
  template <class C>
  struct Fn {
    double rtol, atol;
    bool equal_nan;
    GLASSBOX_HOST_DEVICE bool operator()(C x, C y) const {
      if constexpr (std::is_same_v<C, bool>) {
        return x == y;
      } else {
        if (x == y) return true;
        const double a = static_cast<double>(x), b = static_cast<double>(y);
        if (a != a || b != b) return equal_nan && a != a && b != b;
        if (a - a != a - a || b - b != b - b) return false;  // an infinity, not equal to the other
        const double diff = a < b ? b - a : a - b;
        return diff <= atol + rtol * (b < 0 ? -b : b);
      }
    }
  };
  static void check(const char* op, const Tensor& self, const Tensor& other, double rtol, double atol, bool) {
    check_isclose(op, self, other, rtol, atol);
  }
  template <class C, class Run>
  static void with(const Run& run, const Tensor&, const Tensor&, double rtol, double atol, bool equal_nan) {
    run(Fn<C>{rtol, atol, equal_nan});
  }
};

// ---- three-operand formulas: lerp (floating point, one dtype), addcmul and addcdiv (promoted)
TensorIterator lerp_iterator(const char* op, const Tensor& self, const Tensor& end, const Tensor& weight, Tensor& out);
TensorIterator addc_iterator(const char* op, bool divides, const Tensor& self, const Tensor& tensor1,
                             const Tensor& tensor2, Tensor& out);
// self + weight * (end - self), from the nearer end so that weight 1 gives end exactly.
struct Lerp : BinaryOp<BinaryKind::FloatOnly> {
  static constexpr const char* name = "lerp";
  static constexpr const char* formula = "self + weight * (end - self)";
  static void check(const char*, const Tensor&, const Tensor&, const Tensor&) {}
  static TensorIterator plan(const char* op, Tensor& out, const Tensor& self, const Tensor& end, const Tensor& weight) {
    return lerp_iterator(op, self, end, weight, out);
  }
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y, C w) const {
    return (w < C(0.5) && w > C(-0.5)) ? x + w * (y - x) : y - (y - x) * (C(1) - w);
  }
};
struct Addcmul : BinaryOp<BinaryKind::Numeric> {
  static constexpr const char* name = "addcmul";
  static constexpr const char* formula = "self + value * tensor1 * tensor2";
  template <class C>
  struct Fn {
    C value;
    GLASSBOX_HOST_DEVICE C operator()(C x, C a, C b) const { return static_cast<C>(x + value * a * b); }
  };
  static void check(const char*, const Tensor&, const Tensor&, const Tensor&, const Scalar&) {}
  static TensorIterator plan(const char* op, Tensor& out, const Tensor& self, const Tensor& tensor1,
                             const Tensor& tensor2, const Scalar&) {
    return addc_iterator(op, false, self, tensor1, tensor2, out);
  }
  template <class C, class Run>
  static void with(const Run& run, const Tensor&, const Tensor&, const Tensor&, const Scalar& value) {
    run(Fn<C>{scalar_as<C>(value)});
  }
};
struct Addcdiv : BinaryOp<BinaryKind::Numeric> {
  static constexpr const char* name = "addcdiv";
  static constexpr const char* formula = "self + value * tensor1 / tensor2";
  template <class C>
  struct Fn {
    C value;
    GLASSBOX_HOST_DEVICE C operator()(C x, C a, C b) const {
      if constexpr (std::is_floating_point_v<C>) return x + value * a / b;
      else return x;  // refused by addc_iterator: integer division is not addcdiv's
    }
  };
  static void check(const char*, const Tensor&, const Tensor&, const Tensor&, const Scalar&) {}
  static TensorIterator plan(const char* op, Tensor& out, const Tensor& self, const Tensor& tensor1,
                             const Tensor& tensor2, const Scalar&) {
    return addc_iterator(op, true, self, tensor1, tensor2, out);
  }
  template <class C, class Run>
  static void with(const Run& run, const Tensor&, const Tensor&, const Tensor&, const Scalar& value) {
    run(Fn<C>{scalar_as<C>(value)});
  }
};

// ---- pow. Floating point through pow, with exact shortcuts for a one-element exponent of 2 or -1;
// integers multiply by squaring, wrapping on overflow, and a negative exponent gives 0 except for
// the bases 1 and -1.
struct IntegerPow {
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C base, C exponent) const {
    if constexpr (std::is_signed_v<C>) {
      if (exponent < 0) {
        if (base == 1) return 1;
        if (base == -1) return (exponent & 1) ? C(-1) : C(1);
        return 0;
      }
    }
    using U = std::make_unsigned_t<C>;  // unsigned arithmetic wraps where signed overflow is undefined
    U result = 1, b = static_cast<U>(base);
    for (U e = static_cast<U>(exponent); e != 0; e >>= 1) {
      if (e & 1) result = static_cast<U>(result * b);
      b = static_cast<U>(b * b);
    }
    return static_cast<C>(result);
  }
};
struct Square {
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C) const {
    return x * x;
  }
};
struct Reciprocal {
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C) const {
    return C(1) / x;
  }
};
struct FloatPow {
  static constexpr bool transcendental = true;
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    return std::pow(x, y);
  }
};
struct Pow : BinaryOp<BinaryKind::Numeric> {
  static constexpr const char* name = "pow";
  static constexpr const char* formula = "self ^ exponent";
  template <class C, class Run>
  static void with(const Run& run, const Tensor&, const Tensor& exponent) {
    if constexpr (std::is_floating_point_v<C>) {
      const std::optional<double> constant = one_element_value(exponent);
      if (constant == 2.0) run(Square{});
      else if (constant == -1.0) run(Reciprocal{});
      else run(FloatPow{});
    } else {
      run(IntegerPow{});
    }
  }
};

// ---- comparisons and logical ops: computed in the promoted dtype, bool result
#define GB_COMPARE_FUNCTOR(Name, op, text, expr)           \
  struct Name : BinaryOp<BinaryKind::Compare> {            \
    static constexpr const char* name = op;                \
    static constexpr const char* formula = text;           \
    template <class C>                                     \
    GLASSBOX_HOST_DEVICE bool operator()(C x, C y) const { \
      return expr;                                         \
    }                                                      \
  };
GB_COMPARE_FUNCTOR(Eq, "eq", "self == other", x == y)
GB_COMPARE_FUNCTOR(Ne, "ne", "self != other", x != y)
GB_COMPARE_FUNCTOR(Lt, "lt", "self < other", x < y)
GB_COMPARE_FUNCTOR(Le, "le", "self <= other", x <= y)
GB_COMPARE_FUNCTOR(Gt, "gt", "self > other", x > y)
GB_COMPARE_FUNCTOR(Ge, "ge", "self >= other", x >= y)
// Nonzero (NaN included) is true.
GB_COMPARE_FUNCTOR(LogicalAnd, "logical_and", "self != 0 && other != 0", x != C(0) && y != C(0))
GB_COMPARE_FUNCTOR(LogicalOr, "logical_or", "self != 0 || other != 0", x != C(0) || y != C(0))
GB_COMPARE_FUNCTOR(LogicalXor, "logical_xor", "(self != 0) != (other != 0)", (x != C(0)) != (y != C(0)))
#undef GB_COMPARE_FUNCTOR

// ---- clamp by tensors. A NaN in self or in a bound gives NaN (as PyTorch); with min > max every
// element becomes max.
struct ClampMin {
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C lo) const {
    return is_nan(x) ? x : is_nan(lo) ? lo : x < lo ? lo : x;
  }
};
struct ClampMax {
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C hi) const {
    return is_nan(x) ? x : is_nan(hi) ? hi : x > hi ? hi : x;
  }
};
struct ClampBoth {
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C lo, C hi) const {
    return ClampMax{}(ClampMin{}(x, lo), hi);
  }
};
struct Clamp : BinaryOp<BinaryKind::Numeric> {
  static constexpr const char* name = "clamp";
  static constexpr const char* formula = "min(max(self, min), max)";
  static void check(const char*, const Tensor&, const std::optional<Tensor>&, const std::optional<Tensor>&) {}
  static TensorIterator plan(const char* op, Tensor& out, const Tensor& self, const std::optional<Tensor>& min,
                             const std::optional<Tensor>& max) {
    return clamp_iterator(op, self, min, max, out);
  }
  template <class C, class Run>
  static void with(const Run& run, const Tensor&, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
    const bool has_min = min && min->defined(), has_max = max && max->defined();
    if (has_min && has_max) run(ClampBoth{});
    else if (has_min) run(ClampMin{});
    else run(ClampMax{});
  }
};

// ---- the element-wise gradients autograd's formulas call: `v` is the forward's output (sigmoid,
// tanh) or its input (silu, gelu)
#define GB_GRAD_FUNCTOR(Name, op, text, expr)           \
  struct Name : BinaryOp<BinaryKind::FloatOnly> {       \
    static constexpr const char* name = op;             \
    static constexpr const char* formula = text;        \
    static constexpr bool transcendental = true;        \
    template <class C>                                  \
    GLASSBOX_HOST_DEVICE C operator()(C g, C v) const { \
      expr                                              \
    }                                                   \
  };
GB_GRAD_FUNCTOR(SigmoidBackward, "sigmoid_backward", "grad * result * (1 - result)", return g * v * (C(1) - v);)
GB_GRAD_FUNCTOR(TanhBackward, "tanh_backward", "grad * (1 - result^2)", return g * (C(1) - v * v);)
GB_GRAD_FUNCTOR(SiluBackward, "silu_backward", "grad * s * (1 + self * (1 - s)), s = sigmoid(self)",
                const C s = C(1) / (C(1) + std::exp(-v));
                return g * s * (C(1) + v * (C(1) - s));)
GB_GRAD_FUNCTOR(GeluErfBackward, "gelu_backward", "grad * (cdf(self) + self * pdf(self))",
                const C cdf = C(0.5) * (C(1) + std::erf(v * C(kSqrtHalf)));
                const C pdf = C(kInvSqrt2Pi) * std::exp(C(-0.5) * v * v); return g * (cdf + v * pdf);)
GB_GRAD_FUNCTOR(GeluTanhBackward, "gelu_backward(tanh)", "grad * d/dself gelu(tanh)(self)", const C v2 = v * v;
                const C t = std::tanh(C(kSqrt2OverPi) * (v + C(kGeluTanhCubic) * v2 * v));
                const C dinner = C(kSqrt2OverPi) * (C(1) + C(3 * kGeluTanhCubic) * v2);
                return g * (C(0.5) * (C(1) + t) + C(0.5) * v * (C(1) - t * t) * dinner);)
#undef GB_GRAD_FUNCTOR
struct GeluBackward : BinaryOp<BinaryKind::FloatOnly> {
  static constexpr const char* name = "gelu_backward";
  static constexpr const char* formula = "gelu_backward or gelu_backward(tanh), by approximate";
  static void check(const char* op, const Tensor&, const Tensor&, std::string_view approximate) {
    gelu_uses_tanh(op, approximate);
  }
  template <class C, class Run>
  static void with(const Run& run, const Tensor&, const Tensor&, std::string_view approximate) {
    if (approximate == "tanh") run(GeluTanhBackward{});
    else run(GeluErfBackward{});
  }
};
// relu's gradient: grad where self > threshold, else 0 (any numeric dtype).
struct ThresholdBackward : BinaryOp<BinaryKind::Numeric> {
  static constexpr const char* name = "threshold_backward";
  static constexpr const char* formula = "self <= threshold ? 0 : grad";
  template <class C>
  struct Fn {
    C threshold;
    GLASSBOX_HOST_DEVICE C operator()(C g, C x) const { return x <= threshold ? C(0) : g; }
  };
  template <class C, class Run>
  static void with(const Run& run, const Tensor&, const Tensor&, const Scalar& threshold) {
    run(Fn<C>{static_cast<C>(threshold.to_double())});
  }
};

}  // namespace glassbox::functors
