// Comparisons (eq, ne, lt, le, gt, ge), logical and/or/xor and where on CUDA. Comparisons read both
// operands in their promoted dtype and write bool; one functor per dtype, the operator a run-time
// switch. where reads a bool condition next to two values of the result dtype.
#include "engine/core/error.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/pointwise_iterator.h"
#include "glassbox/ops/NativeFunctions.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

enum class Compare : int { Eq, Ne, Lt, Le, Gt, Ge, And, Or, Xor };

template <class C>
struct CompareFn {
  Compare op;
  __device__ bool operator()(C x, C y) const {
    switch (op) {
      case Compare::Eq: return x == y;
      case Compare::Ne: return x != y;
      case Compare::Lt: return x < y;
      case Compare::Le: return x <= y;
      case Compare::Gt: return x > y;
      case Compare::Ge: return x >= y;
      // Nonzero (NaN included) is true.
      case Compare::And: return x != C(0) && y != C(0);
      case Compare::Or: return x != C(0) || y != C(0);
      default: return (x != C(0)) != (y != C(0));
    }
  }
};

Tensor& compare(const char* name, Compare op, const Tensor& self, const Tensor& other, Tensor& out) {
  DeviceGuard guard(self.device().type == DeviceType::CUDA ? self.device().index : other.device().index);
  TensorIterator it = binary_iterator(name, BinaryKind::Compare, self, other, out);
  visit_device_type(it.compute_dtype(), [&]<class T>() { launch_elementwise<bool, T, T>(it, CompareFn<opmath_t<T>>{op}); });
  it.finish();
  mark_written(out);
  return out;
}

struct Select {
  template <class C>
  __device__ C operator()(bool c, C a, C b) const { return c ? a : b; }
};

Tensor& where_into(const char* name, const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  DeviceGuard guard(condition.device().index);
  WhereIterator w = where_iterator(name, condition, self, other, out);
  visit_device_type(w.result.dtype(), [&]<class T>() { launch_elementwise<T, bool, T, T>(w.it, Select{}); });
  if (out.defined() && !out.is_same(w.result)) copy_between(out, w.result);  // out= of another dtype
  else out = w.result;
  mark_written(out);
  return out;
}
}  // namespace

#define GB_COMPARE_CUDA(name, op)                                                                          \
  Tensor name##_cuda(const Tensor& self, const Tensor& other) {                                            \
    Tensor out;                                                                                            \
    return compare(#name, op, self, other, out);                                                           \
  }                                                                                                        \
  Tensor& name##_out_cuda(const Tensor& self, const Tensor& other, Tensor& out) {                         \
    return compare(#name ".out", op, self, other, out);                                                    \
  }
GB_COMPARE_CUDA(eq, Compare::Eq)
GB_COMPARE_CUDA(ne, Compare::Ne)
GB_COMPARE_CUDA(lt, Compare::Lt)
GB_COMPARE_CUDA(le, Compare::Le)
GB_COMPARE_CUDA(gt, Compare::Gt)
GB_COMPARE_CUDA(ge, Compare::Ge)
GB_COMPARE_CUDA(logical_and, Compare::And)
GB_COMPARE_CUDA(logical_or, Compare::Or)
GB_COMPARE_CUDA(logical_xor, Compare::Xor)
#undef GB_COMPARE_CUDA

Tensor where_cuda(const Tensor& condition, const Tensor& self, const Tensor& other) {
  Tensor out;
  return where_into("where", condition, self, other, out);
}
Tensor& where_out_cuda(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  return where_into("where.out", condition, self, other, out);
}

}  // namespace glassbox::native
