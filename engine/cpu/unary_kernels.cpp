// Unary math on the CPU: abs, sign, neg, sqrt, rsqrt, exp, log, log1p, expm1, sin, cos, tanh and
// logical_not, each functional, in-place and out=. The front end (engine/ops/pointwise_iterator.h)
// picks the dtypes; each functor here computes one element in the compute type.
#include <cmath>
#include <type_traits>

#include "engine/cpu/pointwise_kernel.h"
#include "engine/cpu/vec_math.h"
#include "engine/ops/elementwise_shape.h"
#include "glassbox/ops/native/abs.h"
#include "glassbox/ops/native/cos.h"
#include "glassbox/ops/native/exp.h"
#include "glassbox/ops/native/expm1.h"
#include "glassbox/ops/native/log.h"
#include "glassbox/ops/native/log1p.h"
#include "glassbox/ops/native/logical_not.h"
#include "glassbox/ops/native/neg.h"
#include "glassbox/ops/native/rsqrt.h"
#include "glassbox/ops/native/sign.h"
#include "glassbox/ops/native/sin.h"
#include "glassbox/ops/native/sqrt.h"
#include "glassbox/ops/native/tanh.h"

namespace glassbox::native {

namespace {
using cpu::kTranscendentalGrain;

struct Abs {
  static constexpr UnaryKind kind = unary_kinds::abs;
  static constexpr int64_t grain = kDefaultGrain;
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>) return x;
    else if constexpr (std::is_floating_point_v<T>) return std::fabs(x);
    else return static_cast<T>(x < 0 ? -x : x);
  }
};
// -1, 0 or 1; NaN gives 0, as in PyTorch (both comparisons are false); bool keeps its value.
struct Sign {
  static constexpr UnaryKind kind = unary_kinds::sign;
  static constexpr int64_t grain = kDefaultGrain;
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>) return x;
    else return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};
struct Neg {
  static constexpr UnaryKind kind = unary_kinds::neg;
  static constexpr int64_t grain = kDefaultGrain;
  template <class T>
  T operator()(T x) const { return static_cast<T>(-x); }
};
// Float-only math: T is float (also for float16/bfloat16) or double.
#define GB_FLOAT_FUNCTOR(Name, op, expr, g)                      \
  struct Name {                                                  \
    static constexpr UnaryKind kind = unary_kinds::op;           \
    static constexpr int64_t grain = g;                          \
    template <class T>                                           \
    T operator()(T x) const { return expr; }                     \
  };
GB_FLOAT_FUNCTOR(Sqrt, sqrt, std::sqrt(x), kDefaultGrain)
GB_FLOAT_FUNCTOR(Rsqrt, rsqrt, T(1) / std::sqrt(x), kDefaultGrain)
#undef GB_FLOAT_FUNCTOR
// Transcendentals: float takes the vectorisable forms of engine/cpu/vec_math.h, double the C
// library's.
#define GB_MATH_FUNCTOR(Name, op, f32, libm)                     \
  struct Name {                                                  \
    static constexpr UnaryKind kind = unary_kinds::op;           \
    static constexpr int64_t grain = kTranscendentalGrain;       \
    template <class T>                                           \
    T operator()(T x) const {                                    \
      if constexpr (std::is_same_v<T, float>) return f32(x);     \
      else return libm(x);                                       \
    }                                                            \
  };
GB_MATH_FUNCTOR(Exp, exp, cpu::exp_f32, std::exp)
GB_MATH_FUNCTOR(Log, log, cpu::log_f32, std::log)
GB_MATH_FUNCTOR(Log1p, log1p, cpu::log1p_f32, std::log1p)
GB_MATH_FUNCTOR(Expm1, expm1, cpu::expm1_f32, std::expm1)
GB_MATH_FUNCTOR(Tanh, tanh, cpu::tanh_f32, std::tanh)
#undef GB_MATH_FUNCTOR
// sin and cos: the float forms reduce arguments up to cpu::kTrigFastMax; larger ones (and
// infinities) take the C library's path (the loop checks a tile before vectorising it).
#define GB_TRIG_FUNCTOR(Name, op, f32, libm)                                   \
  struct Name {                                                                \
    static constexpr UnaryKind kind = unary_kinds::op;                         \
    static constexpr int64_t grain = kTranscendentalGrain;                     \
    static bool needs_exact(float x) { return std::fabs(x) > cpu::kTrigFastMax; } \
    static float fast(float x) { return f32(x); }                              \
    template <class T>                                                         \
    T operator()(T x) const {                                                  \
      if constexpr (std::is_same_v<T, float>) return needs_exact(x) ? libm(x) : f32(x); \
      else return libm(x);                                                     \
    }                                                                          \
  };
GB_TRIG_FUNCTOR(Sin, sin, cpu::sin_f32, std::sin)
GB_TRIG_FUNCTOR(Cos, cos, cpu::cos_f32, std::cos)
#undef GB_TRIG_FUNCTOR
// Any dtype in, bool out: zero is false, everything else (NaN included) true.
struct LogicalNot {
  static constexpr UnaryKind kind = unary_kinds::logical_not;
  static constexpr int64_t grain = kDefaultGrain;
  template <class T>
  bool operator()(T x) const { return x == T(0); }
};
}  // namespace

GB_UNARY_CPU_KERNELS(abs, Abs)
GB_UNARY_CPU_KERNELS(sign, Sign)
GB_UNARY_CPU_KERNELS(sqrt, Sqrt)
GB_UNARY_CPU_KERNELS(rsqrt, Rsqrt)
GB_UNARY_CPU_KERNELS(exp, Exp)
GB_UNARY_CPU_KERNELS(log, Log)
GB_UNARY_CPU_KERNELS(log1p, Log1p)
GB_UNARY_CPU_KERNELS(expm1, Expm1)
GB_UNARY_CPU_KERNELS(sin, Sin)
GB_UNARY_CPU_KERNELS(cos, Cos)
GB_UNARY_CPU_KERNELS(tanh, Tanh)
GB_UNARY_CPU_KERNELS(logical_not, LogicalNot)

// neg itself lives with the arithmetic (binary_kernels.cpp); these are its in-place and out= forms.
Tensor& neg_cpu_(Tensor& self) {
  check_not_bool("neg_", self, "use logical_not_ instead");
  return cpu::run_unary<Neg>("neg_", self, self);
}
Tensor& neg_out_cpu(const Tensor& self, Tensor& out) {
  check_not_bool("neg.out", self, "use logical_not instead");
  return cpu::run_unary<Neg>("neg.out", self, out);
}

}  // namespace glassbox::native
