// Element-wise arithmetic on the CPU. TensorIterator broadcasts, promotes and allocates; these
// loops only compute. float16/bfloat16 compute in float32.
#include "engine/core/error.h"
#include "engine/cpu/loops.h"
#include "engine/ops/elementwise_shape.h"
#include "glassbox/ops/NativeFunctions.h"

namespace glassbox::native {

namespace {
enum class Op { Add, Sub, Mul, Div };

// out = self (op) alpha * other; `out` undefined means allocate.
Tensor& binary(const char* name, Op op, const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  TensorIteratorConfig config(name);
  config.add_output(&out).add_input(self).add_input(other);
  if (op == Op::Div) config.promote_integers_to_float();
  TensorIterator it = config.build();
  const ScalarType dtype = it.compute_dtype();
  if (!is_floating_point(dtype) && alpha.is_floating_point())
    throw ValueError(std::string(name) + ": alpha must be an integer for integer tensors, got " + alpha.to_string());
  visit_scalar_type(dtype, [&]<class T>() {
    using C = cpu::compute_t<T>;
    const C a = static_cast<C>(alpha.is_floating_point() ? alpha.to_double() : static_cast<double>(alpha.to_int()));
    switch (op) {
      case Op::Add:
        if (a == C(1)) cpu::binary_loop<T, T>(it, [](C x, C y) { return x + y; });
        else cpu::binary_loop<T, T>(it, [a](C x, C y) { return x + a * y; });
        break;
      case Op::Sub:
        if (a == C(1)) cpu::binary_loop<T, T>(it, [](C x, C y) { return x - y; });
        else cpu::binary_loop<T, T>(it, [a](C x, C y) { return x - a * y; });
        break;
      case Op::Mul: cpu::binary_loop<T, T>(it, [](C x, C y) { return x * y; }); break;
      case Op::Div: cpu::binary_loop<T, T>(it, [](C x, C y) { return x / y; }); break;
    }
  });
  if (out.unsafe_impl()->storage()) out.unsafe_impl()->storage()->bump_version();
  return out;
}
}  // namespace

// The allocating variants return `out` itself (moved), not a copy of the reference binary() returns.
Tensor add_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  Tensor out;
  binary("add", Op::Add, self, other, alpha, out);
  return out;
}
Tensor& add_cpu_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  return binary("add_", Op::Add, self, other, alpha, self);
}
Tensor& add_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  return binary("add.out", Op::Add, self, other, alpha, out);
}
Tensor sub_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_not_bool("sub", self, "use logical_xor or ~ instead");
  Tensor out;
  binary("sub", Op::Sub, self, other, alpha, out);
  return out;
}
Tensor mul_cpu(const Tensor& self, const Tensor& other) {
  Tensor out;
  binary("mul", Op::Mul, self, other, Scalar(int64_t{1}), out);
  return out;
}
Tensor div_cpu(const Tensor& self, const Tensor& other) {
  Tensor out;
  binary("div", Op::Div, self, other, Scalar(int64_t{1}), out);
  return out;
}
Tensor neg_cpu(const Tensor& self) {
  check_not_bool("neg", self, "use logical_not or ~ instead");
  Tensor out;
  TensorIterator it = TensorIteratorConfig("neg").add_output(&out).add_input(self).build();
  visit_scalar_type(it.compute_dtype(), [&]<class T>() { cpu::unary_loop<T, T>(it, [](auto x) { return -x; }); });
  return out;
}

}  // namespace glassbox::native
