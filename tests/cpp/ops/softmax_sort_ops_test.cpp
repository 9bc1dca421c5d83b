// cumsum, softmax, log_softmax (and their backward helpers, against central differences), topk
// and sort: values, dtypes, dims, non-contiguous inputs, the Meta device and errors.
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

TEST(Cumsum, AlongDimsAndDtypes) {
  const Tensor a = from_values({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(as_doubles(cumsum(a, 1)), (std::vector<double>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(as_doubles(cumsum(a, 0)), (std::vector<double>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(as_doubles(a.t().cumsum(-1)), (std::vector<double>{1, 5, 2, 7, 3, 9}));
  EXPECT_EQ(cumsum(a.to(ScalarType::Int8), 1).dtype(), ScalarType::Int64);
  EXPECT_EQ(cumsum(a, 1, ScalarType::Float64).dtype(), ScalarType::Float64);
  EXPECT_EQ(as_doubles(cumsum(a, 1, ScalarType::Int32)), (std::vector<double>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(cumsum(empty({0, 2}), 0).sizes(), DimVector({0, 2}));
  EXPECT_EQ(as_doubles(cumsum(from_values({7}, {}), 0)), (std::vector<double>{7}));
  Tensor out = empty({2, 3});
  EXPECT_TRUE(cumsum_out(out, a, 1).is_same(out));
  EXPECT_EQ(as_doubles(out)[5], 15);
  try {
    cumsum(a, 2);
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "cumsum: dim 2 is out of range for a tensor of shape [2, 3] (expected a dim in [-2, 1])");
  }
}

TEST(Softmax, RowsColumnsAndStability) {
  const Tensor x = random_tensor({3, 4, 5}, 7);
  const auto xv = as_doubles(x);
  for (int64_t dim : {0, 1, 2, -1}) {
    const auto s = as_doubles(softmax(x, dim)), ls = as_doubles(log_softmax(x, dim));
    const int64_t d = dim < 0 ? dim + 3 : dim;
    const int64_t sizes[] = {3, 4, 5}, strides[] = {20, 5, 1};
    for (int64_t i = 0; i < 60; ++i) {
      const int64_t start = i - ((i / strides[d]) % sizes[d]) * strides[d];
      double total = 0;
      for (int64_t k = 0; k < sizes[d]; ++k) total += std::exp(xv[start + k * strides[d]]);
      EXPECT_NEAR(s[i], std::exp(xv[i]) / total, 1e-12);
      EXPECT_NEAR(ls[i], xv[i] - std::log(total), 1e-12);
    }
  }
  const Tensor big = from_values({1000, 0, -1000, -INFINITY}, {4});
  const auto sb = as_doubles(softmax(big, 0));
  EXPECT_NEAR(sb[0], 1, 1e-6);
  EXPECT_EQ(sb[3], 0);
  EXPECT_NEAR(as_doubles(log_softmax(big, 0))[1], -1000, 1e-3);
  // float32 rows long enough for the vector loop, against float64.
  const Tensor r = random_tensor({2, 300}, 9, -20, 20);
  const auto want = as_doubles(softmax(r, 1));
  const auto got = as_doubles(softmax(r.to(ScalarType::Float32), 1));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6 + 1e-5 * want[i]);
  EXPECT_EQ(softmax(r.to(ScalarType::BFloat16), 1).dtype(), ScalarType::BFloat16);
  EXPECT_EQ(softmax(r, 1, ScalarType::Float32).dtype(), ScalarType::Float32);
  EXPECT_EQ(softmax(from_values({1, 2}, {2}, ScalarType::Int64), 0, ScalarType::Float64).dtype(), ScalarType::Float64);
  EXPECT_THROW(softmax(from_values({1, 2}, {2}, ScalarType::Int64), 0), NotImplementedError);
  EXPECT_THROW(log_softmax(r, 2), IndexError);
  EXPECT_EQ(softmax(empty({0, 3}), 1).sizes(), DimVector({0, 3}));
  EXPECT_EQ(as_doubles(softmax(from_values({3}, {}), 0)), (std::vector<double>{1}));
}

TEST(Softmax, BackwardMatchesCentralDifferences) {
  const Tensor x = random_tensor({3, 4}, 11), g = random_tensor({3, 4}, 12);
  for (int64_t dim : {0, 1}) {
    const Tensor y = softmax(x, dim), ly = log_softmax(x, dim);
    const auto got = as_doubles(_softmax_backward_data(g, y, dim, ScalarType::Float64));
    const auto want = numeric_grad([&](const Tensor& t) { return softmax(t, dim); }, x, g);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6);
    const auto lgot = as_doubles(_log_softmax_backward_data(g, ly, dim, ScalarType::Float64));
    const auto lwant = numeric_grad([&](const Tensor& t) { return log_softmax(t, dim); }, x, g);
    for (size_t i = 0; i < lwant.size(); ++i) EXPECT_NEAR(lgot[i], lwant[i], 1e-6);
  }
  const Tensor y32 = softmax(x.to(ScalarType::Float32), 1);
  EXPECT_EQ(_softmax_backward_data(g.to(ScalarType::Float32), y32, 1, ScalarType::Float16).dtype(),
            ScalarType::Float16);
  EXPECT_THROW(_softmax_backward_data(g, softmax(random_tensor({4, 3}, 1), 1), 1, ScalarType::Float64), Error);
}

TEST(Sort, StableAscendingDescendingAndNaN) {
  const Tensor a = from_values({3, 1, 2, 1, NAN, 0}, {6});
  auto [v, i] = sort(a);
  const auto vv = as_doubles(v);
  EXPECT_EQ(std::vector<double>(vv.begin(), vv.end() - 1), (std::vector<double>{0, 1, 1, 2, 3}));
  EXPECT_TRUE(std::isnan(vv[5]));
  EXPECT_EQ(as_doubles(i), (std::vector<double>{5, 1, 3, 2, 0, 4}));
  auto [dv, di] = sort(a, 0, true);
  EXPECT_TRUE(std::isnan(as_doubles(dv)[0]));
  EXPECT_EQ(as_doubles(di), (std::vector<double>{4, 0, 2, 1, 3, 5}));
  const Tensor m = from_values({5, 4, 6, 1, 2, 0}, {2, 3});
  auto [cv, ci] = m.sort(0);
  EXPECT_EQ(as_doubles(cv), (std::vector<double>{1, 2, 0, 5, 4, 6}));
  EXPECT_EQ(as_doubles(ci), (std::vector<double>{1, 1, 1, 0, 0, 0}));
  auto [tv, ti] = sort(m.t(), 1);  // non-contiguous
  EXPECT_EQ(as_doubles(tv), (std::vector<double>{1, 5, 2, 4, 0, 6}));
  EXPECT_EQ(std::get<0>(sort(from_values({1, 0, 1}, {3}, ScalarType::Bool))).dtype(), ScalarType::Bool);
  EXPECT_THROW(sort(m, 2), IndexError);
}

TEST(Topk, LargestSmallestAndErrors) {
  const Tensor a = from_values({4, 9, 1, 9, 7}, {5});
  auto [v, i] = topk(a, 3);
  EXPECT_EQ(as_doubles(v), (std::vector<double>{9, 9, 7}));
  EXPECT_EQ(as_doubles(i), (std::vector<double>{1, 3, 4}));
  auto [sv, si] = a.topk(2, -1, false);
  EXPECT_EQ(as_doubles(sv), (std::vector<double>{1, 4}));
  EXPECT_EQ(as_doubles(si), (std::vector<double>{2, 0}));
  const Tensor m = from_values({5, 4, 6, 1, 2, 0}, {2, 3});
  EXPECT_EQ(as_doubles(std::get<0>(topk(m, 1, 0))), (std::vector<double>{5, 4, 6}));
  EXPECT_EQ(std::get<0>(topk(m, 0)).sizes(), DimVector({2, 0}));
  try {
    topk(a, 6);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "topk: k = 6 is out of range for dim -1 of size 5 (a tensor of shape [5])");
  }
}

TEST(SoftmaxSortMeta, ShapesAndDtypesWithoutData) {
  const Device meta = Device::parse("meta");
  const Tensor f = empty({4, 5}, ScalarType::Float16, meta), i = empty({4, 5}, ScalarType::Int32, meta);
  EXPECT_EQ(cumsum(i, 1).dtype(), ScalarType::Int64);
  EXPECT_EQ(cumsum(f, 1).device(), meta);
  Tensor out = empty({4, 5}, ScalarType::Int64, meta);
  EXPECT_TRUE(cumsum_out(out, i, 0).is_same(out));
  EXPECT_EQ(softmax(f, 1).dtype(), ScalarType::Float16);
  EXPECT_EQ(log_softmax(f, 0, ScalarType::Float32).dtype(), ScalarType::Float32);
  EXPECT_THROW(softmax(i, 1), NotImplementedError);
  EXPECT_THROW(softmax(f, 5), IndexError);
  EXPECT_EQ(_softmax_backward_data(f, f, 1, ScalarType::Float32).dtype(), ScalarType::Float32);
  EXPECT_EQ(_log_softmax_backward_data(f, f, 1, ScalarType::Float16).sizes(), DimVector({4, 5}));
  auto [tv, ti] = topk(f, 2);
  EXPECT_EQ(tv.sizes(), DimVector({4, 2}));
  EXPECT_EQ(ti.dtype(), ScalarType::Int64);
  EXPECT_THROW(topk(f, 6), Error);
  auto [sv, si] = sort(i, 0);
  EXPECT_EQ(sv.dtype(), ScalarType::Int32);
  EXPECT_EQ(si.sizes(), DimVector({4, 5}));
}
