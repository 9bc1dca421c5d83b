#pragma once
// Small helpers of the per-element kernels of engine/ops/kernels/, which both the host and the
// device compile (std::min is constexpr host code, not callable on the device).
#include <cstdint>
#include <type_traits>

#include "engine/core/host_device.h"

namespace glassbox::kernels {

GLASSBOX_HOST_DEVICE inline int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
GLASSBOX_HOST_DEVICE inline int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

// A number as element type T; float16/bfloat16 (on either side no arithmetic type) through float,
// as convert_value (engine/ops/copy.h) converts.
template <class T, class V>
GLASSBOX_HOST_DEVICE T element_from(V v) {
  if constexpr (std::is_arithmetic_v<T>) return static_cast<T>(v);
  else return static_cast<T>(static_cast<float>(v));
}
template <class T>
GLASSBOX_HOST_DEVICE double element_as_double(T v) {
  if constexpr (std::is_arithmetic_v<T>) return static_cast<double>(v);
  else return static_cast<double>(static_cast<float>(v));
}

}  // namespace glassbox::kernels
