// div with a rounding mode on the CPU ("trunc", "floor"; None is true division, the structured
// div). Not structured: an integer division by zero is detected in the loop and thrown afterwards,
// which the CUDA kernel does through a flag on the device.
#include <atomic>
#include <cmath>
#include <type_traits>

#include "engine/core/error.h"
#include "engine/cpu/pointwise_kernel.h"
#include "glassbox/ops/native/div.h"

namespace glassbox::native {

namespace {
Tensor& divide_rounded(const char* name, const Tensor& self, const Tensor& other,
                       std::optional<std::string_view> rounding_mode, Tensor& out) {
  const RoundingMode mode = parse_rounding_mode(name, rounding_mode);
  if (mode == RoundingMode::None)
    return structured_pointwise<functors::Div, cpu::PointwiseCompute>(name, out, self, other);
  const bool allocated = !out.defined();
  TensorIterator it = div_mode_iterator(name, mode, self, other, out);
  const bool floor = mode == RoundingMode::Floor;
  std::atomic<bool> divided_by_zero{false};
  cpu::visit_numeric_type(it.compute_dtype(), [&]<class T>() {
    using C = cpu::opmath_t<T>;
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
  if (!allocated) cpu::mark_written(out);
  return out;
}
}  // namespace

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

}  // namespace glassbox::native
