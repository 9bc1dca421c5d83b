#pragma once
// The one front end of the structured element-wise operators (`structured:` in ops.yaml). codegen
// writes every variant of every backend as one call:
//   structured_pointwise<functors::Add, cpu::PointwiseCompute>("add_", self, self, other, alpha)
// which checks the arguments, builds the TensorIterator (output shape, dtype, strides; every
// error text) and hands it to the backend's compute. The Meta kernel is the same call with
// MetaCompute, which computes nothing, so CPU, CUDA and Meta agree on all of it.
//
// A functor (engine/ops/pointwise_functors.h) derives from its family, UnaryOp<kind> or
// BinaryOp<kind>, which gives its dtype rule and its iterator; it adds `name` and `formula`, the
// element formula as a host/device call operator on the compute type, and optionally
//   static void check(op, args...)             argument checks before the iterator
//   static TensorIterator plan(op, out, args...) an iterator of its own (clamp)
//   template <class C> static void with(run, args...)  run(f) with the element functor to use
//                                                        (parameters, exact special cases); the
//                                                        family's default runs the functor itself
#include <type_traits>

#include "engine/core/host_device.h"
#include "engine/ops/pointwise_iterator.h"

namespace glassbox {

namespace functors {

// What a family's default `with` returns: the functor is its own element functor (Fn{}).
struct SelfElementFunctor {};

template <UnaryKind K>
struct UnaryOp {
  static constexpr UnaryKind kind = K;
  static constexpr int arity = 1;
  static constexpr bool transcendental = false;  // costs tens of cycles per element (exp, erf, ...)
  static constexpr bool direct = false;          // the CPU's small same-shape path applies
  template <class... Extra>
  static void check(const char*, const Tensor&, const Extra&...) {}
  template <class... Extra>
  static TensorIterator plan(const char* op, Tensor& out, const Tensor& self, const Extra&...) {
    return unary_iterator(op, K, self, out);
  }
  template <class C, class Run, class... Args>
  static SelfElementFunctor with(const Run&, const Args&...) {
    return {};
  }
};

template <BinaryKind K>
struct BinaryOp {
  static constexpr BinaryKind kind = K;
  static constexpr int arity = 2;
  static constexpr bool transcendental = false;
  static constexpr bool direct = false;
  template <class... Extra>
  static void check(const char*, const Tensor&, const Tensor&, const Extra&...) {}
  template <class... Extra>
  static TensorIterator plan(const char* op, Tensor& out, const Tensor& self, const Tensor& other, const Extra&...) {
    return binary_iterator(op, K, self, other, out);
  }
  template <class C, class Run, class... Args>
  static SelfElementFunctor with(const Run&, const Args&...) {
    return {};
  }
};

// run(f) with the element functor of Fn on compute type C: Fn::with when Fn has its own, else Fn{}.
// (Told apart by the return type of the family's default rather than a requires-expression, which
// nvcc's front end does not evaluate reliably here.)
template <class Fn, class C, class Run, class... Args>
void with_functor(const Run& run, const Args&... args) {
  if constexpr (std::is_same_v<decltype(Fn::template with<C>(run, args...)), SelfElementFunctor>) run(Fn{});
  else Fn::template with<C>(run, args...);
}

// Whether the result is bool (comparisons, logical ops) rather than the compute dtype.
template <class Fn>
constexpr bool has_bool_result() {
  if constexpr (Fn::arity == 1) return Fn::kind == UnaryKind::Logical;
  else return Fn::kind == BinaryKind::Compare;
}

}  // namespace functors

// The Meta backend: the front end alone.
struct MetaCompute {
  template <class... Args>
  static int guard(const Args&...) {
    return 0;
  }
  template <class Fn, class... Args>
  static bool direct(Tensor&, const Args&...) {
    return false;
  }
  template <class Fn, class... Args>
  static void compute(TensorIterator&, const Args&...) {}
  static void mark_written(const Tensor&) {}
};

// One variant of a structured operator on one backend: `out` undefined allocates (functional),
// `out` is self (in-place) or the out= argument. `op` names the variant in error messages.
template <class Fn, class Backend, class... Args>
Tensor& structured_pointwise(const char* op, Tensor& out, const Args&... args) {
  [[maybe_unused]] const auto guard = Backend::guard(args...);
  const bool allocated = !out.defined();
  Fn::check(op, args...);
  if (allocated && Backend::template direct<Fn>(out, args...)) return out;
  TensorIterator it = Fn::plan(op, out, args...);
  Backend::template compute<Fn>(it, args...);
  if (!allocated) Backend::mark_written(out);
  return out;
}

}  // namespace glassbox
