#pragma once
// The counting fills of arange, linspace and eye, written once for both backends: element i of a
// 1-d run (stride_bytes apart) gets value(i), computed in int64 or double and converted as
// convert_value converts. The CPU runs Ramp1d in a parallel loop, CUDA one thread per element.
// The front end (engine/ops/factories.cpp) checks and picks the ramp.
#include <cstdint>

#include "engine/core/host_device.h"
#include "engine/core/tensor.h"
#include "engine/ops/backend_table.h"
#include "engine/ops/kernels/element.h"

namespace glassbox::kernels {

// a + b * c with the product rounded before the sum (no fused multiply-add), as on the CPU.
GLASSBOX_HOST_DEVICE inline double add_product(double a, double b, double c) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, __dmul_rn(b, c));
#else
  return a + b * c;
#endif
}

struct Ramp {
  enum Kind { Integers, Floats, Linspace, Ones } kind;
  int64_t first = 0, step = 0;           // Integers: first + i * step, exactly in int64
  double start = 0, end = 0, fstep = 0;  // Floats (and Integers into floats): start + i * fstep; Linspace
  int64_t steps = 0;                     // Linspace: the count of values
  GLASSBOX_HOST_DEVICE int64_t integer(int64_t i) const { return kind == Ones ? 1 : first + i * step; }
  // Linspace's first half counts up from start, the second down from end: both ends are exact and
  // the rounding error is symmetric.
  GLASSBOX_HOST_DEVICE double real(int64_t i) const {
    if (kind != Linspace || i < (steps + 1) / 2) return add_product(start, static_cast<double>(i), fstep);
    return add_product(end, -fstep, static_cast<double>(steps - 1 - i));
  }
};

template <class T, bool kInteger>
struct Ramp1d {
  char* base;
  int64_t stride_bytes;
  Ramp ramp;
  GLASSBOX_HOST_DEVICE void operator()(int64_t i) const {
    if constexpr (kInteger) *reinterpret_cast<T*>(base + i * stride_bytes) = element_from<T>(ramp.integer(i));
    else *reinterpret_cast<T*>(base + i * stride_bytes) = element_from<T>(ramp.real(i));
  }
};

// run(Ramp1d<T, ...>{...}) with the arithmetic `ramp` needs: int64 for Integers (integer T only)
// and Ones, double otherwise.
template <class T, class Run>
void with_ramp(char* base, int64_t stride_bytes, const Ramp& ramp, Run&& run) {
  if (ramp.kind == Ramp::Ones || (ramp.kind == Ramp::Integers && std::is_integral_v<T>))
    run(Ramp1d<T, true>{base, stride_bytes, ramp});
  else run(Ramp1d<T, false>{base, stride_bytes, ramp});
}

struct RangeBackend {
  // out's element i * stride_bytes (bytes from its data pointer) = ramp's value i, for i in [0, n).
  void (*fill)(Tensor& out, int64_t n, int64_t stride_bytes, const Ramp& ramp);
};
using RangeBackends = BackendTable<RangeBackend>;

}  // namespace glassbox::kernels
