#pragma once
// The two element-wise operators that are not structured, where and div with a rounding mode:
// their element formulas, written once for the CPU loops and the CUDA launcher, and the backend
// entries their front end (engine/ops/where_div_mode.cpp) calls after building the iterator.
#include <cmath>
#include <type_traits>

#include "engine/core/host_device.h"
#include "engine/ops/backend_table.h"
#include "engine/ops/division_rounding.h"
#include "engine/ops/tensor_iterator.h"

namespace glassbox::kernels {

struct Select {
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(bool c, C a, C b) const {
    return c ? a : b;
  }
};

// x / y rounded toward zero, or down (kFloor). An integer division by zero gives 0 and sets
// *divided_by_zero (an atomic on the CPU, whose threads share it), which the front end reports.
template <bool kFloor, class Flag>
struct DivRounded {
  Flag* divided_by_zero;
  template <class C>
  GLASSBOX_HOST_DEVICE C operator()(C x, C y) const {
    if constexpr (std::is_floating_point_v<C>) {
      return kFloor ? floor_divide(x, y) : std::trunc(x / y);
    } else {
      if (y == C(0)) {
        *divided_by_zero = 1;
        return C(0);
      }
      return integer_divide(x, y, kFloor);
    }
  }
};

struct WhereDivModeBackend {
  // The iterator's output = condition ? self : other.
  void (*where)(TensorIterator& it);
  // The iterator's output = self / other rounded; true when an integer division by zero was met.
  bool (*div_rounded)(TensorIterator& it, bool floor);
  // The structured div (no rounding mode) of this backend.
  Tensor& (*true_divide)(const char* op, Tensor& out, const Tensor& self, const Tensor& other);
};
using WhereDivModeBackends = BackendTable<WhereDivModeBackend>;

}  // namespace glassbox::kernels
