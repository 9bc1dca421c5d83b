// Reductions (sum, mean, prod, amax, amin, max, min, argmax, argmin, var, std, logsumexp): values
// against plain loops, result dtypes, dims/keepdim, empty and non-contiguous inputs, out=, the
// Meta device, thread-count independence, and the error texts of the shared front end.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "glassbox/ops/Functions.h"
#include "tests/cpp/ops/error_text.h"
#include "tests/cpp/ops/reduction_test_util.h"

using namespace glassbox;
using glassbox::testing::as_doubles;
using glassbox::testing::error_of;
using glassbox::testing::from_values;
using glassbox::testing::random_tensor;

namespace {
const std::vector<double> k23 = {1, -2, 3, 4, 5, -6};  // [[1, -2, 3], [4, 5, -6]]
Tensor m23(ScalarType t = ScalarType::Float32) { return from_values(k23, {2, 3}, t); }
std::vector<int64_t> dims(std::initializer_list<int64_t> d) { return std::vector<int64_t>(d); }
}  // namespace

TEST(Sum, WholeAndOverDims) {
  const Tensor a = m23();
  const Tensor s = sum(a);
  ASSERT_EQ(s.dim(), 0);
  ASSERT_EQ(s.dtype(), ScalarType::Float32);
  EXPECT_EQ(as_doubles(s)[0], 5);
  const std::vector<int64_t> d0 = dims({0}), d1 = dims({-1});
  EXPECT_EQ(as_doubles(sum(a, IntArrayRef(d0))), (std::vector<double>{5, 3, -3}));
  const Tensor k = sum(a, IntArrayRef(d1), true);
  ASSERT_EQ(k.sizes(), DimVector({2, 1}));
  EXPECT_EQ(as_doubles(k), (std::vector<double>{2, 3}));
  EXPECT_EQ(as_doubles(a.sum()), (std::vector<double>{5}));
  // Non-contiguous: the transpose reduces its own dims.
  EXPECT_EQ(as_doubles(sum(a.t(), IntArrayRef(d0))), (std::vector<double>{2, 3}));
}

TEST(Sum, MiddleDimsAndPermutedLayouts) {
  const Tensor x = random_tensor({3, 4, 5, 6}, 1);
  const std::vector<int64_t> mid = dims({1, 2}), outer = dims({0, 3}), one = dims({1});
  const auto xv = as_doubles(x);
  auto at = [&](int a, int b, int c, int d) { return xv[((a * 4 + b) * 5 + c) * 6 + d]; };
  const auto sm = as_doubles(sum(x, IntArrayRef(mid))), so = as_doubles(sum(x, IntArrayRef(outer)));
  const auto s1 = as_doubles(sum(x, IntArrayRef(one)));
  for (int a = 0; a < 3; ++a)
    for (int d = 0; d < 6; ++d) {
      double want = 0;
      for (int b = 0; b < 4; ++b)
        for (int c = 0; c < 5; ++c) want += at(a, b, c, d);
      EXPECT_NEAR(sm[a * 6 + d], want, 1e-12);
    }
  for (int b = 0; b < 4; ++b)
    for (int c = 0; c < 5; ++c) {
      double want = 0;
      for (int a = 0; a < 3; ++a)
        for (int d = 0; d < 6; ++d) want += at(a, b, c, d);
      EXPECT_NEAR(so[b * 5 + c], want, 1e-12);
    }
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 5; ++c)
      for (int d = 0; d < 6; ++d) {
        double want = 0;
        for (int b = 0; b < 4; ++b) want += at(a, b, c, d);
        EXPECT_NEAR(s1[(a * 5 + c) * 6 + d], want, 1e-12);
      }
}

TEST(Sum, DtypesOfTheResult) {
  EXPECT_EQ(sum(m23(ScalarType::Int32)).dtype(), ScalarType::Int64);
  EXPECT_EQ(sum(m23(ScalarType::UInt8)).dtype(), ScalarType::Int64);
  const Tensor b = from_values({1, 0, 1, 1}, {4}, ScalarType::Bool);
  EXPECT_EQ(sum(b).dtype(), ScalarType::Int64);
  EXPECT_EQ(as_doubles(sum(b))[0], 3);
  EXPECT_EQ(sum(m23(ScalarType::Float16)).dtype(), ScalarType::Float16);
  EXPECT_EQ(sum(m23(), ScalarType::Float64).dtype(), ScalarType::Float64);
  EXPECT_EQ(as_doubles(sum(m23(ScalarType::Int8), ScalarType::Float32))[0], 5);
  // int8 values that overflow int8 sum correctly in int64.
  const Tensor big = full({100}, Scalar(int64_t{100}), ScalarType::Int8);
  EXPECT_EQ(as_doubles(sum(big))[0], 10000);
}

TEST(Sum, EmptyGivesZeroAndProdOne) {
  const Tensor e = empty({0, 3});
  EXPECT_EQ(as_doubles(sum(e))[0], 0);
  EXPECT_EQ(as_doubles(prod(e))[0], 1);
  const std::vector<int64_t> d0 = dims({0}), d1 = dims({1});
  EXPECT_EQ(as_doubles(sum(e, IntArrayRef(d0))), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(sum(e, IntArrayRef(d1)).sizes(), DimVector({0}));
  EXPECT_TRUE(std::isnan(as_doubles(mean(e))[0]));
}

TEST(Sum, LongSumsAreAccurateAndIndependentOfThreads) {
  const int64_t n = 1 << 22;
  const Tensor x = full({n}, Scalar(0.1), ScalarType::Float32);
  set_num_threads(1);
  const double one = as_doubles(sum(x))[0];
  set_num_threads(2);
  const double two = as_doubles(sum(x))[0];
  EXPECT_EQ(one, two);
  EXPECT_NEAR(one, 0.1f * static_cast<double>(n), 1e-6 * n * 0.1);
  // A column reduction of many rows is blocked too.
  const Tensor col = full({n / 4, 4}, Scalar(0.1), ScalarType::Float32);
  const std::vector<int64_t> d0 = dims({0});
  for (double v : as_doubles(sum(col, IntArrayRef(d0)))) EXPECT_NEAR(v, 0.1f * (n / 4.0), 1e-6 * n);
  const Tensor ones_big = ones({3, 100000});
  const std::vector<int64_t> d1 = dims({1});
  EXPECT_EQ(as_doubles(sum(ones_big, IntArrayRef(d1))), (std::vector<double>{100000, 100000, 100000}));
}

// Random float32 values against a float64 sum, lengths on both sides of the block (1024) and
// thread-chunk (65536) sizes. A plain running float sum of the longest is off by ~1e-4 of the
// total magnitude; the blocked, pairwise sum must stay within a few units of float's epsilon.
TEST(Sum, RandomFloat32SumsMatchAFloat64Reference) {
  const int saved = get_num_threads();
  for (int64_t n : {1000, 1024, 1025, 65535, 65537, 3 * 65536 + 17, (1 << 22) + 3}) {
    const Tensor x = random_tensor({n}, static_cast<uint32_t>(n), -1.0, 3.0, ScalarType::Float32);
    const float* v = x.data<float>();
    double exact = 0, magnitude = 0;
    for (int64_t i = 0; i < n; ++i) exact += v[i], magnitude += std::fabs(v[i]);
    set_num_threads(1);
    const double one = as_doubles(sum(x))[0];
    set_num_threads(2);
    const double two = as_doubles(sum(x))[0];
    EXPECT_EQ(one, two) << "n=" << n;
    EXPECT_LE(std::fabs(one - exact), 4 * 1.2e-7 * magnitude) << "n=" << n << " sum " << one << " exact " << exact;
  }
  set_num_threads(saved);
}

// Column reductions that make few tasks (a bias's gradient: dim 0 of rows x columns, and the
// middle dim of a short outer one) are cut into row chunks and merged: every chunk count, odd
// ones too, against a float64 loop, and the same bits on 1 and 3 threads.
TEST(Sum, ColumnReductionsInRowChunksMatchAFloat64Loop) {
  const int saved = get_num_threads();
  for (const auto& [outer, rows, cols] : std::vector<std::array<int64_t, 3>>{
           {1, 512, 128}, {1, 517, 384}, {1, 4099, 33}, {3, 1000, 40}, {2, 129, 200}, {1, 65, 8192}}) {
    const Tensor x =
        random_tensor({outer, rows, cols}, static_cast<uint32_t>(rows * cols), -1.0, 3.0, ScalarType::Float32);
    const float* v = x.data<float>();
    const std::vector<int64_t> d1 = dims({1});
    set_num_threads(1);
    const std::vector<double> s1 = as_doubles(sum(x, IntArrayRef(d1))), m1 = as_doubles(amax(x, IntArrayRef(d1)));
    const std::vector<double> v1 = as_doubles(var(x, IntArrayRef(d1)));
    set_num_threads(3);
    EXPECT_EQ(as_doubles(sum(x, IntArrayRef(d1))), s1);
    EXPECT_EQ(as_doubles(amax(x, IntArrayRef(d1))), m1);
    EXPECT_EQ(as_doubles(var(x, IntArrayRef(d1))), v1);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t c = 0; c < cols; ++c) {
        double exact = 0, magnitude = 0, top = -1e300, sq = 0;
        for (int64_t r = 0; r < rows; ++r) {
          const double e = v[(o * rows + r) * cols + c];
          exact += e, magnitude += std::fabs(e), top = std::max(top, e);
        }
        for (int64_t r = 0; r < rows; ++r) {
          const double e = v[(o * rows + r) * cols + c] - exact / rows;
          sq += e * e;
        }
        const int64_t k = o * cols + c;
        ASSERT_LE(std::fabs(s1[k] - exact), 4 * 1.2e-7 * magnitude)
            << outer << "x" << rows << "x" << cols << " at " << k;
        ASSERT_EQ(m1[k], top) << k;
        ASSERT_NEAR(v1[k], sq / (rows - 1), 1e-5 * sq / (rows - 1)) << k;
      }
  }
  set_num_threads(saved);
}

TEST(Sum, OutVariant) {
  Tensor out = empty({3});
  const std::vector<int64_t> d0 = dims({0});
  Tensor& r = sum_out(out, m23(), IntArrayRef(d0));
  EXPECT_TRUE(r.is_same(out));
  EXPECT_EQ(as_doubles(out), (std::vector<double>{5, 3, -3}));
  Tensor resized = empty({2});  // an out of another shape is resized, as in PyTorch
  sum_out(resized, m23(), IntArrayRef(d0));
  EXPECT_EQ(resized.sizes(), DimVector({3}));
  EXPECT_EQ(as_doubles(resized), (std::vector<double>{5, 3, -3}));
  Tensor mo = empty({2});
  const std::vector<int64_t> d1 = dims({1});
  mean_out(mo, m23(), IntArrayRef(d1));
  EXPECT_NEAR(as_doubles(mo)[1], 1, 1e-6);
  Tensor ao = empty({2}), io = empty({2});
  amax_out(ao, m23(), IntArrayRef(d1));
  amin_out(io, m23(), IntArrayRef(d1));
  EXPECT_EQ(as_doubles(ao), (std::vector<double>{3, 5}));
  EXPECT_EQ(as_doubles(io), (std::vector<double>{-2, -6}));
  Tensor lo = empty({2});
  logsumexp_out(lo, m23(), IntArrayRef(d1));
  EXPECT_NEAR(as_doubles(lo)[0], std::log(std::exp(1.0) + std::exp(-2.0) + std::exp(3.0)), 1e-5);
}

TEST(Mean, FloatsOnlyUnlessDtypeGiven) {
  EXPECT_NEAR(as_doubles(mean(m23()))[0], 5.0 / 6, 1e-6);
  const std::vector<int64_t> d0 = dims({0});
  EXPECT_EQ(as_doubles(mean(m23(ScalarType::Float64), IntArrayRef(d0))), (std::vector<double>{2.5, 1.5, -1.5}));
  EXPECT_THROW(mean(m23(ScalarType::Int64)), NotImplementedError);
  EXPECT_EQ(error_of([] { mean(m23(ScalarType::Int64)); }),
            "mean: expected a floating point input or dtype, got int64 (a tensor of shape [2, 3]); pass dtype= to "
            "compute in floating point");
  const Tensor m = mean(m23(ScalarType::Int64), ScalarType::Float64);
  EXPECT_EQ(m.dtype(), ScalarType::Float64);
  EXPECT_NEAR(as_doubles(m)[0], 5.0 / 6, 1e-12);
  EXPECT_NEAR(as_doubles(mean(m23(ScalarType::BFloat16)))[0], 5.0 / 6, 1e-2);
}

TEST(Prod, ValuesAndDtypes) {
  EXPECT_EQ(as_doubles(prod(m23()))[0], 720);
  EXPECT_EQ(as_doubles(prod(m23(), 1)), (std::vector<double>{-6, -120}));
  EXPECT_EQ(prod(m23(ScalarType::Int16)).dtype(), ScalarType::Int64);
  EXPECT_EQ(prod(m23(), 0, true).sizes(), DimVector({1, 3}));
}

TEST(MaxMin, WholeTensorAndAmaxAmin) {
  EXPECT_EQ(as_doubles(max(m23()))[0], 5);
  EXPECT_EQ(as_doubles(min(m23()))[0], -6);
  EXPECT_EQ(max(m23(ScalarType::Int8)).dtype(), ScalarType::Int8);
  const std::vector<int64_t> d0 = dims({0}), all = dims({0, 1});
  EXPECT_EQ(as_doubles(amax(m23(), IntArrayRef(d0))), (std::vector<double>{4, 5, 3}));
  EXPECT_EQ(as_doubles(amin(m23(), IntArrayRef(all), true)), (std::vector<double>{-6}));
  EXPECT_EQ(amin(m23(), IntArrayRef(all), true).sizes(), DimVector({1, 1}));
  // NaN propagates.
  const Tensor n = from_values({1, NAN, 3}, {3});
  EXPECT_TRUE(std::isnan(as_doubles(max(n))[0]));
  EXPECT_TRUE(std::isnan(as_doubles(min(n))[0]));
  const Tensor b = from_values({0, 1, 0}, {3}, ScalarType::Bool);
  EXPECT_EQ(as_doubles(max(b))[0], 1);
  EXPECT_EQ(as_doubles(min(b))[0], 0);
}

TEST(MaxMin, DimGivesValuesAndFirstIndices) {
  const Tensor a = from_values({3, 1, 3, 2, 7, 7}, {2, 3});
  auto [v, i] = max(a, 1);
  EXPECT_EQ(v.sizes(), DimVector({2}));
  EXPECT_EQ(i.dtype(), ScalarType::Int64);
  EXPECT_EQ(as_doubles(v), (std::vector<double>{3, 7}));
  EXPECT_EQ(as_doubles(i), (std::vector<double>{0, 1}));  // ties: the first
  auto [mv, mi] = min(a, 0, true);
  EXPECT_EQ(mv.sizes(), DimVector({1, 3}));
  EXPECT_EQ(as_doubles(mv), (std::vector<double>{2, 1, 3}));
  EXPECT_EQ(as_doubles(mi), (std::vector<double>{1, 0, 0}));
  const Tensor n = from_values({1, NAN, 5, NAN}, {4});
  EXPECT_EQ(as_doubles(std::get<1>(max(n, 0)))[0], 1);  // the first NaN
  EXPECT_EQ(as_doubles(argmax(n))[0], 1);
}

TEST(ArgMaxMin, FlattenedAndAlongDims) {
  EXPECT_EQ(as_doubles(argmax(m23()))[0], 4);
  EXPECT_EQ(as_doubles(argmin(m23()))[0], 5);
  EXPECT_EQ(as_doubles(argmax(m23(), 0)), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(argmax(m23(), std::nullopt, true).sizes(), DimVector({1, 1}));
  EXPECT_EQ(as_doubles(argmin(m23().t(), 1)), (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(as_doubles(argmax(m23().t())), (std::vector<double>{3}));  // flattened in logical order
}

TEST(VarStd, CorrectionAndUnbiased) {
  const Tensor a = m23(ScalarType::Float64);
  double m = 5.0 / 6, ss = 0;
  for (double v : k23) ss += (v - m) * (v - m);
  EXPECT_NEAR(as_doubles(var(a))[0], ss / 5, 1e-12);
  EXPECT_NEAR(as_doubles(var(a, false))[0], ss / 6, 1e-12);
  EXPECT_NEAR(as_doubles(glassbox::std(a))[0], std::sqrt(ss / 5), 1e-12);
  const std::vector<int64_t> d1 = dims({1});
  const auto vd = as_doubles(var(a, IntArrayRef(d1), true, true));
  EXPECT_NEAR(vd[0], (std::pow(1 - 2.0 / 3, 2) + std::pow(-2 - 2.0 / 3, 2) + std::pow(3 - 2.0 / 3, 2)) / 2, 1e-12);
  EXPECT_EQ(var(a, IntArrayRef(d1), true, true).sizes(), DimVector({2, 1}));
  EXPECT_NEAR(as_doubles(var_correction(a, std::nullopt, Scalar(int64_t{0})))[0], ss / 6, 1e-12);
  EXPECT_NEAR(as_doubles(std_correction(a, std::nullopt, Scalar(2.0)))[0], std::sqrt(ss / 4), 1e-12);
  EXPECT_NEAR(as_doubles(a.var_correction())[0], ss / 5, 1e-12);
  EXPECT_TRUE(std::isnan(as_doubles(var(from_values({1}, {1})))[0]));  // one value, N - 1 = 0
  EXPECT_THROW(var(m23(ScalarType::Int32)), NotImplementedError);
  // Large offsets do not lose the variance (two passes).
  const Tensor shifted = from_values({1e4 + 1, 1e4 + 2, 1e4 + 3}, {3});
  EXPECT_NEAR(as_doubles(var(shifted))[0], 1.0, 1e-3);
}

TEST(LogSumExp, StableForLargeValues) {
  const Tensor a = from_values({1000, 1000, -1000}, {3});
  const std::vector<int64_t> d0 = dims({0});
  EXPECT_NEAR(as_doubles(logsumexp(a, IntArrayRef(d0)))[0], 1000 + std::log(2.0), 1e-3);
  const Tensor inf = from_values({-INFINITY, -INFINITY}, {2});
  EXPECT_EQ(as_doubles(logsumexp(inf, IntArrayRef(d0)))[0], -INFINITY);
  EXPECT_EQ(logsumexp(m23(ScalarType::Int64), IntArrayRef(d0)).dtype(), ScalarType::Float32);
  const Tensor x = random_tensor({4, 5}, 3);
  const std::vector<int64_t> d1 = dims({1});
  const auto got = as_doubles(logsumexp(x, IntArrayRef(d1), true));
  const auto xv = as_doubles(x);
  for (int r = 0; r < 4; ++r) {
    double s = 0;
    for (int c = 0; c < 5; ++c) s += std::exp(xv[r * 5 + c]);
    EXPECT_NEAR(got[r], std::log(s), 1e-12);
  }
}

TEST(ReductionErrors, NameTheOperatorDimAndShape) {
  const std::vector<int64_t> bad = dims({3}), twice = dims({1, -1});
  EXPECT_EQ(error_of([&] { sum(m23(), IntArrayRef(bad)); }),
            "sum: dim 3 is out of range for a tensor of shape [2, 3] (expected a dim in [-2, 1])");
  EXPECT_THROW(sum(m23(), IntArrayRef(bad)), IndexError);
  EXPECT_EQ(error_of([&] { amax(m23(), IntArrayRef(twice)); }),
            "amax: dim -1 appears more than once in the dims of a tensor of shape [2, 3]");
  EXPECT_EQ(error_of([] {
              max(empty({0, 3}));
            }),
            "max: cannot reduce dim 0 of size 0 of a tensor of shape [0, 3] (the operation has no identity); reduce "
            "over dims of non-zero size");
  EXPECT_THROW(max(empty({0})), Error);
  EXPECT_THROW(argmax(empty({0})), Error);
  EXPECT_THROW(max(empty({2, 0}), 1), Error);
  const std::vector<int64_t> d0 = dims({0});
  EXPECT_EQ(amax(empty({2, 0}), IntArrayRef(d0)).sizes(), DimVector({0}));  // nothing to reduce over is fine
  EXPECT_THROW(max(m23(), 2), IndexError);
  // 0-d tensors accept dim 0 and -1.
  const Tensor s = from_values({4}, {});
  EXPECT_EQ(as_doubles(sum(s, IntArrayRef(dims({-1}))))[0], 4);
  EXPECT_EQ(as_doubles(std::get<1>(max(s, 0)))[0], 0);
  EXPECT_THROW(sum(s, IntArrayRef(dims({1}))), IndexError);
}

TEST(ReductionMeta, ShapesAndDtypesWithoutData) {
  const Device meta = Device::parse("meta");
  const Tensor a = empty({4, 5, 6}, ScalarType::Int32, meta);
  const Tensor f = empty({4, 5, 6}, ScalarType::Float16, meta);
  const std::vector<int64_t> d1 = dims({1}), d02 = dims({0, -1});
  EXPECT_EQ(sum(a).dtype(), ScalarType::Int64);
  EXPECT_EQ(sum(a).device(), meta);
  EXPECT_EQ(sum(a, IntArrayRef(d1), true).sizes(), DimVector({4, 1, 6}));
  EXPECT_EQ(mean(f, IntArrayRef(d02)).sizes(), DimVector({5}));
  EXPECT_EQ(mean(f).dtype(), ScalarType::Float16);
  EXPECT_THROW(mean(a), NotImplementedError);
  EXPECT_EQ(prod(a, 2).sizes(), DimVector({4, 5}));
  EXPECT_EQ(amax(a, IntArrayRef(d1)).dtype(), ScalarType::Int32);
  EXPECT_EQ(amin(f).sizes(), DimVector());
  EXPECT_EQ(max(a).sizes(), DimVector());
  EXPECT_EQ(min(a).sizes(), DimVector());
  auto [v, i] = max(f, 0, true);
  EXPECT_EQ(v.sizes(), DimVector({1, 5, 6}));
  EXPECT_EQ(i.dtype(), ScalarType::Int64);
  EXPECT_EQ(std::get<0>(min(f, 1)).sizes(), DimVector({4, 6}));
  EXPECT_EQ(argmax(f).sizes(), DimVector());
  EXPECT_EQ(argmin(f, 2).sizes(), DimVector({4, 5}));
  EXPECT_EQ(var(f).dtype(), ScalarType::Float16);
  EXPECT_EQ(var(f, IntArrayRef(d1)).sizes(), DimVector({4, 6}));
  EXPECT_EQ(var_correction(f, IntArrayRef(d1), Scalar(0.0), true).sizes(), DimVector({4, 1, 6}));
  EXPECT_EQ(glassbox::std(f).sizes(), DimVector());
  EXPECT_EQ(glassbox::std(f, IntArrayRef(d1)).sizes(), DimVector({4, 6}));
  EXPECT_EQ(std_correction(f).sizes(), DimVector());
  EXPECT_THROW(var(a), NotImplementedError);
  EXPECT_EQ(logsumexp(a, IntArrayRef(d1)).dtype(), ScalarType::Float32);
  EXPECT_THROW(sum(a, IntArrayRef(dims({3}))), IndexError);
  EXPECT_THROW(max(empty({0}, ScalarType::Float32, meta)), Error);
  Tensor out = empty({4, 6}, ScalarType::Int64, meta);
  EXPECT_TRUE(sum_out(out, a, IntArrayRef(d1)).is_same(out));
  Tensor fout = empty({4, 6}, ScalarType::Float16, meta);
  EXPECT_TRUE(mean_out(fout, f, IntArrayRef(d1)).is_same(fout));
  Tensor iout = empty({4, 6}, ScalarType::Int32, meta);
  EXPECT_TRUE(amax_out(iout, a, IntArrayRef(d1)).is_same(iout));
  EXPECT_TRUE(amin_out(iout, a, IntArrayRef(d1)).is_same(iout));
  Tensor lout = empty({4, 6}, ScalarType::Float16, meta);
  EXPECT_TRUE(logsumexp_out(lout, f, IntArrayRef(d1)).is_same(lout));
  EXPECT_THROW(sum_out(fout, a, IntArrayRef(d1)), Error);
}
