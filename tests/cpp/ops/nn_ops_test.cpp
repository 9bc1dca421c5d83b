// conv2d, max/avg pooling and layer norm: forward against direct loops in double, the backward
// helpers against central finite differences of sum(forward * R) in float64, Meta, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using glassbox::testing::error_of;

namespace {
const Device kMeta = Device::parse("meta");

// Distinct values in [-5, 5) (pooling's argmax must not tie under a finite-difference step).
Tensor distinct(std::vector<int64_t> sizes, uint64_t seed = 1, ScalarType dtype = ScalarType::Float64) {
  Tensor t = empty(sizes, ScalarType::Float64);
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i)
    t.data<double>()[i] = static_cast<double>((i * 7919 + seed * 104729) % n) / static_cast<double>(n) * 10.0 - 5.0;
  return t.to(dtype);
}
std::vector<double> values(const Tensor& t) {
  const Tensor c = t.to(ScalarType::Float64).contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}
void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << "at " << i;
}
// sum(f() * r): a scalar whose gradient with respect to f's output is r.
double weighted_sum(const Tensor& out, const Tensor& r) {
  const auto o = values(out), w = values(r);
  double s = 0;
  for (size_t i = 0; i < o.size(); ++i) s += o[i] * w[i];
  return s;
}
// Each element of `analytic` against (loss(t + h) - loss(t - h)) / 2h, t a contiguous float64 tensor.
void check_against_finite_differences(Tensor t, const Tensor& analytic, const std::function<double()>& loss,
                                      const char* what) {
  ASSERT_EQ(analytic.sizes(), t.sizes()) << what;
  const auto a = values(analytic);
  const double h = 1e-6;
  for (int64_t i = 0; i < t.numel(); ++i) {
    double* p = t.data<double>() + i;
    const double old = *p;
    *p = old + h;
    const double up = loss();
    *p = old - h;
    const double down = loss();
    *p = old;
    ASSERT_NEAR(a[i], (up - down) / (2 * h), 1e-5 * (1 + std::abs(a[i]))) << what << " element " << i;
  }
}

// Direct convolution in double.
std::vector<double> naive_conv(const Tensor& x, const Tensor& w, const Tensor& b, std::array<int64_t, 2> s,
                               std::array<int64_t, 2> p, std::array<int64_t, 2> d, int64_t groups) {
  const auto xv = values(x), wv = values(w), bv = b.defined() ? values(b) : std::vector<double>();
  const int64_t N = x.sizes()[0], C = x.sizes()[1], H = x.sizes()[2], W = x.sizes()[3];
  const int64_t O = w.sizes()[0], Cg = w.sizes()[1], KH = w.sizes()[2], KW = w.sizes()[3];
  const int64_t OH = (H + 2 * p[0] - d[0] * (KH - 1) - 1) / s[0] + 1,
                OW = (W + 2 * p[1] - d[1] * (KW - 1) - 1) / s[1] + 1;
  std::vector<double> out;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t y = 0; y < OH; ++y)
        for (int64_t xo = 0; xo < OW; ++xo) {
          double acc = bv.empty() ? 0.0 : bv[o];
          const int64_t g = o / (O / groups);
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t ki = 0; ki < KH; ++ki)
              for (int64_t kj = 0; kj < KW; ++kj) {
                const int64_t iy = y * s[0] - p[0] + ki * d[0], ix = xo * s[1] - p[1] + kj * d[1];
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                acc += xv[((n * C + g * Cg + c) * H + iy) * W + ix] * wv[((o * Cg + c) * KH + ki) * KW + kj];
              }
          out.push_back(acc);
        }
  return out;
}
}  // namespace

TEST(Conv2d, AgainstDirectLoopsWithStridePaddingDilationGroups) {
  const Tensor x = distinct({2, 4, 7, 6}), w = distinct({6, 2, 3, 2}, 2), b = distinct({6}, 3);
  const Tensor y = conv2d(x, w, b, {2, 1}, {1, 0}, {1, 2}, 2);
  ASSERT_EQ(y.sizes(), DimVector({2, 6, 4, 4}));
  expect_near(values(y), naive_conv(x, w, b, {2, 1}, {1, 0}, {1, 2}, 2), 1e-12);
  // Defaults, 1x1 (the input is its own column matrix), no bias.
  const Tensor w1 = distinct({3, 4, 1, 1}, 4);
  expect_near(values(conv2d(x, w1)), naive_conv(x, w1, Tensor(), {1, 1}, {0, 0}, {1, 1}, 1), 1e-12);
  // Unbatched input gives a 3-D output; float32 and halves compute in float32.
  const Tensor u = conv2d(select(x, 0, 1), w, b, {2, 1}, {1, 0}, {1, 2}, 2);
  ASSERT_EQ(u.sizes(), DimVector({6, 4, 4}));
  expect_near(values(u), values(select(y, 0, 1)), 1e-12);
  for (ScalarType dt : {ScalarType::Float32, ScalarType::Float16, ScalarType::BFloat16}) {
    const Tensor yd = conv2d(x.to(dt), w.to(dt), b.to(dt), {2, 1}, {1, 0}, {1, 2}, 2);
    ASSERT_EQ(yd.dtype(), dt);
    expect_near(values(yd), naive_conv(x.to(dt), w.to(dt), b.to(dt), {2, 1}, {1, 0}, {1, 2}, 2),
                dt == ScalarType::Float32   ? 1e-5
                : dt == ScalarType::Float16 ? 2e-3
                                            : 2e-2);
  }
  // A non-contiguous input and an empty batch.
  const Tensor xt = distinct({1, 4, 6, 7}).transpose(2, 3);
  expect_near(values(conv2d(xt, w, b, {2, 1}, {1, 0}, {1, 2}, 2)), naive_conv(xt, w, b, {2, 1}, {1, 0}, {1, 2}, 2),
              1e-12);
  EXPECT_EQ(conv2d(empty({0, 4, 7, 6}, ScalarType::Float64), w, b, {1}, {0}, {1}, 2).sizes(), DimVector({0, 6, 5, 5}));
}

TEST(Conv2d, BackwardMatchesFiniteDifferences) {
  Tensor x = distinct({2, 4, 5, 6}), w = distinct({6, 2, 3, 2}, 2), b = distinct({6}, 3);
  const std::vector<int64_t> stride{2, 1}, padding{1, 0}, dilation{1, 2};
  const Tensor r = distinct({2, 6, 3, 4}, 5);
  auto loss = [&] { return weighted_sum(conv2d(x, w, b, stride, padding, dilation, 2), r); };
  ASSERT_EQ(conv2d(x, w, b, stride, padding, dilation, 2).sizes(), r.sizes());
  const auto [gx, gw, gb] = convolution_backward(r, x, w, stride, padding, dilation, 2);
  check_against_finite_differences(x, gx, loss, "grad_input");
  check_against_finite_differences(w, gw, loss, "grad_weight");
  check_against_finite_differences(b, gb, loss, "grad_bias");
  // The 1x1 path and an unbatched input.
  Tensor x1 = distinct({4, 3, 3}, 6), w1 = distinct({2, 4, 1, 1}, 7), b1 = distinct({2}, 8);
  const Tensor r1 = distinct({2, 3, 3}, 9);
  auto loss1 = [&] { return weighted_sum(conv2d(x1, w1, b1), r1); };
  const auto [gx1, gw1, gb1] = convolution_backward(r1, x1, w1, {1}, {0}, {1}, 1);
  check_against_finite_differences(x1, gx1, loss1, "grad_input (1x1)");
  check_against_finite_differences(w1, gw1, loss1, "grad_weight (1x1)");
  check_against_finite_differences(b1, gb1, loss1, "grad_bias (1x1)");
}

TEST(MaxPool2d, ValuesIndicesAndOptions) {
  Tensor x = empty({1, 1, 4, 4}, ScalarType::Float32);
  for (int i = 0; i < 16; ++i) x.data<float>()[i] = static_cast<float>(i);
  const auto [v, idx] = max_pool2d_with_indices(x, {2});
  ASSERT_EQ(v.sizes(), DimVector({1, 1, 2, 2}));
  ASSERT_EQ(idx.dtype(), ScalarType::Int64);
  EXPECT_EQ(values(v), (std::vector<double>{5, 7, 13, 15}));
  EXPECT_EQ(values(idx), (std::vector<double>{5, 7, 13, 15}));
  // ceil_mode keeps a last partial window; padding never wins (-inf); dilation skips.
  EXPECT_EQ(max_pool2d(x, {3}, {2}, {0}, {1}, true).sizes(), DimVector({1, 1, 2, 2}));
  EXPECT_EQ(values(max_pool2d(x, {3}, {2}, {0}, {1}, true)), (std::vector<double>{10, 11, 14, 15}));
  EXPECT_EQ(values(max_pool2d(neg(x), {2}, {1}, {1}, {1}, false))[0], 0.0);
  EXPECT_EQ(values(max_pool2d(x, {2}, {1}, {0}, {2}, false)), (std::vector<double>{10, 11, 14, 15}));
  // Integers and NaN.
  EXPECT_EQ(values(max_pool2d(x.to(ScalarType::Int32), {2})), (std::vector<double>{5, 7, 13, 15}));
  x.data<float>()[0] = std::nanf("");
  EXPECT_TRUE(std::isnan(values(max_pool2d(x, {2}))[0]));
  // Unbatched.
  EXPECT_EQ(max_pool2d(distinct({3, 5, 5}), {2}).sizes(), DimVector({3, 2, 2}));
}

TEST(MaxPool2d, BackwardMatchesFiniteDifferences) {
  Tensor x = distinct({2, 3, 6, 7});
  const std::vector<int64_t> k{3, 2}, s{2, 2}, p{1, 1}, d{1, 2};
  const auto [out, idx] = max_pool2d_with_indices(x, k, s, p, d, true);
  const Tensor r = distinct(std::vector<int64_t>(out.sizes().begin(), out.sizes().end()), 4);
  auto loss = [&] { return weighted_sum(max_pool2d(x, k, s, p, d, true), r); };
  const Tensor g = max_pool2d_with_indices_backward(r, x, k, s, p, d, true, idx);
  check_against_finite_differences(x, g, loss, "max_pool2d grad");
  Tensor bad = idx.clone();
  bad.data<int64_t>()[0] = 1000;
  EXPECT_EQ(error_of([&] { max_pool2d_with_indices_backward(r, x, k, s, p, d, true, bad); }),
            "max_pool2d_with_indices_backward: index 1000 is out of range for an input plane of 6x7");
}

TEST(AvgPool2d, PaddingCeilModeAndCountIncludePad) {
  const Tensor x = ones({1, 1, 3, 3}, ScalarType::Float64);
  // Corner windows see 4 of 9 cells: 4/9 counting padding, 1 without.
  EXPECT_EQ(values(avg_pool2d(x, {3}, {2}, {1}, false, true))[0], 4.0 / 9.0);
  EXPECT_EQ(values(avg_pool2d(x, {3}, {2}, {1}, false, false))[0], 1.0);
  Tensor y = empty({1, 1, 2, 4}, ScalarType::Float32);
  for (int i = 0; i < 8; ++i) y.data<float>()[i] = static_cast<float>(i);
  EXPECT_EQ(values(avg_pool2d(y, {2})), (std::vector<double>{2.5, 4.5}));
  // ceil_mode: the last window is clipped to the input (and divided by what is left of it).
  EXPECT_EQ(values(avg_pool2d(y, {2, 3}, {2, 3}, {0}, true, true)), (std::vector<double>{3, 5}));
  for (ScalarType dt : {ScalarType::Float16, ScalarType::BFloat16})
    EXPECT_EQ(values(avg_pool2d(y.to(dt), {2})), (std::vector<double>{2.5, 4.5}));
  EXPECT_EQ(avg_pool2d(distinct({4, 6, 6}), {3}).sizes(), DimVector({4, 2, 2}));
}

TEST(AvgPool2d, BackwardMatchesFiniteDifferences) {
  Tensor x = distinct({2, 2, 5, 6});
  for (bool include : {true, false}) {
    const std::vector<int64_t> k{3, 2}, s{2, 2}, p{1, 1};
    const Tensor out = avg_pool2d(x, k, s, p, true, include);
    const Tensor r = distinct(std::vector<int64_t>(out.sizes().begin(), out.sizes().end()), 4);
    auto loss = [&] { return weighted_sum(avg_pool2d(x, k, s, p, true, include), r); };
    check_against_finite_differences(x, avg_pool2d_backward(r, x, k, s, p, true, include), loss, "avg_pool2d grad");
  }
}

TEST(LayerNorm, AgainstLoopsWithStatistics) {
  const Tensor x = distinct({2, 3, 4}), w = distinct({3, 4}, 2), b = distinct({3, 4}, 3);
  const auto [y, mean, rstd] = native_layer_norm(x, {3, 4}, w, b, 1e-5);
  ASSERT_EQ(y.sizes(), DimVector({2, 3, 4}));
  ASSERT_EQ(mean.sizes(), DimVector({2, 1, 1}));
  const auto xv = values(x), wv = values(w), bv = values(b), yv = values(y);
  for (int r = 0; r < 2; ++r) {
    double mu = 0, var = 0;
    for (int j = 0; j < 12; ++j) mu += xv[r * 12 + j] / 12;
    for (int j = 0; j < 12; ++j) var += (xv[r * 12 + j] - mu) * (xv[r * 12 + j] - mu) / 12;
    EXPECT_NEAR(values(mean)[r], mu, 1e-12);
    EXPECT_NEAR(values(rstd)[r], 1 / std::sqrt(var + 1e-5), 1e-12);
    for (int j = 0; j < 12; ++j)
      EXPECT_NEAR(yv[r * 12 + j], (xv[r * 12 + j] - mu) / std::sqrt(var + 1e-5) * wv[j] + bv[j], 1e-12);
  }
  expect_near(values(layer_norm(x, {3, 4}, w, b)), yv, 0);
  for (ScalarType dt : {ScalarType::Float32, ScalarType::Float16, ScalarType::BFloat16}) {
    const Tensor yd = layer_norm(x.to(dt), {4});
    ASSERT_EQ(yd.dtype(), dt);
    expect_near(values(yd), values(layer_norm(x, {4})), dt == ScalarType::Float32 ? 1e-5 : 3e-2);
  }
}

TEST(LayerNorm, BackwardMatchesFiniteDifferences) {
  Tensor x = distinct({3, 2, 5}), w = distinct({2, 5}, 2), b = distinct({2, 5}, 3);
  const Tensor r = distinct({3, 2, 5}, 4);
  auto loss = [&] { return weighted_sum(layer_norm(x, {2, 5}, w, b, 1e-5), r); };
  const auto [y, mean, rstd] = native_layer_norm(x, {2, 5}, w, b, 1e-5);
  const auto [gx, gw, gb] = native_layer_norm_backward(r, x, {2, 5}, mean, rstd, w, b);
  check_against_finite_differences(x, gx, loss, "grad_input");
  check_against_finite_differences(w, gw, loss, "grad_weight");
  check_against_finite_differences(b, gb, loss, "grad_bias");
  // Without weight and bias: grad_input alone is meaningful, the other two are still returned.
  auto loss_plain = [&] { return weighted_sum(layer_norm(x, {5}), r); };
  const auto [y2, m2, s2] = native_layer_norm(x, {5}, std::nullopt, std::nullopt, 1e-5);
  const auto [gx2, gw2, gb2] = native_layer_norm_backward(r, x, {5}, m2, s2, std::nullopt, std::nullopt);
  check_against_finite_differences(x, gx2, loss_plain, "grad_input (no affine)");
  EXPECT_EQ(gw2.sizes(), DimVector({5}));
}

TEST(Meta, NnShapesWithoutData) {
  const Tensor x = empty({8, 4, 32, 30}, ScalarType::Float32, kMeta),
               w = empty({16, 2, 3, 3}, ScalarType::Float32, kMeta);
  const Tensor y = conv2d(x, w, std::nullopt, {2}, {1}, {1}, 2);
  EXPECT_EQ(y.device(), kMeta);
  EXPECT_EQ(y.sizes(), DimVector({8, 16, 16, 15}));
  const auto [gi, gw, gb] = convolution_backward(y, x, w, {2}, {1}, {1}, 2);
  EXPECT_EQ(gw.sizes(), w.sizes());
  EXPECT_EQ(gb.sizes(), DimVector({16}));
  const auto [v, idx] = max_pool2d_with_indices(x, {3}, {2}, {1}, {1}, true);
  EXPECT_EQ(v.sizes(), DimVector({8, 4, 17, 16}));
  EXPECT_EQ(idx.dtype(), ScalarType::Int64);
  EXPECT_EQ(max_pool2d_with_indices_backward(v, x, {3}, {2}, {1}, {1}, true, idx).sizes(), x.sizes());
  const Tensor a = avg_pool2d(x, {2});
  EXPECT_EQ(a.sizes(), DimVector({8, 4, 16, 15}));
  EXPECT_EQ(avg_pool2d_backward(a, x, {2}, {}, {0}, false, true).sizes(), x.sizes());
  const auto [ln, mean, rstd] = native_layer_norm(x, {32, 30}, std::nullopt, std::nullopt, 1e-5);
  EXPECT_EQ(mean.sizes(), DimVector({8, 4, 1, 1}));
  EXPECT_EQ(std::get<1>(native_layer_norm_backward(ln, x, {32, 30}, mean, rstd, std::nullopt, std::nullopt)).sizes(),
            DimVector({32, 30}));
  EXPECT_EQ(layer_norm(x, {30}).data_ptr(), nullptr);
}

TEST(Errors, NnOperatorsNameShapesAndDtypes) {
  const Tensor x = distinct({1, 4, 5, 5});
  EXPECT_EQ(
      error_of([&] {
        conv2d(x, distinct({6, 3, 3, 3}));
      }),
      "conv2d: input of shape [1, 4, 5, 5] has 4 channels, but weight of shape [6, 3, 3, 3] with groups=1 expects 3");
  EXPECT_EQ(error_of([&] {
              conv2d(x, distinct({5, 2, 3, 3}), std::nullopt, {1}, {0}, {1}, 2);
            }),
            "conv2d: out_channels (5, weight of shape [5, 2, 3, 3]) must be divisible by groups (2)");
  EXPECT_EQ(error_of([&] {
              conv2d(x, distinct({2, 4, 7, 7}));
            }),
            "conv2d: input of shape [1, 4, 5, 5] (5x5 with padding) is smaller than the dilated kernel (7x7)");
  EXPECT_EQ(error_of([&] {
              conv2d(x, distinct({2, 4, 3, 3}), std::nullopt, {0});
            }),
            "conv2d: stride must be positive, got [0, 0]");
  EXPECT_EQ(error_of([&] {
              conv2d(x, distinct({2, 4, 3, 3}), distinct({3}));
            }),
            "conv2d: bias must be 1-D with out_channels = 2 elements, got shape [3]");
  EXPECT_EQ(error_of([&] {
              conv2d(x.to(ScalarType::Int64), distinct({2, 4, 3, 3}).to(ScalarType::Int64));
            }),
            "conv2d: input must be a floating-point tensor (float32, float64, float16, bfloat16), got int64 of shape "
            "[1, 4, 5, 5]");
  EXPECT_EQ(error_of([&] {
              conv2d(distinct({4, 5}), distinct({2, 4, 3, 3}));
            }),
            "conv2d: expected a 3-D (unbatched) or 4-D (batched) input, got input of shape [4, 5]");
  EXPECT_EQ(error_of([&] { max_pool2d(x, {2}, {}, {2}); }),
            "max_pool2d: padding [2, 2] must be at most half of kernel_size [2, 2]");
  EXPECT_EQ(error_of([&] {
              max_pool2d(x, {2, 2, 2});
            }),
            "max_pool2d: kernel_size must be one int or two ints, got [2, 2, 2]");
  EXPECT_EQ(error_of([&] { max_pool2d(x, {6}); }),
            "max_pool2d: input of shape [1, 4, 5, 5] is too small for kernel_size [6, 6] with padding "
            "[0, 0] and dilation [1, 1]");
  EXPECT_EQ(
      error_of([&] { avg_pool2d(x.to(ScalarType::Int32), {2}); }),
      "avg_pool2d: self must be a floating-point tensor (float32, float64, float16, bfloat16), got int32 of shape "
      "[1, 4, 5, 5]");
  EXPECT_EQ(error_of([&] {
              avg_pool2d_backward(distinct({1, 4, 3, 3}), x, {2}, {}, {0}, false, true);
            }),
            "avg_pool2d_backward: grad_output has shape [1, 4, 3, 3], expected [1, 4, 2, 2]");
  EXPECT_EQ(error_of([&] { layer_norm(x, {4}); }),
            "layer_norm: input of shape [1, 4, 5, 5] does not end with normalized_shape [4]");
  EXPECT_EQ(error_of([&] { layer_norm(x, {5}, distinct({4})); }),
            "layer_norm: weight of shape [4] must have normalized_shape [5]");
}
