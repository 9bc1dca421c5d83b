#pragma once
// Division by a loop size fixed for a launch, as a multiply-high, an add and a shift (the method of
// Granlund and Montgomery): a 32-bit division is a long instruction sequence on the GPU, and the
// strided kernels divide once per dim per element to find each operand's offset. Plain C++ on the
// host (where the tests check it against `/`), one __umulhi on the device.
#include <cstdint>

#include "engine/core/host_device.h"

namespace glassbox::cuda {

class SizeDivider {
 public:
  SizeDivider() = default;
  // d in [1, 2^31]: with shift = ceil(log2 d), multiplier = 2^32 (2^shift - d) / d + 1 < 2^32.
  explicit SizeDivider(uint32_t d) {
    while ((uint64_t{1} << shift_) < d) ++shift_;
    multiplier_ = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift_) - d)) / d + 1);
  }
  // n / d for n < 2^31 (the strided launches' element counts are; the sum below then fits 32 bits).
  GLASSBOX_HOST_DEVICE uint32_t divide(uint32_t n) const {
#if defined(__CUDA_ARCH__)
    const uint32_t high = __umulhi(n, multiplier_);
#else
    const auto high = static_cast<uint32_t>((uint64_t{n} * multiplier_) >> 32);
#endif
    return (high + n) >> shift_;
  }

 private:
  uint32_t multiplier_ = 1;
  uint32_t shift_ = 0;
};

}  // namespace glassbox::cuda
