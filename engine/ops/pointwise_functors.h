#pragma once
// The element formulas of the structured element-wise operators, each written once as a
// host/device functor on the compute type C (float for float16/bfloat16): the CPU loops
// (engine/cpu/pointwise_kernel.h) and the CUDA launcher (engine/cuda/pointwise_launch.cuh) both
// call them. Each operator's functor has a `name` and a `formula` (what the tools and a fusing
// compiler read) and its family (engine/ops/structured_pointwise.h); ops.yaml names it in
// `structured:`.
#include <cmath>
#include <cstdint>
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
#undef GB_FLOAT_FUNCTOR

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
