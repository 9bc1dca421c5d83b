// pow on the CPU. Floating point goes through std::pow, with exact shortcuts for a broadcast
// exponent of 2 or -1; integers multiply by squaring, wrapping on overflow like the other integer
// arithmetic, and a negative exponent gives 0 except for the bases 1 and -1.
#include <cmath>
#include <type_traits>

#include "engine/cpu/pointwise_kernel.h"
#include "glassbox/ops/native/pow.h"

namespace glassbox::native {

namespace {
template <class T>
T integer_pow(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  // Unsigned arithmetic wraps where signed overflow would be undefined.
  using U = std::make_unsigned_t<T>;
  U result = 1, b = static_cast<U>(base);
  for (U e = static_cast<U>(exponent); e != 0; e >>= 1) {
    if (e & 1) result = static_cast<U>(result * b);
    b = static_cast<U>(b * b);
  }
  return static_cast<T>(result);
}

// The value of a one-element exponent (0-d, or a number wrapped as a tensor), when it has one.
std::optional<double> constant_exponent(const Tensor& exponent) {
  if (exponent.numel() != 1 || exponent.device().type != DeviceType::CPU) return std::nullopt;
  std::optional<double> v;
  visit_scalar_type(exponent.dtype(), [&]<class T>() { v = static_cast<double>(static_cast<cpu::compute_t<T>>(*exponent.data<T>())); });
  return v;
}

Tensor& pow_into(const char* op, const Tensor& self, const Tensor& exponent, Tensor& out) {
  TensorIterator it = binary_iterator(op, BinaryKind::Numeric, self, exponent, out);
  const std::optional<double> constant = constant_exponent(exponent);
  cpu::visit_numeric_type(it.compute_dtype(), [&]<class T>() {
    using C = cpu::compute_t<T>;
    if constexpr (std::is_floating_point_v<C>) {
      if (constant == 2.0) cpu::binary_loop<T, T>(it, [](C x, C) { return x * x; });
      else if (constant == -1.0) cpu::binary_loop<T, T>(it, [](C x, C) { return C(1) / x; });
      else cpu::binary_loop_grain<T, T>(it, [](C x, C y) { return std::pow(x, y); }, cpu::kTranscendentalGrain);
    } else {
      cpu::binary_loop<T, T>(it, [](C x, C y) { return integer_pow<C>(x, y); });
    }
  });
  cpu::mark_written(out);
  return out;
}
}  // namespace

Tensor pow_cpu(const Tensor& self, const Tensor& exponent) {
  Tensor out;
  return pow_into("pow", self, exponent, out);
}
Tensor& pow_cpu_(Tensor& self, const Tensor& exponent) { return pow_into("pow_", self, exponent, self); }
Tensor& pow_out_cpu(const Tensor& self, const Tensor& exponent, Tensor& out) {
  return pow_into("pow.out", self, exponent, out);
}

}  // namespace glassbox::native
