#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a
// counter-based generator. Each 128-bit counter, under a 64-bit key, maps to four independent
// 32-bit random words, so any element's numbers can be computed directly from its index, in any
// order, on any number of threads (or GPU threads: everything here is host/device inline).
#include <cstdint>

#include "engine/core/host_device.h"

namespace glassbox {

struct PhiloxWords {
  uint32_t w[4];
};

namespace detail {
inline constexpr uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;  // round multipliers
inline constexpr uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;  // key schedule (Weyl)

GLASSBOX_HOST_DEVICE constexpr void philox_round(uint32_t c[4], uint32_t k0, uint32_t k1) {
  const uint64_t p0 = static_cast<uint64_t>(kPhiloxM0) * c[0];
  const uint64_t p1 = static_cast<uint64_t>(kPhiloxM1) * c[2];
  const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
  const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
  const uint32_t n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
  c[0] = n0;
  c[1] = lo1;
  c[2] = n2;
  c[3] = lo0;
}
}  // namespace detail

// The ten-round Philox bijection of `counter` under `key`.
GLASSBOX_HOST_DEVICE constexpr PhiloxWords philox4x32_10(PhiloxWords counter, uint32_t key0, uint32_t key1) {
  uint32_t* c = counter.w;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key0 += detail::kPhiloxW0;
      key1 += detail::kPhiloxW1;
    }
    detail::philox_round(c, key0, key1);
  }
  return counter;
}

// glassbox's use of the counter: the low half counts 128-bit blocks within one operator call,
// the high half is the generator's offset (one per call); the seed is the key.
GLASSBOX_HOST_DEVICE constexpr PhiloxWords philox_block(uint64_t seed, uint64_t offset, uint64_t block) {
  const PhiloxWords counter{{static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                             static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32)}};
  return philox4x32_10(counter, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

// Uniform numbers in [0, 1) made of the top `bits` bits of a word: exactly representable in a
// type with at least `bits` significand bits, so rounding to it can never give 1.
GLASSBOX_HOST_DEVICE constexpr float unit_float(uint32_t word, int bits = 24) {
  return static_cast<float>(word >> (32 - bits)) * (1.0f / static_cast<float>(1u << bits));
}
GLASSBOX_HOST_DEVICE constexpr double unit_double(uint32_t hi, uint32_t lo) {
  const uint64_t x = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);  // 53 bits / 2^53
}

}  // namespace glassbox
