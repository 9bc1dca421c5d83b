// The point-wise operators end to end through the dispatcher: unary math, activations, pow, clamp,
// where, comparisons, logical ops, maximum/minimum, the arithmetic overloads and the activation
// gradients (against central differences); in-place and out= forms, the Meta device, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "glassbox/ops/Functions.h"
#include "registry/registry_dump.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using glassbox::testing::error_of;

namespace {
template <class T>
Tensor make(std::vector<T> v, std::vector<int64_t> sizes = {}) {
  if (sizes.empty()) sizes = {static_cast<int64_t>(v.size())};
  Tensor t = empty(sizes, CppTypeToScalarType<T>::value);
  for (size_t i = 0; i < v.size(); ++i) t.data<T>()[i] = v[i];
  return t;
}
template <class T>
std::vector<T> values(const Tensor& t) {
  const Tensor c = t.is_contiguous() ? t : clone(t);
  return std::vector<T>(c.data<T>(), c.data<T>() + c.numel());
}
std::vector<float> floats(const Tensor& t) { return values<float>(t.to(ScalarType::Float32)); }
const Device kMeta = Device::parse("meta");

}  // namespace

TEST(UnaryMath, FloatFunctionsAgainstTheStandardLibrary) {
  const std::vector<double> xs = {0.25, 0.5, 1.0, 1.5, 2.75};
  const Tensor x = make<double>(xs);
  const std::vector<std::pair<Tensor, std::function<double(double)>>> cases = {
      {sqrt(x), [](double v) { return std::sqrt(v); }},
      {rsqrt(x), [](double v) { return 1 / std::sqrt(v); }},
      {exp(x), [](double v) { return std::exp(v); }},
      {log(x), [](double v) { return std::log(v); }},
      {log1p(x), [](double v) { return std::log1p(v); }},
      {expm1(x), [](double v) { return std::expm1(v); }},
      {sin(x), [](double v) { return std::sin(v); }},
      {cos(x), [](double v) { return std::cos(v); }},
      {tanh(x), [](double v) { return std::tanh(v); }},
      {sigmoid(x), [](double v) { return 1 / (1 + std::exp(-v)); }},
      {silu(x), [](double v) { return v / (1 + std::exp(-v)); }},
  };
  for (const auto& [got, f] : cases) {
    ASSERT_EQ(got.dtype(), ScalarType::Float64);
    ASSERT_EQ(got.sizes(), DimVector({5}));
    const auto gv = values<double>(got);
    for (size_t i = 0; i < xs.size(); ++i) EXPECT_DOUBLE_EQ(gv[i], f(xs[i]));
  }
}

TEST(UnaryMath, IntegersComputeInFloatUnlessTheOpKeepsThem) {
  const Tensor i = make<int64_t>({-3, 0, 4});
  EXPECT_EQ(sqrt(i).dtype(), ScalarType::Float32);
  EXPECT_EQ(exp(make<bool>({true, false})).dtype(), ScalarType::Float32);
  EXPECT_EQ(values<float>(sigmoid(make<int32_t>({0}))), std::vector<float>{0.5f});
  EXPECT_EQ(values<int64_t>(abs(i)), (std::vector<int64_t>{3, 0, 4}));
  EXPECT_EQ(values<int64_t>(sign(i)), (std::vector<int64_t>{-1, 0, 1}));
  EXPECT_EQ(values<int64_t>(relu(i)), (std::vector<int64_t>{0, 0, 4}));
  EXPECT_EQ(values<int8_t>(neg(make<int8_t>({5, -2}))), (std::vector<int8_t>{-5, 2}));
  EXPECT_EQ(values<bool>(sign(make<bool>({true, false}))), (std::vector<bool>{true, false}));
  EXPECT_EQ(values<float>(sign(make<float>({-2.5f, 0.0f, 7.0f}))), (std::vector<float>{-1, 0, 1}));
  EXPECT_EQ(values<float>(sign(make<float>({NAN})))[0], 0.0f);  // PyTorch's sign: (0 < x) - (x < 0)
  EXPECT_TRUE(std::isnan(values<float>(relu(make<float>({NAN})))[0]));
  // float16 computes in float32 and rounds once.
  const Tensor h = exp(make<float>({1.0f}).to(ScalarType::Float16));
  ASSERT_EQ(h.dtype(), ScalarType::Float16);
  EXPECT_NEAR(floats(h)[0], std::exp(1.0f), 2e-3);
}

TEST(UnaryMath, InPlaceAndOutForms) {
  Tensor x = make<float>({1, 4, 9});
  Tensor& r = sqrt_(x);
  EXPECT_EQ(&r, &x);
  EXPECT_EQ(values<float>(x), (std::vector<float>{1, 2, 3}));
  const auto round_trip = values<float>(x.exp_().log_());
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(round_trip[k], k + 1, 1e-6);
  Tensor out = empty({3}, ScalarType::Float64);  // a wider output takes the float32 result
  abs_out(out, make<float>({-1, 2, -3}));
  EXPECT_EQ(values<double>(out), (std::vector<double>{1, 2, 3}));
  Tensor n = make<int32_t>({1, -2});
  n.neg_();
  EXPECT_EQ(values<int32_t>(n), (std::vector<int32_t>{-1, 2}));
  relu_(n);
  EXPECT_EQ(values<int32_t>(n), (std::vector<int32_t>{0, 2}));
  Tensor nc = make<float>({-1, 2, -3, 4, -5, 6}, {2, 3}).t();  // non-contiguous, in place
  nc.abs_();
  EXPECT_EQ(values<float>(nc), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(UnaryMath, ErrorsNameOperatorDtypeAndShape) {
  Tensor i = make<int64_t>({1, 2, 3});
  EXPECT_EQ(error_of([&] { sqrt_(i); }),
            "sqrt_: result type float32 can't be cast to the desired output type int64 (output int64 of shape [3])");
  EXPECT_EQ(error_of([&] { gelu(i); }), "gelu: expected a floating-point tensor, got int64 of shape [3]");
  EXPECT_EQ(error_of([&] { abs(make<bool>({true})); }), "abs: not supported for bool tensors (got bool of shape [1])");
  EXPECT_EQ(error_of([&] { gelu(make<float>({1}), "fast"); }),
            "gelu: approximate must be 'none' or 'tanh', got 'fast'");
  Tensor small = empty({1});  // an out of another shape is resized, as in PyTorch
  exp_out(small, make<float>({0, 0, 0}));
  EXPECT_EQ(values<float>(small), (std::vector<float>{1, 1, 1}));
  Tensor one = make<float>({0});
  EXPECT_EQ(error_of([&] {
              one.add_(make<float>({1, 2, 3}));
            }),
            "add_: output of shape [1] does not match the broadcast shape [3] of the inputs");
  EXPECT_THROW(silu(i), NotImplementedError);
}

TEST(Activations, GeluBothApproximationsAndLogicalNot) {
  const std::vector<double> xs = {-2.0, -0.5, 0.0, 0.7, 3.0};
  const auto exact = values<double>(gelu(make<double>(xs)));
  const auto approx = values<double>(gelu(make<double>(xs), "tanh"));
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i];
    EXPECT_DOUBLE_EQ(exact[i], 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))));
    EXPECT_NEAR(approx[i], 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))), 1e-15);
    EXPECT_NEAR(approx[i], exact[i], 1e-3);  // the approximation is close
  }
  const Tensor n = logical_not(make<float>({0.0f, 2.0f, NAN}));
  ASSERT_EQ(n.dtype(), ScalarType::Bool);
  EXPECT_EQ(values<bool>(n), (std::vector<bool>{true, false, false}));
}

TEST(Pow, PromotionIntegersAndScalars) {
  EXPECT_EQ(values<float>(pow(make<float>({2, 3}), make<float>({3, 0.5f}))),
            (std::vector<float>{8, std::pow(3.0f, 0.5f)}));
  const Tensor p = pow(make<int64_t>({2, 3, -2, 1, -1, 0}), make<int64_t>({10, 3, -1, -5, -3, 2}));
  ASSERT_EQ(p.dtype(), ScalarType::Int64);
  EXPECT_EQ(values<int64_t>(p), (std::vector<int64_t>{1024, 27, 0, 1, -1, 0}));
  EXPECT_EQ(pow(make<int32_t>({2}), Scalar(2.5)).dtype(), ScalarType::Float32);  // weak float exponent
  EXPECT_EQ(values<int32_t>(pow(make<int32_t>({3}), Scalar(2))), std::vector<int32_t>{9});
  EXPECT_EQ(values<float>(pow(Scalar(2.0), make<float>({3, -1}))), (std::vector<float>{8, 0.5f}));
  EXPECT_EQ(pow(Scalar(2), make<int16_t>({3})).dtype(), ScalarType::Int16);
  EXPECT_EQ(values<float>(pow(make<float>({-3, 1.5f}), Scalar(2))), (std::vector<float>{9, 2.25f}));
  EXPECT_EQ(values<float>(pow(make<float>({4}), Scalar(-1))), std::vector<float>{0.25f});
  Tensor x = make<double>({2, 3});
  x.pow_(Scalar(2)).pow_(make<double>({0.5, 1}));
  EXPECT_EQ(values<double>(x), (std::vector<double>{2, 9}));
  Tensor out = empty({2});
  pow_out(out, make<float>({1, 2}), Scalar(3));
  EXPECT_EQ(values<float>(out), (std::vector<float>{1, 8}));
  EXPECT_EQ(error_of([] {
              pow(make<int64_t>({2, 3}), Scalar(-2));
            }),
            "pow: integers to negative integer powers are not allowed (self int64 of shape [2], exponent -2)");
  EXPECT_EQ(error_of([] { pow(make<bool>({true}), make<bool>({true})); }),
            "pow: not supported for bool tensors (got bool of shape [1] and bool of shape [1])");
}

TEST(Clamp, NumbersTensorsAndOneSidedForms) {
  const Tensor x = make<float>({-3, -1, 0, 2, 5});
  EXPECT_EQ(values<float>(clamp(x, Scalar(-1.5), Scalar(2.5))), (std::vector<float>{-1.5f, -1, 0, 2, 2.5f}));
  EXPECT_EQ(values<float>(clamp(x, std::nullopt, Scalar(0))), (std::vector<float>{-3, -1, 0, 0, 0}));
  EXPECT_EQ(values<float>(clamp_min(x, Scalar(1))), (std::vector<float>{1, 1, 1, 2, 5}));
  EXPECT_EQ(values<float>(clamp_max(x, Scalar(1))), (std::vector<float>{-3, -1, 0, 1, 1}));
  EXPECT_EQ(values<float>(clamp(x, Scalar(3), Scalar(1))), std::vector<float>(5, 1));  // min > max: max wins
  // Tensor bounds broadcast: a column of lower bounds against a row.
  const Tensor lo = make<float>({0, 1}, {2, 1});
  const Tensor c = clamp_Tensor(make<float>({-1, 0.5f, 3}), lo, make<float>({2}));
  ASSERT_EQ(c.sizes(), DimVector({2, 3}));
  EXPECT_EQ(values<float>(c), (std::vector<float>{0, 0.5f, 2, 1, 1, 2}));
  EXPECT_EQ(clamp(make<int64_t>({1, 5}), Scalar(0.5)).dtype(), ScalarType::Float32);
  EXPECT_EQ(values<int64_t>(clamp(make<int64_t>({-7, 5, 9}), Scalar(0), Scalar(6))), (std::vector<int64_t>{0, 5, 6}));
  Tensor y = make<double>({-2, 2});
  clamp_(y, Scalar(-1), Scalar(1));
  EXPECT_EQ(values<double>(y), (std::vector<double>{-1, 1}));
  Tensor out = empty({5});
  clamp_out(out, x, Scalar(0));
  EXPECT_EQ(values<float>(out), (std::vector<float>{0, 0, 0, 2, 5}));
  EXPECT_EQ(error_of([&] { clamp(x); }), "clamp: at least one of 'min' or 'max' must not be None");
  Tensor ints = make<int32_t>({1});
  EXPECT_EQ(error_of([&] { clamp_(ints, Scalar(0.5)); }),
            "clamp_: result type float32 can't be cast to the desired output type int32 (output int32 of shape [1])");
}

TEST(Where, BroadcastsAllThreeAndPromotes) {
  const Tensor cond = make<bool>({true, false, true}, {3, 1});
  const Tensor w = where(cond, make<int32_t>({1, 2}), make<float>({10}, {1, 1}).to(ScalarType::Float64).squeeze());
  ASSERT_EQ(w.sizes(), DimVector({3, 2}));
  ASSERT_EQ(w.dtype(), ScalarType::Float64);  // a 0-d float64 other promotes an int32 self to float
  EXPECT_EQ(values<double>(w), (std::vector<double>{1, 2, 10, 10, 1, 2}));
  EXPECT_EQ(values<float>(where(make<bool>({true, false}), make<float>({1, 2}), Scalar(0.5))),
            (std::vector<float>{1, 0.5f}));
  const Tensor s = where(make<bool>({false, true}), Scalar(1), Scalar(0));
  EXPECT_EQ(s.dtype(), ScalarType::Int64);
  EXPECT_EQ(values<int64_t>(s), (std::vector<int64_t>{0, 1}));
  Tensor out = empty({2}, ScalarType::Float64);  // out= of a wider dtype
  where_out(out, make<bool>({true, false}), make<float>({1, 2}), make<float>({3, 4}));
  EXPECT_EQ(values<double>(out), (std::vector<double>{1, 4}));
  EXPECT_EQ(error_of([] { where(make<float>({1}), make<float>({1}), make<float>({2})); }),
            "where: expected condition to be a bool tensor, got float32 of shape [1]");
  EXPECT_EQ(error_of([] {
              where(make<bool>({true, false}), make<float>({1, 2, 3}), make<float>({1}));
            }),
            "where: shapes [2] and [3] cannot be broadcast together (dimension 0: 2 vs 3)");
}

TEST(Comparisons, AllSixWithTensorsNumbersAndOut) {
  const Tensor a = make<int32_t>({1, 2, 3}), b = make<float>({2, 2, 2});
  const std::vector<std::pair<Tensor, std::vector<bool>>> cases = {
      {eq(a, b), {false, true, false}},          {ne(a, b), {true, false, true}},
      {lt(a, b), {true, false, false}},          {le(a, b), {true, true, false}},
      {gt(a, b), {false, false, true}},          {ge(a, b), {false, true, true}},
      {lt(a, Scalar(2.5)), {true, true, false}}, {eq(a, Scalar(3)), {false, false, true}},
  };
  for (const auto& [got, want] : cases) {
    ASSERT_EQ(got.dtype(), ScalarType::Bool);
    EXPECT_EQ(values<bool>(got), want);
  }
  EXPECT_EQ(values<bool>(gt(make<int64_t>({2}, {1, 1}), make<int64_t>({1, 2, 3}))),
            (std::vector<bool>{true, false, false}));
  Tensor out = empty({3}, ScalarType::Float32);  // bool results convert into any output
  ge_out(out, a, b);
  EXPECT_EQ(values<float>(out), (std::vector<float>{0, 1, 1}));
  Tensor x = make<float>({1, 5});
  x.gt_(Scalar(2));
  EXPECT_EQ(values<float>(x), (std::vector<float>{0, 1}));
  EXPECT_EQ(values<bool>(ne(make<float>({NAN}), make<float>({NAN}))), std::vector<bool>{true});
}

TEST(Logical, AndOrXorNotAndExtrema) {
  const Tensor a = make<float>({0, 0, 2, NAN}), b = make<int64_t>({0, 3, 0, 1});
  EXPECT_EQ(values<bool>(logical_and(a, b)), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(values<bool>(logical_or(a, b)), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(values<bool>(logical_xor(a, b)), (std::vector<bool>{false, true, true, false}));
  Tensor m = make<bool>({true, false});
  m.logical_and_(make<bool>({true, true}));
  EXPECT_EQ(values<bool>(m), (std::vector<bool>{true, false}));
  const Tensor mx = maximum(make<float>({1, NAN, 3}), make<int32_t>({2, 0, 1}));
  ASSERT_EQ(mx.dtype(), ScalarType::Float32);
  const auto mv = values<float>(mx);
  EXPECT_EQ(mv[0], 2);
  EXPECT_TRUE(std::isnan(mv[1]));  // NaN propagates
  EXPECT_EQ(mv[2], 3);
  EXPECT_EQ(values<int16_t>(minimum(make<int16_t>({4, -9}), make<int16_t>({3, 0}))), (std::vector<int16_t>{3, -9}));
  Tensor out = empty({2}, ScalarType::Int64);
  maximum_out(out, make<int64_t>({1, 8}), make<int64_t>({5, 2}));
  EXPECT_EQ(values<int64_t>(out), (std::vector<int64_t>{5, 8}));
}

TEST(ArithmeticOverloads, ScalarsInPlaceAndOut) {
  const Tensor x = make<float>({1, 2, 3});
  EXPECT_EQ(values<float>(sub(x, Scalar(1), Scalar(2))), (std::vector<float>{-1, 0, 1}));
  EXPECT_EQ(values<float>(div(x, Scalar(2))), (std::vector<float>{0.5f, 1, 1.5f}));
  EXPECT_EQ(div(make<int64_t>({1}), Scalar(2)).dtype(), ScalarType::Float32);
  Tensor y = make<float>({1, 2, 3});
  y.sub_(make<float>({1, 1, 1})).mul_(Scalar(4)).div_(make<float>({2})).add_(Scalar(1)).sub_(Scalar(1), Scalar(2));
  EXPECT_EQ(values<float>(y), (std::vector<float>{-1, 1, 3}));
  Tensor out = empty({3});
  mul_out(out, x, x);
  EXPECT_EQ(values<float>(out), (std::vector<float>{1, 4, 9}));
  sub_out(out, x, x, Scalar(2));
  EXPECT_EQ(values<float>(out), (std::vector<float>{-1, -2, -3}));
  div_out(out, x, make<float>({4}));
  EXPECT_EQ(values<float>(out), (std::vector<float>{0.25f, 0.5f, 0.75f}));
  Tensor i = make<int64_t>({4});
  EXPECT_EQ(error_of([&] { i.div_(make<int64_t>({2})); }),
            "div_: result type float32 can't be cast to the desired output type int64 (output int64 of shape [1])");
  EXPECT_EQ(error_of([&] { i.add_(Scalar(0.5)); }),
            "add_: result type float32 can't be cast to the desired output type int64 (output int64 of shape [1])");
  EXPECT_THROW(sub_out(out, make<bool>({true}), make<bool>({true})), NotImplementedError);
}

TEST(ArithmeticOverloads, RoundingModes) {
  const Tensor a = make<int64_t>({7, -7, 7, -7, INT64_MIN}), b = make<int64_t>({2, 2, -2, -2, -1});
  EXPECT_EQ(values<int64_t>(div(a, b, "trunc")), (std::vector<int64_t>{3, -3, -3, 3, INT64_MIN}));
  EXPECT_EQ(values<int64_t>(div(a, b, "floor")), (std::vector<int64_t>{3, -4, -4, 3, INT64_MIN}));
  EXPECT_EQ(div(a, b, std::nullopt).dtype(), ScalarType::Float32);
  EXPECT_EQ(values<uint8_t>(div(make<uint8_t>({255, 7}), make<uint8_t>({2, 3}), "floor")),
            (std::vector<uint8_t>{127, 2}));
  const Tensor f = make<double>({7.5, -7.5, 1, -0.5}), g = make<double>({-2, 2, 0, 4});
  const auto fl = values<double>(div(f, g, "floor"));
  EXPECT_EQ(fl[0], -4);
  EXPECT_EQ(fl[1], -4);
  EXPECT_TRUE(std::isinf(fl[2]));  // division by zero in floating point: as true division
  EXPECT_EQ(fl[3], -1);
  EXPECT_EQ(values<double>(div(f, g, "trunc"))[1], -3);
  EXPECT_EQ(values<float>(div(make<float>({-7}), Scalar(2), "floor")), std::vector<float>{-4});
  Tensor i = make<int32_t>({9, -9});
  i.div_(make<int32_t>({4}), "floor");
  EXPECT_EQ(values<int32_t>(i), (std::vector<int32_t>{2, -3}));
  Tensor out = empty({2}, ScalarType::Int32);
  div_out(out, make<int32_t>({9, -9}), make<int32_t>({4}), "trunc");
  EXPECT_EQ(values<int32_t>(out), (std::vector<int32_t>{2, -2}));
  EXPECT_EQ(error_of([] {
              div(make<int64_t>({1, 2}), make<int64_t>({1, 0}), "floor");
            }),
            "div: integer division by zero (rounding_mode='floor', self int64 of shape [2], other int64 of shape [2])");
  EXPECT_EQ(error_of([] { div(make<float>({1}), make<float>({1}), "round"); }),
            "div: rounding_mode must be None, 'trunc' or 'floor', got 'round'");
}

namespace {
// Central differences of the forward f at x (float64), times the incoming gradient g.
std::vector<double> numeric_gradient(const std::function<Tensor(const Tensor&)>& f, const std::vector<double>& x,
                                     const std::vector<double>& g) {
  const double h = 1e-6;
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double up = values<double>(f(make<double>({x[i] + h})))[0];
    const double down = values<double>(f(make<double>({x[i] - h})))[0];
    out[i] = g[i] * (up - down) / (2 * h);
  }
  return out;
}
void expect_close(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-6 * (1 + std::abs(want[i]))) << what << " [" << i << "]";
}
}  // namespace

TEST(ActivationGradients, MatchCentralDifferencesOfTheForward) {
  const std::vector<double> xs = {-2.5, -0.7, -0.1, 0.3, 1.2, 3.0}, gs = {0.5, -1.0, 2.0, 1.5, -0.3, 1.0};
  const Tensor x = make<double>(xs), g = make<double>(gs);
  expect_close(values<double>(sigmoid_backward(g, sigmoid(x))),
               numeric_gradient([](const Tensor& t) { return sigmoid(t); }, xs, gs), "sigmoid");
  expect_close(values<double>(tanh_backward(g, tanh(x))),
               numeric_gradient([](const Tensor& t) { return tanh(t); }, xs, gs), "tanh");
  expect_close(values<double>(silu_backward(g, x)), numeric_gradient([](const Tensor& t) { return silu(t); }, xs, gs),
               "silu");
  expect_close(values<double>(gelu_backward(g, x)), numeric_gradient([](const Tensor& t) { return gelu(t); }, xs, gs),
               "gelu");
  expect_close(values<double>(gelu_backward(g, x, "tanh")),
               numeric_gradient([](const Tensor& t) { return gelu(t, "tanh"); }, xs, gs), "gelu tanh");
  expect_close(values<double>(threshold_backward(g, x, Scalar(0))),
               numeric_gradient([](const Tensor& t) { return relu(t); }, xs, gs), "relu");
  // threshold_backward keeps integer gradients and compares with the threshold, not 0.
  EXPECT_EQ(values<int64_t>(threshold_backward(make<int64_t>({5, 6, 7}), make<int64_t>({1, 2, 3}), Scalar(2))),
            (std::vector<int64_t>{0, 0, 7}));
  EXPECT_EQ(sigmoid_backward(g.to(ScalarType::Float32), x).dtype(), ScalarType::Float64);
  EXPECT_EQ(error_of([] { silu_backward(make<int64_t>({1}), make<int64_t>({1})); }),
            "silu_backward: expected floating-point tensors, got int64 of shape [1] and int64 of shape [1]");
}

TEST(Meta, EveryFamilyInfersShapeAndDtypeWithoutData) {
  const Tensor a = empty({4, 1, 3}, ScalarType::Int32, kMeta), b = empty({5, 1}, ScalarType::Float16, kMeta);
  const Tensor cond = empty({5, 3}, ScalarType::Bool, kMeta);
  const std::vector<std::tuple<Tensor, DimVector, ScalarType>> cases = {
      {sqrt(a), {4, 1, 3}, ScalarType::Float32},
      {abs(a), {4, 1, 3}, ScalarType::Int32},
      {gelu(b, "tanh"), {5, 1}, ScalarType::Float16},
      {logical_not(b), {5, 1}, ScalarType::Bool},
      {pow(a, b), {4, 5, 3}, ScalarType::Float16},
      {pow(a, Scalar(2)), {4, 1, 3}, ScalarType::Int32},
      {clamp(a, Scalar(0.5)), {4, 1, 3}, ScalarType::Float32},
      {where(cond, a, b), {4, 5, 3}, ScalarType::Float16},
      {lt(a, b), {4, 5, 3}, ScalarType::Bool},
      {eq(a, Scalar(1)), {4, 1, 3}, ScalarType::Bool},
      {logical_xor(a, b), {4, 5, 3}, ScalarType::Bool},
      {maximum(a, b), {4, 5, 3}, ScalarType::Float16},
      {div(a, a, "floor"), {4, 1, 3}, ScalarType::Int32},
      {sub(a, Scalar(1)), {4, 1, 3}, ScalarType::Int32},
      {sigmoid_backward(b, b), {5, 1}, ScalarType::Float16},
      {threshold_backward(a, a, Scalar(0)), {4, 1, 3}, ScalarType::Int32},
  };
  for (const auto& [t, shape, dtype] : cases) {
    EXPECT_EQ(t.device(), kMeta);
    EXPECT_EQ(t.sizes(), shape);
    EXPECT_EQ(t.dtype(), dtype);
    EXPECT_EQ(t.data_ptr(), nullptr);
  }
  Tensor m = empty({4, 1, 3}, ScalarType::Float32, kMeta);
  EXPECT_TRUE(m.exp_().is_same(m));
  EXPECT_EQ(
      error_of([&] { sqrt_(const_cast<Tensor&>(a)); }),
      "sqrt_: result type float32 can't be cast to the desired output type int32 (output int32 of shape [4, 1, 3])");
  EXPECT_EQ(error_of([&] { where(a, a, a); }),
            "where: expected condition to be a bool tensor, got int32 of shape [4, 1, 3]");
  EXPECT_THROW(add(a, empty({2}, ScalarType::Int32, kMeta)), Error);
  EXPECT_NE(error_of([&] { maximum(a, empty({3}, ScalarType::Int32)); }), "");  // meta and cpu mixed
}

TEST(Threads, LargeStridedInputsMatchSmallOnes) {
  set_num_threads(2);
  const int64_t n = 200000;
  Tensor x = empty({n, 2});
  for (int64_t i = 0; i < 2 * n; ++i) x.data<float>()[i] = static_cast<float>((i % 1000) - 500) / 100.0f;
  const Tensor col = x.select(1, 0);  // stride 2
  const auto e = values<float>(exp(col)), w = values<float>(where(gt(col, Scalar(0)), col, Scalar(-1)));
  const auto cv = values<float>(col);
  for (int64_t i = 0; i < n; i += 997) {
    EXPECT_FLOAT_EQ(e[i], std::exp(cv[i]));
    EXPECT_EQ(w[i], cv[i] > 0 ? cv[i] : -1.0f);
  }
}

TEST(Dispatch, PointwiseOperatorsHaveCpuAndMetaKernels) {
  const std::vector<std::pair<const char*, const char*>> ops = {{"glassbox::sqrt", ""},
                                                                {"glassbox::sqrt_", ""},
                                                                {"glassbox::sigmoid_backward", ""},
                                                                {"glassbox::where", "self"},
                                                                {"glassbox::clamp", "Tensor"},
                                                                {"glassbox::eq", "Tensor_out"},
                                                                {"glassbox::pow", "Tensor_Tensor"},
                                                                {"glassbox::div", "Tensor_mode"}};
  for (const auto& [name, overload] : ops) {
    const std::string table = dump_table(Dispatcher::singleton().find_schema_or_throw(name, overload));
    EXPECT_NE(table.find("CPU: registered at "), std::string::npos) << table;
    EXPECT_NE(table.find("Meta: registered at "), std::string::npos) << table;
  }
}
