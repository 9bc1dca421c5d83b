#pragma once
// exp for float32 written as plain arithmetic, so loops calling it vectorise (the C library's
// expf is a call per element). exp(x) = 2^k * e^r with k = round(x / ln 2), |r| <= ln(2) / 2,
// e^r by its Taylor polynomial to degree 7 (relative error near 1e-7 before rounding).
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace glassbox::cpu {

inline float exp_f32(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;      // ln 2 split so that k * hi is exact
  constexpr float kLn2Lo = 1.42860682030941723e-6f;
  constexpr float kRound = 12582912.0f;             // 1.5 * 2^23: adding it rounds to an integer
  const float xc = x < -86.0f ? -86.0f : (x > 88.72f ? 88.72f : x);  // NaN passes through
  const float kf = (xc * kLog2e + kRound) - kRound;
  const float r = (xc - kf * kLn2Hi) - kf * kLn2Lo;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^(k-1) built in the exponent bits, times 2: k = 128 stays finite up to FLT_MAX.
  const int32_t k = static_cast<int32_t>(kf);
  const float scale = std::bit_cast<float>(static_cast<int32_t>((k + 126) << 23));
  float y = p * scale * 2.0f;
  y = x < -86.0f ? 0.0f : y;  // below here e^x is subnormal: flushed (exactly 0 at -inf)
  y = x > 88.72f ? std::numeric_limits<float>::infinity() : y;
  return y;
}

// e^x in the precision of A (float: the polynomial above; double: the C library).
template <class A>
inline A exp_acc(A x) {
  if constexpr (std::is_same_v<A, float>) return exp_f32(x);
  else return std::exp(x);
}

}  // namespace glassbox::cpu
