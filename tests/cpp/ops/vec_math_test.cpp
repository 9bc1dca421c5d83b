// The float32 math of engine/cpu/vec_math.h against the C library in double precision, over
// float bit patterns spread across the whole range (subnormals, huge values, infinities, NaNs):
// errors in units in the last place of the correctly rounded result, and special values exactly.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "engine/cpu/vec_math.h"

using namespace glassbox::cpu;

namespace {
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// One unit in the last place of float at `v` (the subnormal spacing below the normal range).
double ulp_at(double v) {
  const double a = std::fabs(v);
  if (a < std::ldexp(1.0, -126)) return std::ldexp(1.0, -149);
  int e = 0;
  std::frexp(std::min(a, 3.4028234663852886e38), &e);
  return std::ldexp(1.0, e - 24);
}

struct Sweep {
  double worst_ulp = 0;
  float worst_x = 0;
  std::string special_failure;  // the first special value that came out wrong
};

// Every `stride`-th bit pattern (all of them for stride 1) with lo <= x <= hi, or NaN.
Sweep sweep(const std::function<float(float)>& f, const std::function<double(double)>& ref, uint32_t stride,
            double lo = -kInf, double hi = kInf) {
  Sweep s;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += stride) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (!std::isnan(x) && (x < lo || x > hi)) continue;
    const float got = f(x);
    const double want = ref(x);
    const float rounded = static_cast<float>(want);
    if (std::isnan(rounded) || std::isinf(rounded) || std::isnan(got) || std::isinf(got)) {
      // NaN for NaN; an infinite result where the exact one overflows float, and only there.
      const bool ok = std::isnan(rounded)
                          ? std::isnan(got)
                          : (std::isinf(got) && std::fabs(want) >= 3.4028235677973366e38 &&
                             std::signbit(got) == std::signbit(want)) ||
                                (std::isfinite(got) && std::fabs(got) == 3.40282347e38f && std::isinf(rounded));
      if (!ok && s.special_failure.empty())
        s.special_failure = "x=" + std::to_string(x) + " got " + std::to_string(got) + " want " + std::to_string(want);
      continue;
    }
    const double err = std::fabs(static_cast<double>(got) - want) / ulp_at(want);
    if (err > s.worst_ulp) s.worst_ulp = err, s.worst_x = x;
  }
  return s;
}

void expect_within(const char* name, const Sweep& s, double max_ulp) {
  EXPECT_LE(s.worst_ulp, max_ulp) << name << ": worst at x=" << s.worst_x << " (" << std::hexfloat << s.worst_x << ")";
  EXPECT_TRUE(s.special_failure.empty()) << name << ": " << s.special_failure;
}

constexpr uint32_t kStride = 997;  // 4.3 million inputs per function
}  // namespace

TEST(VecMath, ExpAndExpm1) {
  expect_within("exp",
                sweep(
                    exp_f32, [](double x) { return std::exp(x); }, kStride),
                1.5);
  expect_within("expm1",
                sweep(
                    expm1_f32, [](double x) { return std::expm1(x); }, kStride),
                2.0);
  // The edges: overflow, the subnormal results, and the sign of zero.
  EXPECT_EQ(exp_f32(88.72283f), std::exp(88.72283f));
  EXPECT_EQ(exp_f32(88.7229f), kInf);
  EXPECT_EQ(exp_f32(-kInf), 0.0f);
  EXPECT_EQ(exp_f32(kInf), kInf);
  EXPECT_GT(exp_f32(-100.0f), 0.0f);  // subnormal, not flushed
  EXPECT_NEAR(exp_f32(-100.0f), std::exp(-100.0f), 2e-45);
  EXPECT_EQ(exp_f32(-104.0f), 0.0f);
  EXPECT_EQ(expm1_f32(-kInf), -1.0f);
  EXPECT_TRUE(std::signbit(expm1_f32(-0.0f)));
  EXPECT_EQ(expm1_f32(1e-30f), 1e-30f);
}

TEST(VecMath, LogAndLog1p) {
  expect_within("log",
                sweep(
                    log_f32, [](double x) { return std::log(x); }, kStride),
                1.5);
  expect_within("log1p",
                sweep(
                    log1p_f32, [](double x) { return std::log1p(x); }, kStride),
                3.0);
  EXPECT_EQ(log_f32(0.0f), -kInf);
  EXPECT_EQ(log_f32(-0.0f), -kInf);
  EXPECT_TRUE(std::isnan(log_f32(-1.0f)));
  EXPECT_TRUE(std::isnan(log_f32(-kInf)));
  EXPECT_EQ(log_f32(kInf), kInf);
  EXPECT_EQ(log_f32(1.0f), 0.0f);
  EXPECT_NEAR(log_f32(std::numeric_limits<float>::denorm_min()), std::log(std::numeric_limits<float>::denorm_min()),
              1e-5);
  EXPECT_EQ(log1p_f32(-1.0f), -kInf);
  EXPECT_EQ(log1p_f32(kInf), kInf);
  EXPECT_TRUE(std::signbit(log1p_f32(-0.0f)));
}

TEST(VecMath, SinAndCosUpToTheFastBound) {
  expect_within("sin",
                sweep(
                    sin_f32, [](double x) { return std::sin(x); }, kStride, -kTrigFastMax, kTrigFastMax),
                2.0);
  expect_within("cos",
                sweep(
                    cos_f32, [](double x) { return std::cos(x); }, kStride, -kTrigFastMax, kTrigFastMax),
                2.0);
  // Arguments a float's rounding puts closest to multiples of pi/2 need the careful reduction.
  for (float x : {3.14159274f, 1.57079637f, 6.28318548f, 205887.4f, 823549.6f}) {
    EXPECT_LE(std::fabs(sin_f32(x) - std::sin(static_cast<double>(x))), 2 * ulp_at(std::sin(static_cast<double>(x))))
        << x;
    EXPECT_LE(std::fabs(cos_f32(x) - std::cos(static_cast<double>(x))), 2 * ulp_at(std::cos(static_cast<double>(x))))
        << x;
  }
  EXPECT_TRUE(std::signbit(sin_f32(-0.0f)));
  EXPECT_TRUE(std::isnan(sin_f32(kNaN)));
}

TEST(VecMath, TanhSigmoidAndNormalCdf) {
  expect_within("tanh",
                sweep(
                    tanh_f32, [](double x) { return std::tanh(x); }, kStride),
                3.0);
  expect_within("sigmoid",
                sweep(
                    sigmoid_f32, [](double x) { return 1 / (1 + std::exp(-x)); }, kStride),
                3.0);
  expect_within("normal_cdf",
                sweep(
                    normal_cdf_f32, [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }, kStride),
                8.0);
  EXPECT_EQ(tanh_f32(kInf), 1.0f);
  EXPECT_EQ(tanh_f32(-kInf), -1.0f);
  EXPECT_TRUE(std::signbit(tanh_f32(-0.0f)));
  EXPECT_EQ(sigmoid_f32(-kInf), 0.0f);
  EXPECT_EQ(sigmoid_f32(kInf), 1.0f);
  EXPECT_GT(sigmoid_f32(-100.0f), 0.0f);  // e^-100: tiny, not flushed
  EXPECT_EQ(normal_cdf_f32(-kInf), 0.0f);
  EXPECT_EQ(normal_cdf_f32(kInf), 1.0f);
  EXPECT_TRUE(std::isnan(normal_cdf_f32(kNaN)));
}
