// Comparisons (eq, ne, lt, le, gt, ge), logical and/or/xor, maximum/minimum, clamp and where on
// the CPU. Comparisons and logical ops read both operands in their promoted dtype and write bool.
#include <cmath>

#include "engine/cpu/pointwise_kernel.h"
#include "engine/ops/copy.h"
#include "glassbox/ops/native/clamp.h"
#include "glassbox/ops/native/eq.h"
#include "glassbox/ops/native/ge.h"
#include "glassbox/ops/native/gt.h"
#include "glassbox/ops/native/le.h"
#include "glassbox/ops/native/logical_and.h"
#include "glassbox/ops/native/logical_or.h"
#include "glassbox/ops/native/logical_xor.h"
#include "glassbox/ops/native/lt.h"
#include "glassbox/ops/native/maximum.h"
#include "glassbox/ops/native/minimum.h"
#include "glassbox/ops/native/ne.h"
#include "glassbox/ops/native/where.h"

namespace glassbox::native {

namespace {
// out = f(self, other) with a bool result, over every dtype.
template <class F>
Tensor& to_bool(const char* op, const Tensor& self, const Tensor& other, Tensor& out, F f) {
  TensorIterator it = binary_iterator(op, BinaryKind::Compare, self, other, out);
  visit_scalar_type(it.compute_dtype(), [&]<class T>() { cpu::binary_loop<bool, T>(it, f); });
  cpu::mark_written(out);
  return out;
}

template <class T>
bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  else return false;
}

// Element-wise maximum (or minimum) in the promoted dtype; a NaN on either side wins.
Tensor& extremum(const char* op, bool take_max, const Tensor& self, const Tensor& other, Tensor& out) {
  TensorIterator it = binary_iterator(op, BinaryKind::Promote, self, other, out);
  visit_scalar_type(it.compute_dtype(), [&]<class T>() {
    if (take_max) {
      cpu::binary_loop<T, T>(it, [](auto x, auto y) { return is_nan(x) ? x : is_nan(y) ? y : x < y ? y : x; });
    } else {
      cpu::binary_loop<T, T>(it, [](auto x, auto y) { return is_nan(x) ? x : is_nan(y) ? y : y < x ? y : x; });
    }
  });
  cpu::mark_written(out);
  return out;
}

// A NaN in self or in a bound gives NaN (as PyTorch); with min > max every element becomes max.
template <class C>
C clamp_below(C x, C lo) {
  return is_nan(x) ? x : is_nan(lo) ? lo : x < lo ? lo : x;
}
template <class C>
C clamp_above(C x, C hi) {
  return is_nan(x) ? x : is_nan(hi) ? hi : x > hi ? hi : x;
}

Tensor& clamp_into(const char* op, const Tensor& self, const std::optional<Tensor>& min,
                   const std::optional<Tensor>& max, Tensor& out) {
  TensorIterator it = clamp_iterator(op, self, min, max, out);
  const bool has_min = min && min->defined(), has_max = max && max->defined();
  cpu::visit_numeric_type(it.compute_dtype(), [&]<class T>() {
    if (has_min && has_max) {
      cpu::ternary_loop<T, T, T, T>(it, [](auto x, auto lo, auto hi) { return clamp_above(clamp_below(x, lo), hi); });
    } else if (has_min) {
      cpu::binary_loop<T, T>(it, [](auto x, auto lo) { return clamp_below(x, lo); });
    } else {
      cpu::binary_loop<T, T>(it, [](auto x, auto hi) { return clamp_above(x, hi); });
    }
  });
  cpu::mark_written(out);
  return out;
}

Tensor& where_into(const char* op, const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  WhereIterator w = where_iterator(op, condition, self, other, out);
  visit_scalar_type(w.result.dtype(), [&]<class T>() {
    cpu::ternary_loop<T, bool, T, T>(w.it, [](bool c, auto a, auto b) { return c ? a : b; });
  });
  if (out.defined() && !out.is_same(w.result)) copy_(out, w.result);  // out= of another dtype
  else out = w.result;
  cpu::mark_written(out);
  return out;
}
}  // namespace

// One functor type per comparison, shared by the functional and out= kernels: each functor type
// instantiates the loops once per dtype and instruction set, which is most of this file's build time.
#define GB_COMPARISON(name, expr)                                                               \
  namespace {                                                                                   \
  struct name##_fn {                                                                            \
    template <class X, class Y>                                                                 \
    bool operator()(X x, Y y) const {                                                           \
      return expr;                                                                              \
    }                                                                                           \
  };                                                                                            \
  }                                                                                             \
  Tensor name##_cpu(const Tensor& self, const Tensor& other) {                                  \
    Tensor out;                                                                                 \
    return to_bool(#name, self, other, out, name##_fn{});                                       \
  }                                                                                             \
  Tensor& name##_out_cpu(const Tensor& self, const Tensor& other, Tensor& out) {                \
    return to_bool(#name ".out", self, other, out, name##_fn{});                                \
  }
GB_COMPARISON(eq, x == y)
GB_COMPARISON(ne, x != y)
GB_COMPARISON(lt, x < y)
GB_COMPARISON(le, x <= y)
GB_COMPARISON(gt, x > y)
GB_COMPARISON(ge, x >= y)
// Nonzero (NaN included) is true.
GB_COMPARISON(logical_and, x != decltype(x)(0) && y != decltype(y)(0))
GB_COMPARISON(logical_or, x != decltype(x)(0) || y != decltype(y)(0))
GB_COMPARISON(logical_xor, (x != decltype(x)(0)) != (y != decltype(y)(0)))
#undef GB_COMPARISON

Tensor maximum_cpu(const Tensor& self, const Tensor& other) {
  Tensor out;
  return extremum("maximum", true, self, other, out);
}
Tensor& maximum_out_cpu(const Tensor& self, const Tensor& other, Tensor& out) {
  return extremum("maximum.out", true, self, other, out);
}
Tensor minimum_cpu(const Tensor& self, const Tensor& other) {
  Tensor out;
  return extremum("minimum", false, self, other, out);
}
Tensor& minimum_out_cpu(const Tensor& self, const Tensor& other, Tensor& out) {
  return extremum("minimum.out", false, self, other, out);
}

Tensor clamp_cpu(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  Tensor out;
  return clamp_into("clamp", self, min, max, out);
}
Tensor& clamp_cpu_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return clamp_into("clamp_", self, min, max, self);
}
Tensor& clamp_out_cpu(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                      Tensor& out) {
  return clamp_into("clamp.out", self, min, max, out);
}

Tensor where_cpu(const Tensor& condition, const Tensor& self, const Tensor& other) {
  Tensor out;
  return where_into("where", condition, self, other, out);
}
Tensor& where_out_cpu(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  return where_into("where.out", condition, self, other, out);
}

}  // namespace glassbox::native
