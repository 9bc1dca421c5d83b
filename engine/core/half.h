#pragma once
// float16 and bfloat16 storage types. Arithmetic happens in float32: kernels load, compute in
// float, and store back (round to nearest even).
#include <bit>
#include <cstdint>
#include <cstring>

namespace glassbox {

struct Half {
  uint16_t bits = 0;

  Half() = default;
  Half(float f) : bits(from_float(f)) {}
  operator float() const { return to_float(bits); }

  static constexpr Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }

  static uint16_t from_float(float f) {
    const uint32_t x = std::bit_cast<uint32_t>(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));  // NaN / inf
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past the largest half: inf
    if (abs < 0x38800000u) {
      // Subnormal half (or zero): scale by 2^24 and round in float arithmetic.
      const float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // exact: |f| < 2^-14
      const uint32_t m = static_cast<uint32_t>(scaled);
      const float frac = scaled - static_cast<float>(m);
      uint32_t r = m + (frac > 0.5f || (frac == 0.5f && (m & 1u)) ? 1u : 0u);
      return static_cast<uint16_t>(sign | r);
    }
    // Normal: rebias the exponent (127 -> 15) and round the 23-bit mantissa to 10 bits.
    uint32_t r = abs - 0x38000000u;
    r += 0x0fffu + ((r >> 13) & 1u);
    return static_cast<uint16_t>(sign | (r >> 13));
  }

  static float to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t man = h & 0x3ffu;
    if (exp == 0) {
      const float v = static_cast<float>(man) * (1.0f / 16777216.0f);  // man * 2^-24
      return sign ? -v : v;
    }
    if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
    return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (man << 13));
  }
};

struct BFloat16 {
  uint16_t bits = 0;

  BFloat16() = default;
  BFloat16(float f) : bits(from_float(f)) {}
  operator float() const { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

  static uint16_t from_float(float f) {
    const uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
    return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
  }
};

}  // namespace glassbox
