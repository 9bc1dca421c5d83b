// Element-wise arithmetic on the CPU. TensorIterator broadcasts, promotes and allocates; these
// loops only compute (small same-shape operands skip the iterator: see direct_operands).
// float16/bfloat16 compute in float32.
#include <atomic>
#include <cmath>
#include <type_traits>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cpu/pointwise_kernel.h"
#include "engine/ops/division_rounding.h"
#include "engine/ops/elementwise_shape.h"
#include "engine/ops/fill_value.h"
#include "glassbox/ops/native/add.h"
#include "glassbox/ops/native/div.h"
#include "glassbox/ops/native/mul.h"
#include "glassbox/ops/native/neg.h"
#include "glassbox/ops/native/sub.h"

namespace glassbox::native {

namespace {
enum class Op { Add, Sub, Mul, Div };

// Same-shape contiguous CPU operands of one dtype (no Python numbers), few enough for one thread:
// nothing broadcasts, converts or splits, the result dtype is theirs (div takes this path for
// floating point only), and for a handful of elements building a TensorIterator would cost
// several times the arithmetic. Everything else goes through the iterator.
bool direct_operands(Op op, const Tensor& self, const Tensor& other) {
  const TensorImpl* a = self.unsafe_impl();
  const TensorImpl* b = other.unsafe_impl();
  return a && b && a->dtype() == b->dtype() && (op != Op::Div || is_floating_point(a->dtype())) &&
         a->device().type == DeviceType::CPU && b->device().type == DeviceType::CPU && a->is_contiguous() &&
         b->is_contiguous() && !a->is_wrapped_number() && !b->is_wrapped_number() && a->numel() <= kDefaultGrain &&
         a->sizes() == b->sizes();
}

// Calls run(f) with the element functor of `op` on compute type C (alpha already in C).
template <class C, class Run>
void with_functor(Op op, C alpha, const Run& run) {
  switch (op) {
    case Op::Add:
      if (alpha == C(1)) run([](C x, C y) { return x + y; });
      else run([alpha](C x, C y) { return x + alpha * y; });
      break;
    case Op::Sub:
      if (alpha == C(1)) run([](C x, C y) { return x - y; });
      else run([alpha](C x, C y) { return x - alpha * y; });
      break;
    case Op::Mul: run([](C x, C y) { return x * y; }); break;
    case Op::Div: run([](C x, C y) { return x / y; }); break;
  }
}

template <class C>
C alpha_as(const char* name, ScalarType dtype, const Scalar& alpha) {
  if (!is_floating_point(dtype) && alpha.is_floating_point())
    throw Error(std::string(name) + ": alpha must be an integer for integer tensors, got " + alpha.to_string());
  check_alpha(name, alpha, dtype);
  return static_cast<C>(alpha.is_floating_point() ? alpha.to_double() : static_cast<double>(alpha.to_int()));
}

// out = self (op) alpha * other; `out` undefined means allocate.
Tensor& binary(const char* name, Op op, const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  const bool allocated = !out.defined();
  if (allocated && direct_operands(op, self, other)) {
    visit_scalar_type(self.dtype(), [&]<class T>() {
      using C = cpu::compute_t<T>;
      const C a = alpha_as<C>(name, self.dtype(), alpha);
      out = empty_tensor(self.sizes(), self.dtype(), self.device());
      with_functor<C>(op, a, [&](const auto& f) {
        cpu::binary_contiguous<T, T>(out.data<T>(), self.data<T>(), other.data<T>(), out.numel(), f);
      });
    });
    return out;
  }
  TensorIterator it =
      binary_iterator(name, op == Op::Div ? BinaryKind::IntToFloat : BinaryKind::Promote, self, other, out);
  visit_scalar_type(it.compute_dtype(), [&]<class T>() {
    using C = cpu::compute_t<T>;
    with_functor<C>(op, alpha_as<C>(name, it.compute_dtype(), alpha), [&](const auto& f) { cpu::binary_loop<T, T>(it, f); });
  });
  if (!allocated) cpu::mark_written(out);
  return out;
}

Tensor& divide_rounded(const char* name, const Tensor& self, const Tensor& other,
                       std::optional<std::string_view> rounding_mode, Tensor& out) {
  const RoundingMode mode = parse_rounding_mode(name, rounding_mode);
  if (mode == RoundingMode::None) return binary(name, Op::Div, self, other, Scalar(int64_t{1}), out);
  TensorIterator it = div_mode_iterator(name, mode, self, other, out);
  const bool floor = mode == RoundingMode::Floor;
  std::atomic<bool> divided_by_zero{false};
  cpu::visit_numeric_type(it.compute_dtype(), [&]<class T>() {
    using C = cpu::compute_t<T>;
    if constexpr (std::is_floating_point_v<C>) {
      if (floor) cpu::binary_loop<T, T>(it, [](C x, C y) { return floor_divide(x, y); });
      else cpu::binary_loop<T, T>(it, [](C x, C y) { return std::trunc(x / y); });
    } else {
      cpu::binary_loop<T, T>(it, [floor, &divided_by_zero](C x, C y) {
        if (y == C(0)) {
          divided_by_zero.store(true, std::memory_order_relaxed);
          return C(0);
        }
        return integer_divide(x, y, floor);
      });
    }
  });
  if (divided_by_zero.load()) {
    throw Error(std::string(name) + ": integer division by zero (rounding_mode='" + (floor ? "floor" : "trunc") +
                     "', self " + describe(self) + ", other " + describe(other) + ")");
  }
  cpu::mark_written(out);
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
Tensor& sub_cpu_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_not_bool("sub_", self, "use logical_xor_ instead");
  return binary("sub_", Op::Sub, self, other, alpha, self);
}
Tensor& sub_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  check_not_bool("sub.out", self, "use logical_xor instead");
  return binary("sub.out", Op::Sub, self, other, alpha, out);
}
Tensor mul_cpu(const Tensor& self, const Tensor& other) {
  Tensor out;
  binary("mul", Op::Mul, self, other, Scalar(int64_t{1}), out);
  return out;
}
Tensor& mul_cpu_(Tensor& self, const Tensor& other) { return binary("mul_", Op::Mul, self, other, Scalar(int64_t{1}), self); }
Tensor& mul_out_cpu(const Tensor& self, const Tensor& other, Tensor& out) {
  return binary("mul.out", Op::Mul, self, other, Scalar(int64_t{1}), out);
}
Tensor div_cpu(const Tensor& self, const Tensor& other) {
  Tensor out;
  binary("div", Op::Div, self, other, Scalar(int64_t{1}), out);
  return out;
}
Tensor& div_cpu_(Tensor& self, const Tensor& other) { return binary("div_", Op::Div, self, other, Scalar(int64_t{1}), self); }
Tensor& div_out_cpu(const Tensor& self, const Tensor& other, Tensor& out) {
  return binary("div.out", Op::Div, self, other, Scalar(int64_t{1}), out);
}
Tensor div_mode_cpu(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  Tensor out;
  divide_rounded("div", self, other, rounding_mode, out);
  return out;
}
Tensor& div_mode_cpu_(Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  return divide_rounded("div_", self, other, rounding_mode, self);
}
Tensor& div_mode_out_cpu(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode,
                         Tensor& out) {
  return divide_rounded("div.out", self, other, rounding_mode, out);
}
Tensor neg_cpu(const Tensor& self) {
  check_not_bool("neg", self, "use logical_not or ~ instead");
  Tensor out;
  TensorIterator it = TensorIteratorConfig("neg").add_output(&out).add_input(self).build();
  visit_scalar_type(it.compute_dtype(), [&]<class T>() { cpu::unary_loop<T, T>(it, [](auto x) { return -x; }); });
  return out;
}

}  // namespace glassbox::native
