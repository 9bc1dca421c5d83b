#pragma once
// The CPU compute of the structured element-wise operators: given the front end's iterator
// (engine/ops/structured_pointwise.h), visit the dtypes the family supports (so float-only math is
// never instantiated for integers) and run the operator's functor (engine/ops/pointwise_functors.h)
// through the vectorised loops of loops.h. float32 math with a vectorisable form in vec_math.h
// (exp, log, tanh, sigmoid, ...) computes through it; everything else calls the functor itself.
#include <type_traits>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cpu/loops.h"
#include "engine/cpu/vec_math.h"
#include "engine/ops/pointwise_functors.h"

namespace glassbox::cpu {

// f.template operator()<T>() for the four floating-point dtypes.
template <class F>
void visit_floating_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float32: f.template operator()<float>(); return;
    case ScalarType::Float64: f.template operator()<double>(); return;
    case ScalarType::Float16: f.template operator()<Half>(); return;
    case ScalarType::BFloat16: f.template operator()<BFloat16>(); return;
    default: GB_CHECK(false, "internal: ", to_string(t), " reached a floating-point-only loop");
  }
}

// Every numeric dtype except bool.
template <class F>
void visit_numeric_type(ScalarType t, F&& f) {
  GB_CHECK(t != ScalarType::Bool, "internal: bool reached a numeric-only loop");
  visit_scalar_type(t, [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) f.template operator()<T>();
  });
}

// Autograd's version counter notices the write. (An output the kernel allocated itself has no
// reader to notify: callers skip it.)
inline void mark_written(const Tensor& out) {
  if (out.unsafe_impl()->storage()) out.unsafe_impl()->storage()->bump_version();
}

// The dtypes a family's loops are instantiated for.
template <class Fn, class F>
void visit_family_types(ScalarType t, F&& f) {
  if constexpr (Fn::arity == 1) {
    if constexpr (Fn::kind == UnaryKind::IntToFloat || Fn::kind == UnaryKind::FloatOnly) visit_floating_type(t, f);
    else if constexpr (Fn::kind == UnaryKind::Keep) visit_numeric_type(t, f);
    else visit_scalar_type(t, f);
  } else {
    if constexpr (Fn::kind == BinaryKind::IntToFloat || Fn::kind == BinaryKind::FloatOnly) visit_floating_type(t, f);
    else if constexpr (Fn::kind == BinaryKind::Numeric) visit_numeric_type(t, f);
    else visit_scalar_type(t, f);
  }
}

// The float32 forms of vec_math.h, by functor. FloatForm<F>::apply(x) computes what F{}(x) does.
template <class F>
struct FloatForm {};
#define GB_FLOAT_FORM(Functor, expr)             \
  template <>                                    \
  struct FloatForm<functors::Functor> {          \
    static float apply(float x) { return expr; } \
  };
GB_FLOAT_FORM(Exp, exp_f32(x))
GB_FLOAT_FORM(Log, log_f32(x))
GB_FLOAT_FORM(Log1p, log1p_f32(x))
GB_FLOAT_FORM(Expm1, expm1_f32(x))
GB_FLOAT_FORM(Tanh, tanh_f32(x))
GB_FLOAT_FORM(Sigmoid, sigmoid_f32(x))
GB_FLOAT_FORM(Silu, x* sigmoid_f32(x))
GB_FLOAT_FORM(GeluErf, x* normal_cdf_f32(x))
// (1 + tanh(u)) / 2 = sigmoid(2u), which does not cancel for x << 0.
GB_FLOAT_FORM(GeluTanh,
              x* sigmoid_f32(2.0f * float(functors::kSqrt2OverPi) * (x + float(functors::kGeluTanhCubic) * x * x * x)))
#undef GB_FLOAT_FORM
// The same for the gradient functors that call the C library: f(grad, self).
template <class F>
struct BinaryFloatForm {};
template <>
struct BinaryFloatForm<functors::SiluBackward> {
  static float apply(float g, float v) {
    const float s = sigmoid_f32(v);
    return g * s * (1.0f + v * (1.0f - s));
  }
};
template <>
struct BinaryFloatForm<functors::GeluErfBackward> {
  static float apply(float g, float v) {  // g (cdf(v) + v pdf(v)), both from one e^(-v^2/2)
    const vec_math::NormalTail n = vec_math::normal_tail(v, true);
    const float cdf = v <= 0.0f ? 0.5f * n.tail : 1.0f - 0.5f * n.tail;
    return g * (cdf + v * (float(functors::kInvSqrt2Pi) * n.gaussian));
  }
};
template <>
struct BinaryFloatForm<functors::GeluTanhBackward> {
  static float apply(float g, float v) {
    const float v2 = v * v;
    const float t = tanh_f32(float(functors::kSqrt2OverPi) * (v + float(functors::kGeluTanhCubic) * v2 * v));
    const float dinner = float(functors::kSqrt2OverPi) * (1.0f + float(3 * functors::kGeluTanhCubic) * v2);
    return g * (0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * dinner);
  }
};
// sin and cos: the float forms reduce arguments up to kTrigFastMax; larger ones (and infinities)
// take the functor's (the C library's) path, a tile at a time (guarded_unary_loop).
template <class F, float (*kFast)(float)>
struct GuardedForm {
  static bool needs_exact(float x) { return std::fabs(x) > kTrigFastMax; }
  static float fast(float x) { return kFast(x); }
  float operator()(float x) const { return needs_exact(x) ? F{}(x) : kFast(x); }
};
template <>
struct FloatForm<functors::Sin> : GuardedForm<functors::Sin, sin_f32> {};
template <>
struct FloatForm<functors::Cos> : GuardedForm<functors::Cos, cos_f32> {};

template <class F>
constexpr bool is_transcendental() {
  if constexpr (requires { F::transcendental; }) return F::transcendental;
  else return false;
}

// out[i] = f(in...) over the iterator, f an element functor of Fn on compute type opmath_t<T>.
template <class Fn, class T, class F>
void run_loop(TensorIterator& it, const F& f) {
  using C = opmath_t<T>;
  using Out = std::conditional_t<functors::has_bool_result<Fn>(), bool, T>;
  constexpr bool kHeavy = is_transcendental<F>();
  constexpr int64_t grain = kHeavy ? kTranscendentalGrain : kDefaultGrain;
  if constexpr (std::is_invocable_v<const F&, C>) {
    if constexpr (std::is_same_v<C, float> && requires { FloatForm<F>::needs_exact(0.0f); }) {
      // The tile check reads float32 storage; float16/bfloat16 check element by element.
      if constexpr (std::is_same_v<T, float>) guarded_unary_loop(it, FloatForm<F>{}, grain);
      else vectorized_unary_loop<Out, T, kHeavy>(it, FloatForm<F>{}, grain);
    } else if constexpr (std::is_same_v<C, float> && requires { FloatForm<F>::apply(0.0f); }) {
      vectorized_unary_loop<Out, T, kHeavy>(
          it, [](float x) { return FloatForm<F>::apply(x); }, grain);
    } else {
      // Transcendentals (arithmetic-bound) get the AVX-512 copy too.
      vectorized_unary_loop<Out, T, kHeavy>(it, f, grain);
    }
  } else if constexpr (std::is_invocable_v<const F&, C, C>) {
    if constexpr (std::is_same_v<C, float> && requires { BinaryFloatForm<F>::apply(0.0f, 0.0f); }) {
      binary_loop_grain<Out, T, true>(
          it, [](float g, float v) { return BinaryFloatForm<F>::apply(g, v); }, grain);
    } else {
      binary_loop_grain<Out, T>(it, f, grain);
    }
  } else {
    ternary_loop<Out, T, T, T>(it, f, grain);
  }
}

// Same-shape contiguous CPU operands of one dtype (no Python numbers), few enough for one thread:
// nothing broadcasts, converts or splits, the result dtype is theirs (true division takes this path
// for floating point only), and for a handful of elements building a TensorIterator would cost
// several times the arithmetic.
template <class Fn>
bool direct_operands(const Tensor& self, const Tensor& other) {
  const TensorImpl* a = self.unsafe_impl();
  const TensorImpl* b = other.unsafe_impl();
  return a && b && a->dtype() == b->dtype() && (Fn::kind != BinaryKind::IntToFloat || is_floating_point(a->dtype())) &&
         a->device().type == DeviceType::CPU && b->device().type == DeviceType::CPU && a->is_contiguous() &&
         b->is_contiguous() && !a->is_wrapped_number() && !b->is_wrapped_number() && a->numel() <= kDefaultGrain &&
         a->sizes() == b->sizes();
}

struct PointwiseCompute {
  template <class... Args>
  static int guard(const Args&...) {
    return 0;
  }

  // The small same-shape path of the functors that ask for it (arithmetic): true when it ran.
  template <class Fn, class... Args>
  static bool direct(Tensor& out, const Args&... args) {
    if constexpr (Fn::direct) {
      return [&](const Tensor& self, const Tensor& other, const auto&...) {
        if (!direct_operands<Fn>(self, other)) return false;
        out = empty_tensor(self.sizes(), self.dtype(), self.device());
        visit_scalar_type(self.dtype(), [&]<class T>() {
          functors::with_functor<Fn, opmath_t<T>>(
              [&](const auto& f) {
            binary_contiguous<T, T>(out.data<T>(), self.data<T>(), other.data<T>(), out.numel(), f);
              },
              args...);
        });
        return true;
      }(args...);
    } else {
      return false;
    }
  }

  template <class Fn, class... Args>
  static void compute(TensorIterator& it, const Args&... args) {
    visit_family_types<Fn>(it.compute_dtype(), [&]<class T>() {
      functors::with_functor<Fn, opmath_t<T>>([&](const auto& f) { run_loop<Fn, T>(it, f); }, args...);
    });
  }

  static void mark_written(const Tensor& out) { cpu::mark_written(out); }
};

}  // namespace glassbox::cpu
