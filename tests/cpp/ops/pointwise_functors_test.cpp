// The functors of the structured element-wise operators (engine/ops/pointwise_functors.h): each
// names itself and its formula, and computes on the host what the CPU loops and the CUDA launcher
// compute with it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

#include "engine/ops/pointwise_functors.h"

namespace glassbox::functors {
namespace {

template <class... Fn>
void expect_named() {
  const std::string_view names[] = {Fn::name...}, formulas[] = {Fn::formula...};
  for (std::string_view n : names) EXPECT_FALSE(n.empty());
  for (std::string_view f : formulas) EXPECT_FALSE(f.empty());
}

TEST(PointwiseFunctors, EveryOperatorFunctorHasANameAndAFormula) {
  expect_named<Abs, Sign, Neg, Sqrt, Rsqrt, Exp, Log, Log1p, Expm1, Sin, Cos, Tanh, Sigmoid, Silu, Relu, Gelu, GeluErf,
               GeluTanh, LogicalNot, Add, Sub, Mul, Div, Maximum, Minimum, Pow, Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd,
               LogicalOr, LogicalXor, Clamp, SigmoidBackward, TanhBackward, SiluBackward, GeluBackward,
               ThresholdBackward>();
  EXPECT_EQ(std::string_view(Add::formula), "self + alpha * other");
  EXPECT_EQ(std::string_view(Eq::name), "eq");
}

TEST(PointwiseFunctors, FamiliesCarryTheDtypeRule) {
  static_assert(Sqrt::kind == UnaryKind::IntToFloat && Abs::kind == UnaryKind::Keep &&
                Gelu::kind == UnaryKind::FloatOnly);
  static_assert(Div::kind == BinaryKind::IntToFloat && Eq::kind == BinaryKind::Compare &&
                Pow::kind == BinaryKind::Numeric);
  static_assert(has_bool_result<Lt>() && has_bool_result<LogicalNot>() && !has_bool_result<Add>());
  static_assert(Add::direct && !Maximum::direct && Exp::transcendental && !Abs::transcendental);
}

TEST(PointwiseFunctors, ComputeOnTheHost) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(Abs{}(int8_t{-5}), 5);
  EXPECT_EQ(Sign{}(-2.5), -1.0);
  EXPECT_EQ(Sign{}(nan), 0.0);  // both comparisons are false
  EXPECT_TRUE(std::isnan(Maximum{}(1.0, nan)) && std::isnan(Minimum{}(nan, 1.0)));
  EXPECT_EQ(Add::Scaled<int64_t>{3}(1, 2), 7);
  EXPECT_EQ(Sub::Scaled<uint8_t>{2}(1, 1), 255);  // wraps as uint8 arithmetic
  EXPECT_EQ(IntegerPow{}(int64_t{3}, int64_t{4}), 81);
  EXPECT_EQ(IntegerPow{}(int64_t{-1}, int64_t{-3}), -1);
  EXPECT_EQ(IntegerPow{}(int64_t{2}, int64_t{-1}), 0);
  EXPECT_EQ(ClampBoth{}(5.0, 0.0, 2.0), 2.0);
  EXPECT_EQ(ClampBoth{}(1.0, 3.0, 2.0), 2.0);  // min > max gives max
  EXPECT_TRUE(std::isnan(ClampMin{}(1.0, nan)));
  EXPECT_TRUE(LogicalXor{}(0.0, nan) && !LogicalAnd{}(0, 3));
  EXPECT_EQ(ThresholdBackward::Fn<double>{0.5}(7.0, 0.5), 0.0);
  EXPECT_EQ(ThresholdBackward::Fn<double>{0.5}(7.0, 0.6), 7.0);
  EXPECT_NEAR(GeluErf{}(1.0), 0.8413447460685429, 1e-15);
  EXPECT_NEAR(SigmoidBackward{}(2.0, 0.25), 2.0 * 0.25 * 0.75, 1e-15);
}

// with<C> picks the element functor from the call's arguments: the plain sum for alpha == 1, the
// exact shortcuts of pow for a one-element exponent.
TEST(PointwiseFunctors, WithPicksTheElementFunctor) {
  int picked = 0;
  auto record = [&](const auto& f) {
    using F = std::decay_t<decltype(f)>;
    picked = std::is_same_v<F, Plus> ? 1 : std::is_same_v<F, Add::Scaled<float>> ? 2 : 0;
  };
  Add::with<float>(record, Tensor(), Tensor(), Scalar(int64_t{1}));
  EXPECT_EQ(picked, 1);
  Add::with<float>(record, Tensor(), Tensor(), Scalar(2.5));
  EXPECT_EQ(picked, 2);
}

}  // namespace
}  // namespace glassbox::functors
