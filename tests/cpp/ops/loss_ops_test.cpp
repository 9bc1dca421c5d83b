// Losses (mse_loss, l1_loss, nll_loss, binary_cross_entropy(_with_logits), cross_entropy) against
// plain loops for every reduction, their backward helpers against central differences of the
// forward, the Meta device, and the errors.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"
#include "tests/cpp/ops/reduction_test_util.h"

using namespace glassbox;
using glassbox::testing::as_doubles;
using glassbox::testing::from_values;
using glassbox::testing::numeric_grad;
using glassbox::testing::random_tensor;

namespace {
constexpr int64_t kNone = Reduction::None, kMean = Reduction::Mean, kSum = Reduction::Sum;
double sum_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}
void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}
Tensor targets(std::vector<double> v) { return from_values(v, {static_cast<int64_t>(v.size())}, ScalarType::Int64); }
}  // namespace

TEST(MseL1, ReductionsAndBroadcast) {
  const Tensor x = random_tensor({3, 4}, 1), y = random_tensor({3, 4}, 2);
  const auto xv = as_doubles(x), yv = as_doubles(y);
  std::vector<double> se, ae;
  for (size_t i = 0; i < xv.size(); ++i)
    se.push_back((xv[i] - yv[i]) * (xv[i] - yv[i])), ae.push_back(std::abs(xv[i] - yv[i]));
  expect_close(as_doubles(mse_loss(x, y, kNone)), se, 1e-12);
  EXPECT_NEAR(as_doubles(mse_loss(x, y))[0], sum_of(se) / 12, 1e-12);
  EXPECT_NEAR(as_doubles(mse_loss(x, y, kSum))[0], sum_of(se), 1e-12);
  EXPECT_NEAR(as_doubles(l1_loss(x, y))[0], sum_of(ae) / 12, 1e-12);
  EXPECT_EQ(mse_loss(x, y).dim(), 0);
  EXPECT_EQ(mse_loss(x, random_tensor({4}, 3), kNone).sizes(), DimVector({3, 4}));
  EXPECT_EQ(mse_loss(x.to(ScalarType::Float32), y).dtype(), ScalarType::Float64);
  EXPECT_TRUE(std::isnan(as_doubles(mse_loss(empty({0}), empty({0})))[0]));
  EXPECT_THROW(mse_loss(targets({1}), targets({2})), NotImplementedError);
  EXPECT_THROW(l1_loss(x, y, 3), Error);
  EXPECT_THROW(mse_loss(x, random_tensor({5}, 3)), Error);
}

TEST(MseL1, MseBackwardMatchesCentralDifferences) {
  const Tensor x = random_tensor({2, 3}, 4), y = random_tensor({2, 3}, 5);
  for (int64_t r : {kNone, kMean, kSum}) {
    const Tensor g = r == kNone ? random_tensor({2, 3}, 6) : from_values({0.7}, {}, ScalarType::Float64);
    const auto got = as_doubles(mse_loss_backward(g, x, y, r));
    expect_close(got, numeric_grad([&](const Tensor& t) { return mse_loss(t, y, r); }, x, g), 1e-6);
  }
  EXPECT_THROW(mse_loss_backward(random_tensor({2}, 1), x, y, kMean), Error);
}

TEST(NllLoss, WeightsIgnoreIndexAndReductions) {
  const Tensor logp = log_softmax(random_tensor({4, 3}, 7), 1);
  const auto lp = as_doubles(logp);
  const Tensor t = targets({0, 2, 1, 2});
  const Tensor w = from_values({0.5, 2.0, 1.5}, {3}, ScalarType::Float64);
  const double wv[] = {0.5, 2.0, 1.5};
  const int tv[] = {0, 2, 1, 2};
  std::vector<double> per;
  double total = 0, weight = 0;
  for (int i = 0; i < 4; ++i) {
    const bool counts = i != 1;  // ignore_index 2 below drops samples 1 and 3
    per.push_back(tv[i] == 2 ? 0 : -wv[tv[i]] * lp[i * 3 + tv[i]]);
    if (counts && tv[i] != 2) total += per.back(), weight += wv[tv[i]];
  }
  expect_close(as_doubles(nll_loss(logp, t, w, kNone, 2)), per, 1e-12);
  EXPECT_NEAR(as_doubles(nll_loss(logp, t, w, kSum, 2))[0], total, 1e-12);
  EXPECT_NEAR(as_doubles(nll_loss(logp, t, w, kMean, 2))[0], total / weight, 1e-12);
  double plain = 0;
  for (int i = 0; i < 4; ++i) plain -= lp[i * 3 + tv[i]];
  EXPECT_NEAR(as_doubles(nll_loss(logp, t))[0], plain / 4, 1e-12);
  // One sample of shape (C) with a 0-d target.
  const Tensor one =
      nll_loss(from_values({-1, -2, -3}, {3}), from_values({1}, {}, ScalarType::Int64), std::nullopt, kNone);
  EXPECT_EQ(one.dim(), 0);
  EXPECT_EQ(as_doubles(one)[0], 2);
  try {
    nll_loss(logp, targets({0, 3, 1, 2}));
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "nll_loss: target 3 is out of bounds for 3 classes (self of shape [4, 3])");
  }
  EXPECT_THROW(nll_loss(logp, targets({0, 1})), Error);
  EXPECT_THROW(nll_loss(logp, from_values({0, 1, 1, 1}, {4})), Error);
  EXPECT_THROW(nll_loss(logp, t, from_values({1, 1}, {2}, ScalarType::Float64)), Error);
}

TEST(NllLoss, BackwardMatchesCentralDifferences) {
  const Tensor x = random_tensor({4, 3}, 8);
  const Tensor t = targets({0, 2, 1, 2});
  const Tensor w = from_values({0.5, 2.0, 1.5}, {3}, ScalarType::Float64);
  for (int64_t r : {kNone, kMean, kSum})
    for (int64_t ignore : {int64_t{-100}, int64_t{1}}) {
      const Tensor g = r == kNone ? random_tensor({4}, 9) : from_values({1.3}, {}, ScalarType::Float64);
      const auto got = as_doubles(nll_loss_backward(g, x, t, w, r, ignore));
      expect_close(got, numeric_grad([&](const Tensor& s) { return nll_loss(s, t, w, r, ignore); }, x, g), 1e-6);
    }
}

TEST(BinaryCrossEntropy, ValuesClampingAndBackward) {
  const Tensor p = random_tensor({2, 3}, 10, 0.05, 0.95), y = random_tensor({2, 3}, 11, 0, 1);
  const Tensor w = random_tensor({3}, 12, 0.5, 2);
  const auto pv = as_doubles(p), yv = as_doubles(y), wv = as_doubles(w);
  std::vector<double> per;
  for (int i = 0; i < 6; ++i) per.push_back(-wv[i % 3] * (yv[i] * std::log(pv[i]) + (1 - yv[i]) * std::log(1 - pv[i])));
  expect_close(as_doubles(binary_cross_entropy(p, y, w, kNone)), per, 1e-12);
  EXPECT_NEAR(as_doubles(binary_cross_entropy(p, y, w))[0], sum_of(per) / 6, 1e-12);
  // log(0) is clamped at -100.
  EXPECT_NEAR(as_doubles(binary_cross_entropy(from_values({0}, {1}), from_values({1}, {1})))[0], 100, 1e-4);
  try {
    binary_cross_entropy(from_values({1.5}, {1}), from_values({1}, {1}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("binary_cross_entropy: every element of self must be in [0, 1]"),
              std::string::npos);
  }
  EXPECT_THROW(binary_cross_entropy(p, random_tensor({3}, 1, 0, 1)), Error);
  for (int64_t r : {kNone, kMean, kSum}) {
    const Tensor g = r == kNone ? random_tensor({2, 3}, 13) : from_values({0.9}, {}, ScalarType::Float64);
    const auto got = as_doubles(binary_cross_entropy_backward(g, p, y, w, r));
    expect_close(got, numeric_grad([&](const Tensor& s) { return binary_cross_entropy(s, y, w, r); }, p, g), 1e-5);
  }
}

TEST(BinaryCrossEntropy, WithLogitsIsStableAndMatchesItsDefinition) {
  const Tensor x = random_tensor({2, 3}, 14, -4, 4), y = random_tensor({2, 3}, 15, 0, 1);
  const Tensor w = random_tensor({2, 1}, 16, 0.5, 2), pw = random_tensor({3}, 17, 0.5, 3);
  const auto xv = as_doubles(x), yv = as_doubles(y), wv = as_doubles(w), pv = as_doubles(pw);
  std::vector<double> per;
  for (int i = 0; i < 6; ++i) {
    const double s = 1 / (1 + std::exp(-xv[i]));
    per.push_back(-wv[i / 3] * (pv[i % 3] * yv[i] * std::log(s) + (1 - yv[i]) * std::log(1 - s)));
  }
  expect_close(as_doubles(binary_cross_entropy_with_logits(x, y, w, pw, kNone)), per, 1e-10);
  EXPECT_NEAR(as_doubles(binary_cross_entropy_with_logits(x, y, w, pw, kSum))[0], sum_of(per), 1e-10);
  const auto extreme = as_doubles(binary_cross_entropy_with_logits(
      from_values({200, -200}, {2}), from_values({0, 1}, {2}), std::nullopt, std::nullopt, kNone));
  EXPECT_NEAR(extreme[0], 200, 1e-6);
  EXPECT_NEAR(extreme[1], 200, 1e-6);
  for (int64_t r : {kNone, kMean, kSum}) {
    const Tensor g = r == kNone ? random_tensor({2, 3}, 18) : from_values({1.1}, {}, ScalarType::Float64);
    const auto got = as_doubles(binary_cross_entropy_with_logits_backward(g, x, y, w, pw, r));
    expect_close(got,
                 numeric_grad([&](const Tensor& s) { return binary_cross_entropy_with_logits(s, y, w, pw, r); }, x, g),
                 1e-6);
  }
  EXPECT_THROW(binary_cross_entropy_with_logits(x, y, std::nullopt, random_tensor({4}, 1)), Error);
}

TEST(CrossEntropy, LogSoftmaxThenNllAndLabelSmoothing) {
  const Tensor x = random_tensor({4, 3}, 19);
  const Tensor t = targets({0, 2, 1, 2});
  const Tensor w = from_values({0.5, 2.0, 1.5}, {3}, ScalarType::Float64);
  const auto want = as_doubles(nll_loss(log_softmax(x, 1), t, w, kMean, 1));
  EXPECT_NEAR(as_doubles(cross_entropy(x, t, w, kMean, 1))[0], want[0], 1e-12);
  // Label smoothing e: (1 - e) nll + e / C * sum_c -w_c log p_c, counted samples only, mean over their target weight.
  const double e = 0.2;
  const auto lp = as_doubles(log_softmax(x, 1));
  const double wv[] = {0.5, 2.0, 1.5};
  const int tv[] = {0, 2, 1, 2};
  double nll = 0, smooth = 0, total = 0;
  for (int i = 0; i < 4; ++i) {
    if (tv[i] == 1) continue;  // ignore_index 1
    nll -= wv[tv[i]] * lp[i * 3 + tv[i]];
    for (int c = 0; c < 3; ++c) smooth -= wv[c] * lp[i * 3 + c];
    total += wv[tv[i]];
  }
  EXPECT_NEAR(as_doubles(cross_entropy(x, t, w, kMean, 1, e))[0], (1 - e) * nll / total + e / 3 * smooth / total,
              1e-12);
  EXPECT_NEAR(as_doubles(cross_entropy(x, t, w, kSum, 1, e))[0], (1 - e) * nll + e / 3 * smooth, 1e-12);
  EXPECT_EQ(cross_entropy(x, t, std::nullopt, kNone, -100, e).sizes(), DimVector({4}));
  EXPECT_THROW(cross_entropy(x, random_tensor({4, 3}, 1)), Error);
  EXPECT_THROW(cross_entropy(x, t, std::nullopt, kMean, -100, 1.5), Error);
}

TEST(LossMeta, ShapesAndDtypesWithoutData) {
  const Device meta = Device::parse("meta");
  const Tensor x = empty({4, 3}, ScalarType::Float32, meta), h = empty({4, 3}, ScalarType::Float16, meta);
  const Tensor t = empty({4}, ScalarType::Int64, meta), s = empty({}, ScalarType::Float32, meta);
  EXPECT_EQ(mse_loss(x, h).sizes(), DimVector());
  EXPECT_EQ(mse_loss(x, h, kNone).sizes(), DimVector({4, 3}));
  EXPECT_EQ(l1_loss(h, h).dtype(), ScalarType::Float16);
  EXPECT_EQ(mse_loss_backward(s, x, x, kMean).sizes(), DimVector({4, 3}));
  EXPECT_EQ(nll_loss(x, t, std::nullopt, kNone).sizes(), DimVector({4}));
  EXPECT_EQ(nll_loss(x, t).device(), meta);
  EXPECT_EQ(nll_loss_backward(s, x, t, std::nullopt, kMean, -100).sizes(), DimVector({4, 3}));
  EXPECT_EQ(binary_cross_entropy(x, x).sizes(), DimVector());
  EXPECT_EQ(binary_cross_entropy_backward(s, x, x).sizes(), DimVector({4, 3}));
  EXPECT_EQ(binary_cross_entropy_with_logits(x, x, std::nullopt, std::nullopt, kNone).sizes(), DimVector({4, 3}));
  EXPECT_EQ(binary_cross_entropy_with_logits_backward(s, x, x).sizes(), DimVector({4, 3}));
  EXPECT_EQ(cross_entropy(x, t).sizes(), DimVector());
  EXPECT_THROW(nll_loss(x, empty({5}, ScalarType::Int64, meta)), Error);
  EXPECT_THROW(mse_loss_backward(x, x, x, kMean), Error);
}
