#pragma once
// sort and topk order values by an unsigned key, written once for the CPU (engine/cpu/sort_kernels.cpp,
// a comparison sort of the keys) and CUDA (engine/cuda/sort_kernels.cu, CUB's segmented radix sort):
// numbers by value (-0.0 equal to 0.0), NaN above every number (last ascending, first descending).
// Descending orders the complemented keys; equal keys keep their index order either way.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "engine/core/host_device.h"

namespace glassbox {

// 64-bit keys for 8-byte dtypes (double, int64), 32-bit ones for the rest.
template <class T>
using sort_key_t = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

// The key of x, a value of dtype T in its compute type C (float for float16/bfloat16).
template <class T, class C>
GLASSBOX_HOST_DEVICE sort_key_t<T> sort_key(C x, bool descending) {
  using K = sort_key_t<T>;
  K key;
  if constexpr (std::is_floating_point_v<C>) {
    constexpr K kSign = K{1} << (8 * sizeof(K) - 1);
    const auto f = static_cast<std::conditional_t<sizeof(K) == 8, double, float>>(x) + 0;  // -0.0 + 0 == +0.0
    K bits;
    std::memcpy(&bits, &f, sizeof(bits));
    key = f != f ? ~K{0} : (bits & kSign) ? ~bits : (bits | kSign);
  } else if constexpr (std::is_signed_v<C>) {
    key = static_cast<K>(static_cast<std::make_signed_t<K>>(x)) ^ (K{1} << (8 * sizeof(K) - 1));
  } else {
    key = static_cast<K>(x);  // uint8, bool
  }
  return descending ? ~key : key;
}

}  // namespace glassbox
