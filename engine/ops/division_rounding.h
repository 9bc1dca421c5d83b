#pragma once
// div's rounding modes, element by element, shared by the CPU and CUDA kernels.
#include <cmath>
#include <type_traits>

#include "engine/core/host_device.h"

namespace glassbox {

// Floor division of floats as Python and NumPy define it: through fmod, so that the quotient is
// consistent with the remainder (7.5 // -2 == -4), and division by zero as true division gives it.
template <class C>
GLASSBOX_HOST_DEVICE C floor_divide(C x, C y) {
  if (y == C(0)) return x / y;
  const C mod = std::fmod(x, y);
  C div = (x - mod) / y;
  if (mod != C(0) && ((y < C(0)) != (mod < C(0)))) div -= C(1);
  if (div == C(0)) return std::copysign(C(0), x / y);
  C floored = std::floor(div);
  if (div - floored > C(0.5)) floored += C(1);
  return floored;
}

// Integer quotient rounded toward zero or toward -infinity. y == -1 negates in unsigned
// arithmetic: the one quotient (INT_MIN / -1) that overflows wraps instead.
template <class C>
GLASSBOX_HOST_DEVICE C integer_divide(C x, C y, bool floor) {
  if constexpr (std::is_signed_v<C>) {
    if (y == C(-1)) return static_cast<C>(C(0) - static_cast<std::make_unsigned_t<C>>(x));
    C q = static_cast<C>(x / y);
    if (floor && x % y != 0 && ((x < 0) != (y < 0))) --q;
    return q;
  } else {
    return static_cast<C>(x / y);
  }
}

}  // namespace glassbox
