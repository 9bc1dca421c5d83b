#pragma once
// What the point-wise CPU kernel files share: visiting only the dtypes a family supports (so
// float-only math is never instantiated for integers), running a unary functor in all three
// operator forms (functional, in-place, out=), and marking written outputs.
#include "engine/core/error.h"
#include "engine/cpu/loops.h"
#include "engine/ops/pointwise_iterator.h"

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

// A unary functor: `Fn{}(x)` on the compute type; Fn::kind decides the dtypes.
template <class Fn>
Tensor& run_unary(const char* op, const Tensor& self, Tensor& out, const Fn& fn = Fn{}) {
  const bool allocated = !out.defined();
  TensorIterator it = unary_iterator(op, Fn::kind, self, out);
  // Transcendentals (the functors with the transcendental grain) are bound by arithmetic: their
  // loops get the AVX-512 copy too.
  constexpr bool kWide = Fn::grain == kTranscendentalGrain;
  auto body = [&]<class T>() {
    if constexpr (Fn::kind == UnaryKind::Logical) vectorized_unary_loop<bool, T>(it, fn, Fn::grain);
    else if constexpr (std::is_same_v<T, float> && requires { Fn::needs_exact(0.0f); })
      guarded_unary_loop(it, fn, Fn::grain);
    else vectorized_unary_loop<T, T, kWide>(it, fn, Fn::grain);
  };
  if constexpr (Fn::kind == UnaryKind::IntToFloat || Fn::kind == UnaryKind::FloatOnly) visit_floating_type(it.compute_dtype(), body);
  else if constexpr (Fn::kind == UnaryKind::Keep) visit_numeric_type(it.compute_dtype(), body);
  else visit_scalar_type(it.compute_dtype(), body);
  if (!allocated) mark_written(out);
  return out;
}

}  // namespace glassbox::cpu

// The three forms of a unary operator `name` whose functor is `Fn`: name_cpu, name_cpu_ and
// name_out_cpu, as ops.yaml registers them.
#define GB_UNARY_CPU_KERNELS(name, Fn)                                                          \
  Tensor name##_cpu(const Tensor& self) {                                                       \
    Tensor out;                                                                                 \
    cpu::run_unary<Fn>(#name, self, out);                                                       \
    return out;                                                                                 \
  }                                                                                             \
  Tensor& name##_cpu_(Tensor& self) { return cpu::run_unary<Fn>(#name "_", self, self); }       \
  Tensor& name##_out_cpu(const Tensor& self, Tensor& out) { return cpu::run_unary<Fn>(#name ".out", self, out); }
