#pragma once
// Division of 32-bit indices below 2^31 by a divisor fixed before a launch, as a multiply-high, an
// add and a shift (the magic-number method). A GPU has no integer divide instruction: a division
// by a run-time value costs some twenty instructions, which made the strided kernels, with one
// division per dim and element, instruction-bound.
#include <cstdint>

#include "engine/core/host_device.h"

namespace glassbox::cuda {

struct IndexDivider {
  uint32_t divisor = 1, magic = 1, shift = 0;
  IndexDivider() = default;
  // For 1 <= d < 2^31: shift = ceil(log2 d), magic = 2^32 * (2^shift - d) / d + 1, so that
  // n / d = (n + n * magic / 2^32) / 2^shift for every n < 2^31.
  explicit IndexDivider(uint32_t d) : divisor(d) {
    while (shift < 32 && (uint64_t{1} << shift) < d) ++shift;
    magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }
  GLASSBOX_HOST_DEVICE uint32_t quotient(uint32_t n) const {
#ifdef __CUDA_ARCH__
    const uint32_t high = __umulhi(n, magic);
#else
    const uint32_t high = static_cast<uint32_t>((uint64_t{n} * magic) >> 32);
#endif
    return (high + n) >> shift;
  }
};

}  // namespace glassbox::cuda
