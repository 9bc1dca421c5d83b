// Element-wise arithmetic on CUDA: add, sub, mul, div, maximum, minimum. The front end
// (engine/ops/pointwise_iterator.h) broadcasts and promotes exactly as for the CPU kernels; one
// functor per dtype covers every operator here (the operator is a run-time switch, uniform across
// the grid), which keeps the number of kernels, and the compile time, small.
#include "engine/core/error.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/elementwise_shape.h"
#include "engine/ops/fill_value.h"
#include "engine/ops/pointwise_iterator.h"
#include "glassbox/ops/native/add.h"
#include "glassbox/ops/native/div.h"
#include "glassbox/ops/native/maximum.h"
#include "glassbox/ops/native/minimum.h"
#include "glassbox/ops/native/mul.h"
#include "glassbox/ops/native/sub.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

enum class Arith : int { Add, Mul, Div, Max, Min };  // sub is add with -alpha

template <class C>
__device__ __forceinline__ bool is_nan(C x) {
  if constexpr (std::is_floating_point_v<C>) return x != x;
  else return false;
}

template <class C>
struct ArithFn {
  Arith op;
  C alpha;
  __device__ C operator()(C x, C y) const {
    switch (op) {
      case Arith::Add: return static_cast<C>(x + alpha * y);
      case Arith::Mul: return static_cast<C>(x * y);
      case Arith::Div: return static_cast<C>(x / y);
      // A NaN on either side wins, as on the CPU.
      case Arith::Max: return is_nan(x) ? x : is_nan(y) ? y : x < y ? y : x;
      default: return is_nan(x) ? x : is_nan(y) ? y : y < x ? y : x;
    }
  }
};

Tensor& arith(const char* name, Arith op, const Tensor& self, const Tensor& other, double alpha_value, bool alpha_is_float,
              Tensor& out) {
  DeviceGuard guard(self.device().type == DeviceType::CUDA ? self.device().index : other.device().index);
  const BinaryKind kind = op == Arith::Div ? BinaryKind::IntToFloat : BinaryKind::Promote;
  TensorIterator it = binary_iterator(name, kind, self, other, out);
  const ScalarType dtype = it.compute_dtype();
  if (!is_floating_point(dtype) && alpha_is_float)
    throw Error(std::string(name) + ": alpha must be an integer for integer tensors, got " + std::to_string(alpha_value));
  visit_device_type(dtype, [&]<class T>() {
    using C = opmath_t<T>;
    // Integers through int64, so that -1 becomes 255 for uint8 as C++ arithmetic wraps it.
    C alpha;
    if constexpr (std::is_floating_point_v<C>) alpha = static_cast<C>(alpha_value);
    else alpha = static_cast<C>(static_cast<int64_t>(alpha_value));
    launch_elementwise<T, T, T>(it, ArithFn<C>{op, alpha});
  });
  it.finish();
  mark_written(out);
  return out;
}

Tensor& add_sub(const char* name, bool subtract, const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  check_alpha(name, alpha, binary_dtypes(name, BinaryKind::Promote, self, other).compute);
  // alpha as the CPU kernel reads it (an integer alpha stays exact for int64 tensors up to 2^53).
  const double a = alpha.is_floating_point() ? alpha.to_double() : static_cast<double>(alpha.to_int());
  return arith(name, Arith::Add, self, other, subtract ? -a : a, alpha.is_floating_point(), out);
}
}  // namespace

Tensor add_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  Tensor out;
  add_sub("add", false, self, other, alpha, out);
  return out;
}
Tensor& add_cuda_(Tensor& self, const Tensor& other, const Scalar& alpha) { return add_sub("add_", false, self, other, alpha, self); }
Tensor& add_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  return add_sub("add.out", false, self, other, alpha, out);
}
Tensor sub_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_not_bool("sub", self, "use logical_xor or ~ instead");
  Tensor out;
  add_sub("sub", true, self, other, alpha, out);
  return out;
}
Tensor& sub_cuda_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_not_bool("sub_", self, "use logical_xor_ instead");
  return add_sub("sub_", true, self, other, alpha, self);
}
Tensor& sub_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  check_not_bool("sub.out", self, "use logical_xor instead");
  return add_sub("sub.out", true, self, other, alpha, out);
}

#define GB_ARITH_CUDA(name, op)                                                                                 \
  Tensor name##_cuda(const Tensor& self, const Tensor& other) {                                                 \
    Tensor out;                                                                                                 \
    arith(#name, op, self, other, 1.0, false, out);                                                             \
    return out;                                                                                                 \
  }                                                                                                             \
  Tensor& name##_out_cuda(const Tensor& self, const Tensor& other, Tensor& out) {                              \
    return arith(#name ".out", op, self, other, 1.0, false, out);                                               \
  }
GB_ARITH_CUDA(mul, Arith::Mul)
GB_ARITH_CUDA(div, Arith::Div)
GB_ARITH_CUDA(maximum, Arith::Max)
GB_ARITH_CUDA(minimum, Arith::Min)
#undef GB_ARITH_CUDA
Tensor& mul_cuda_(Tensor& self, const Tensor& other) { return arith("mul_", Arith::Mul, self, other, 1.0, false, self); }
Tensor& div_cuda_(Tensor& self, const Tensor& other) { return arith("div_", Arith::Div, self, other, 1.0, false, self); }

}  // namespace glassbox::native
