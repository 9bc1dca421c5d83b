#pragma once
// float32 math written as plain arithmetic and selects, so that loops calling it vectorise (the C
// library's expf, logf, ... are a call per element). Every function takes any float: infinities,
// NaN, signed zeros and subnormals (in and out) give what the C library gives; finite results
// are within a few units in the last place. Files using these need -fno-trapping-math for the
// selects to become blends (engine/CMakeLists.txt); results do not change with it.
//
// The shapes are the textbook ones: reduce the argument by a multiple of ln 2 or pi/2 (with the
// constant split in two so the product is exact), evaluate a short polynomial on the reduced
// range (Taylor coefficients; the erfc tail is a least-squares fit), and rebuild.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace glassbox::cpu {

namespace vec_math {
inline constexpr float kLog2e = 1.44269504088896341f;
inline constexpr float kLn2Hi = 0.693145751953125f;  // ln 2 with 14 significant bits: k * kLn2Hi is exact
inline constexpr float kLn2Lo = 1.42860682030941723e-6f;
inline constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer

// 2^k as a float, for integer k in [-126, 127].
inline float pow2i(int32_t k) { return std::bit_cast<float>(static_cast<uint32_t>(k + 127) << 23); }

// x = k ln 2 + r with k an integer (as float and int) and |r| <= ln(2) / 2, for |x| < 2^21.
struct Ln2Reduced {
  float r, kf;
  int32_t k;
};
inline Ln2Reduced reduce_ln2(float x) {
  const float t = x * kLog2e + kRound;
  const float kf = t - kRound;
  // The integer sits in t's low mantissa bits: read it there (a float-to-int conversion of a NaN
  // would be undefined).
  const int32_t k = static_cast<int32_t>(std::bit_cast<uint32_t>(t) - std::bit_cast<uint32_t>(kRound));
  return {(x - kf * kLn2Hi) - kf * kLn2Lo, kf, k};
}

// e^r - 1 for |r| <= ln(2) / 2: Taylor to degree 8 (truncation below 2^-31 relative). The
// polynomial is summed in pairs (Estrin's scheme), not by Horner's rule: its dependency chain is a
// third as long, which is what a vectorised loop over a long formula (gelu) waits on.
inline float expm1_reduced(float r) {
  const float r2 = r * r, r4 = r2 * r2;
  const float p = (0.5f + r * (1.0f / 6.0f)) + (1.0f / 24.0f + r * (1.0f / 120.0f)) * r2 +
                  ((1.0f / 720.0f + r * (1.0f / 5040.0f)) + r2 * (1.0f / 40320.0f)) * r4;
  return r + r2 * p;
}
}  // namespace vec_math

namespace vec_math {
// e^r 2^k for a reduced r. 2^k in two factors, so k from -150 to 129 works: results overflow to
// inf and round into the subnormals exactly where e^x does.
inline float exp_scaled(float r, int32_t k) {
  const int32_t k1 = k >> 1;
  return (1.0f + expm1_reduced(r)) * pow2i(k1) * pow2i(k - k1);
}
}  // namespace vec_math

// e^x.
inline float exp_f32(float x) {
  using namespace vec_math;
  // Beyond these bounds e^x is 0 or inf in float; clamping keeps k in range. NaN passes through
  // (every comparison with it is false).
  const float xc = x < -104.0f ? -104.0f : (x > 89.0f ? 89.0f : x);
  const Ln2Reduced a = reduce_ln2(xc);
  return exp_scaled(a.r, a.k);
}

// e^x - 1, accurate near 0.
inline float expm1_f32(float x) {
  using namespace vec_math;
  const float xc = x < -30.0f ? -30.0f : (x > 89.0f ? 89.0f : x);  // e^-30 - 1 is -1 in float
  const Ln2Reduced a = reduce_ln2(xc);
  const float em = expm1_reduced(a.r);
  // k <= 24: 2^k (e^r - 1) + (2^k - 1), where 2^k - 1 is exact. Larger k: the -1 is below half
  // an ulp, and 2^k is built in two factors as in exp_f32.
  const int32_t ks = a.k > 24 ? 24 : a.k;
  const float s = pow2i(ks);
  const float small = em * s + (s - 1.0f);
  const int32_t k1 = a.k >> 1;
  const float big = (em + 1.0f) * pow2i(k1) * pow2i(a.k - k1);
  const float y = a.k > 24 ? big : small;
  return x == 0.0f ? x : y;  // keeps the sign of -0
}

// Natural logarithm.
inline float log_f32(float x) {
  using namespace vec_math;
  // Subnormals are scaled into the normal range first.
  const bool tiny = x < std::numeric_limits<float>::min();
  const float xs = tiny ? x * 8388608.0f : x;  // 2^23
  // x = m * 2^e with m in [sqrt(1/2), sqrt(2)).
  const uint32_t bits = std::bit_cast<uint32_t>(xs);
  const int32_t e = static_cast<int32_t>(bits - 0x3f3504f3u) >> 23;
  const float m = std::bit_cast<float>(bits - (static_cast<uint32_t>(e) << 23));
  const float ef = static_cast<float>(e - (tiny ? 23 : 0));
  // log(m) = log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f / (2 + f), from the series of
  // 2 atanh(s): R(z) = 2z/3 + 2z^2/5 + ..., |s| < 0.172.
  const float f = m - 1.0f;
  const float s = f / (2.0f + f);
  const float z = s * s;
  float poly = 2.0f / 11.0f;
  poly = poly * z + 2.0f / 9.0f;
  poly = poly * z + 2.0f / 7.0f;
  poly = poly * z + 2.0f / 5.0f;
  poly = poly * z + 2.0f / 3.0f;
  const float hfsq = 0.5f * f * f;
  float y = ef * kLn2Hi + (f - (hfsq - (s * (hfsq + poly * z) + ef * kLn2Lo)));
  y = x == std::numeric_limits<float>::infinity() ? x : y;
  y = x == 0.0f ? -std::numeric_limits<float>::infinity() : y;
  y = x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : y;
  return x != x ? x : y;
}

// log(1 + x), accurate near 0: log(u) * x / (u - 1) with u = 1 + x corrects the rounding of u.
inline float log1p_f32(float x) {
  const float u = 1.0f + x;
  const float d = u - 1.0f;
  float y = log_f32(u) * (x / d);
  y = d == 0.0f ? x : y;                                       // |x| below half an ulp of 1
  return x == std::numeric_limits<float>::infinity() ? x : y;  // inf / inf would be NaN
}

// |x| above which sin_f32 and cos_f32 are not valid (the reduction below needs |x| / (pi/2)
// under 2^20); callers send such arguments, and infinities, to the C library.
inline constexpr float kTrigFastMax = 1.0e6f;

namespace vec_math {
// x = q pi/2 + r, |r| <= pi/4, in double: pi/2 is split so that q * hi is exact for q < 2^20.
struct QuadrantReduced {
  float r;
  uint32_t quadrant;  // q mod 4
};
inline QuadrantReduced reduce_half_pi(float x) {
  constexpr double kTwoOverPi = 0.63661977236758134308;
  constexpr double kHalfPiHi = 1.5707963267341256141662598;  // 33 significant bits
  constexpr double kHalfPiLo = 6.0771005065061922518e-11;    // pi/2 - kHalfPiHi
  constexpr double kRoundD = 6755399441055744.0;             // 1.5 * 2^52
  const double xd = x;
  const double t = xd * kTwoOverPi + kRoundD;
  const double q = t - kRoundD;
  const double r = (xd - q * kHalfPiHi) - q * kHalfPiLo;
  return {static_cast<float>(r), static_cast<uint32_t>(std::bit_cast<uint64_t>(t)) & 3u};
}
// sin and cos on [-pi/4, pi/4]: Taylor to degrees 11 and 12.
inline float sin_reduced(float r) {
  const float z = r * r;
  float p = -1.0f / 39916800.0f;
  p = p * z + 1.0f / 362880.0f;
  p = p * z - 1.0f / 5040.0f;
  p = p * z + 1.0f / 120.0f;
  p = p * z - 1.0f / 6.0f;
  return r + r * z * p;
}
inline float cos_reduced(float r) {
  const float z = r * r;
  float p = 1.0f / 479001600.0f;
  p = p * z - 1.0f / 3628800.0f;
  p = p * z + 1.0f / 40320.0f;
  p = p * z - 1.0f / 720.0f;
  p = p * z + 1.0f / 24.0f;
  return 1.0f - 0.5f * z + z * z * p;
}
}  // namespace vec_math

// sin(x) for |x| <= kTrigFastMax (and NaN).
inline float sin_f32(float x) {
  const vec_math::QuadrantReduced a = vec_math::reduce_half_pi(x);
  const float s = vec_math::sin_reduced(a.r), c = vec_math::cos_reduced(a.r);
  const float v = (a.quadrant & 1u) ? c : s;
  const float y = (a.quadrant & 2u) ? -v : v;
  return x == 0.0f ? x : y;  // keeps the sign of -0
}
// cos(x) for |x| <= kTrigFastMax (and NaN).
inline float cos_f32(float x) {
  const vec_math::QuadrantReduced a = vec_math::reduce_half_pi(x);
  const float s = vec_math::sin_reduced(a.r), c = vec_math::cos_reduced(a.r);
  const float v = (a.quadrant & 1u) ? s : c;
  return ((a.quadrant + 1u) & 2u) ? -v : v;
}

// tanh(x) = e / (e + 2) with e = e^(2|x|) - 1, sign restored; from |x| = 9.1 on it rounds to 1.
inline float tanh_f32(float x) {
  const float a = std::fabs(x);
  const float e = expm1_f32(2.0f * (a > 9.1f ? 9.1f : a));
  return std::copysign(e / (e + 2.0f), x);
}

// 1 / (1 + e^-x), from e^-|x| so that nothing overflows: tiny results stay exact for x << 0.
inline float sigmoid_f32(float x) {
  const float e = exp_f32(-std::fabs(x));
  const float d = 1.0f + e;
  return x >= 0.0f ? 1.0f / d : e / d;
}

namespace vec_math {
// log(erfc(a) / t) + a^2 with t = 1 / (1 + a/2), for 0 <= a <= 10.5, as a polynomial in t - 1/2
// (a minimax fit; evaluated in float, its absolute error, i.e. erfc's relative error, is below
// 1.6e-7).
inline float erfc_exponent(float t) {  // summed in pairs, as expm1_reduced
  const float u = t - 0.5f, u2 = u * u, u4 = u2 * u2, u8 = u4 * u4;
  const float c0 = -6.717940569e-01f + 1.345285416e+00f * u, c2 = 1.893652380e-01f - 3.750621974e-01f * u;
  const float c4 = -1.576199234e-01f + 2.792927325e-01f * u, c6 = 1.083789617e-01f - 2.618900239e-01f * u;
  const float c8 = -2.966965176e-02f + 1.457548141e-01f * u;
  return (c0 + c2 * u2) + (c4 + c6 * u2) * u4 + c8 * u8;
}

// e^(hi + lo) for an exact hi and a small lo (|lo| < 4): hi is reduced by the multiple of ln 2
// before lo joins it, so a large hi (-x^2/2 formed exactly) costs no precision, as rounding
// hi + lo first would (up to 2^-24 |hi| relative).
inline float exp_sum_f32(float hi, float lo) {
  const float s = hi + lo;  // only picks k; clamped as exp_f32 clamps x
  if (s < -104.0f) hi = -104.0f, lo = 0.0f;
  if (s > 89.0f) hi = 89.0f, lo = 0.0f;
  const Ln2Reduced k = reduce_ln2(hi + lo);
  return exp_scaled(((hi - k.kf * kLn2Hi) + lo) - k.kf * kLn2Lo, k.k);
}

// erfc(|x| / sqrt 2) = t e^(P(t)) e^(-x^2/2), and e^(-x^2/2), for gelu and its gradient. x^2 / 2
// is formed from |x| split in two (the high half squares exactly): rounding it would cost up to
// x^2 units of 2^-24 in the result. |x| beyond 16 (both are 0 in float) is taken as 16.
struct NormalTail {
  float tail;      // erfc(|x| / sqrt 2) = 2 P(N(0, 1) > |x|)
  float gaussian;  // e^(-x^2 / 2)
};
inline NormalTail normal_tail(float x, bool with_gaussian) {
  constexpr float kSqrtHalf = 0.70710678118654752f;
  const float ax = std::fabs(x) > 16.0f ? 16.0f : std::fabs(x);  // NaN passes
  const float t = 1.0f / (1.0f + 0.5f * (ax * kSqrtHalf));
  const float hi = std::bit_cast<float>(std::bit_cast<uint32_t>(ax) & 0xfffff000u);
  const float rest = 0.5f * (ax - hi) * (ax + hi);
  if (!with_gaussian) return {t * exp_sum_f32(-0.5f * hi * hi, erfc_exponent(t) - rest), 0.0f};
  const float gaussian = exp_sum_f32(-0.5f * hi * hi, -rest);
  return {(t * exp_f32(erfc_exponent(t))) * gaussian, gaussian};
}
}  // namespace vec_math

// The standard normal distribution function P(N(0, 1) <= x) = erfc(-x / sqrt 2) / 2, accurate
// in relative terms in the far left tail too (gelu multiplies it by x): one exponential.
inline float normal_cdf_f32(float x) {
  const float tail = vec_math::normal_tail(x, false).tail;
  return x <= 0.0f ? 0.5f * tail : 1.0f - 0.5f * tail;
}

// e^x in the precision of A (float: exp_f32; double: the C library).
template <class A>
inline A exp_acc(A x) {
  if constexpr (std::is_same_v<A, float>) return exp_f32(x);
  else return std::exp(x);
}

}  // namespace glassbox::cpu
