// Matrix products: mm, bmm, addmm, dot (and their out= forms), the composites matmul, outer and
// linear, against plain triple loops in double; cblas against the built-in gemm; Meta; errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "engine/cpu/blas.h"
#include "glassbox/ops/Functions.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using glassbox::testing::error_of;

namespace {
// Deterministic small values: integers in [-4, 4] (floats get a fraction too).
Tensor random(std::vector<int64_t> sizes, ScalarType dtype = ScalarType::Float64, uint64_t seed = 1) {
  Tensor t = empty(sizes, dtype);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 12345;
  visit_scalar_type(dtype, [&]<class T>() {
    for (int64_t i = 0; i < t.numel(); ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const int v = static_cast<int>((state >> 33) % 9) - 4;
      const double frac = is_floating_point(dtype) ? static_cast<double>((state >> 20) % 8) / 8.0 : 0.0;
      t.data<T>()[i] = static_cast<T>(static_cast<float>(v + frac));
    }
  });
  return t;
}
std::vector<double> values(const Tensor& t) {
  const Tensor c = t.to(ScalarType::Float64).contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}
// [m, k] @ [k, n] in double, any layout.
std::vector<double> naive_mm(const Tensor& a, const Tensor& b) {
  const auto av = values(a), bv = values(b);
  const int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
  std::vector<double> out(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) out[i * n + j] += av[i * k + p] * bv[p * n + j];
  return out;
}
void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << "at " << i;
}
const Device kMeta = Device::parse("meta");
}  // namespace

TEST(Mm, EveryDtypeAgainstLoops) {
  for (ScalarType dt : {ScalarType::Float32, ScalarType::Float64, ScalarType::Float16, ScalarType::BFloat16,
                        ScalarType::Int64, ScalarType::Int32, ScalarType::Int16, ScalarType::Int8, ScalarType::UInt8}) {
    const Tensor a = random({7, 5}, dt, 1), b = random({5, 9}, dt, 2);
    const Tensor c = mm(a, b);
    ASSERT_EQ(c.sizes(), DimVector({7, 9}));
    ASSERT_EQ(c.dtype(), dt);
    std::vector<double> want = naive_mm(a, b);
    if (dt == ScalarType::Int8 || dt == ScalarType::UInt8) {  // wrap around as NumPy's do
      for (double& w : want)
        w = dt == ScalarType::Int8 ? static_cast<int8_t>(static_cast<int64_t>(w))
                                   : static_cast<uint8_t>(static_cast<int64_t>(w));
    }
    const double tol = dt == ScalarType::BFloat16 ? 1e-2 : dt == ScalarType::Float16 ? 2e-3 : 1e-6;
    expect_near(values(c), want, tol);
  }
}

TEST(Mm, TransposedAndStridedOperandsAndMethods) {
  const Tensor a = random({6, 4}), b = random({6, 3}, ScalarType::Float64, 3);
  // a^T @ b: a transposed view (no copy needed by cblas).
  expect_near(values(mm(a.t(), b)), naive_mm(a.t(), b), 1e-12);
  // Every other column, every other row: layouts cblas cannot read in place.
  const Tensor big = random({8, 10}, ScalarType::Float32, 4);
  const Tensor s = slice(slice(big, 0, 0, 8, 2), 1, 0, 10, 2);  // [4, 5]
  expect_near(values(mm(s, s.t())), naive_mm(s, s.t()), 1e-5);
  expect_near(values(a.t().mm(b)), naive_mm(a.t(), b), 1e-12);
  // Empty inner dimension: zeros; empty outer dims: empty results.
  EXPECT_EQ(values(mm(empty({2, 0}), empty({0, 3}))), std::vector<double>(6, 0.0));
  EXPECT_EQ(mm(empty({0, 4}), empty({4, 3})).sizes(), DimVector({0, 3}));
}

TEST(Mm, OutVariantsWriteInPlace) {
  const Tensor a = random({3, 4}), b = random({4, 2}, ScalarType::Float64, 2);
  Tensor out = empty({3, 2}, ScalarType::Float64);
  Tensor& r = mm_out(out, a, b);
  EXPECT_EQ(&r, &out);
  expect_near(values(out), naive_mm(a, b), 1e-12);
  // A column-major out (a transposed view) is written through its strides.
  Tensor col_major = empty({2, 3}, ScalarType::Float64).t();
  mm_out(col_major, a, b);
  expect_near(values(col_major), naive_mm(a, b), 1e-12);
  // out aliasing an input: computed through a temporary.
  Tensor sq = random({3, 3});
  const std::vector<double> want = naive_mm(sq, sq);
  mm_out(sq, sq.clone(), sq);
  expect_near(values(sq), want, 1e-12);
  const Tensor c = random({4, 5});
  mm_out(out, a, c);  // an out of another shape is resized, as in PyTorch
  EXPECT_EQ(out.sizes(), DimVector({3, 5}));
  expect_near(values(out), naive_mm(a, c), 1e-12);
  Tensor wrong = empty({3, 2}, ScalarType::Float32);
  EXPECT_EQ(error_of([&] { mm_out(wrong, a, b); }), "mm.out: out has dtype float32 but the result has dtype float64");

  const Tensor ba = random({3, 2, 4}), bb = random({3, 4, 5}, ScalarType::Float64, 7);
  Tensor bout = empty({3, 2, 5}, ScalarType::Float64);
  bmm_out(bout, ba, bb);
  expect_near(values(bout), values(bmm(ba, bb)), 0);
}

TEST(Bmm, BatchesAgainstLoopsAllDtypes) {
  for (ScalarType dt : {ScalarType::Float32, ScalarType::Float64, ScalarType::Int32, ScalarType::BFloat16}) {
    const Tensor a = random({4, 3, 5}, dt, 5), b = random({4, 5, 2}, dt, 6);
    const Tensor c = bmm(a, b);
    ASSERT_EQ(c.sizes(), DimVector({4, 3, 2}));
    for (int64_t i = 0; i < 4; ++i)
      expect_near(values(select(c, 0, i)), naive_mm(select(a, 0, i), select(b, 0, i)), 1e-2);
  }
  // Many small products go one per thread for the built-in gemm: the same numbers either way.
  set_num_threads(2);
  const Tensor a = random({64, 8, 8}, ScalarType::Int64), b = random({64, 8, 8}, ScalarType::Int64, 9);
  const std::vector<double> two = values(bmm(a, b));
  set_num_threads(1);
  EXPECT_EQ(values(bmm(a, b)), two);
  set_num_threads(2);
  // A broadcast (stride 0) batch operand.
  const Tensor shared = random({1, 5, 2}).expand({4, 5, 2});
  const Tensor x = random({4, 3, 5}, ScalarType::Float64, 3);
  expect_near(values(select(bmm(x, shared), 0, 2)), naive_mm(select(x, 0, 2), select(shared, 0, 0)), 1e-12);
}

TEST(Addmm, BetaAlphaBroadcastAndNaN) {
  const Tensor m1 = random({3, 4}), m2 = random({4, 5}, ScalarType::Float64, 2),
               bias = random({5}, ScalarType::Float64, 3);
  const Tensor r = addmm(bias, m1, m2, Scalar(0.5), Scalar(2));
  const auto p = naive_mm(m1, m2), bv = values(bias);
  std::vector<double> want(15);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) want[i * 5 + j] = 0.5 * bv[j] + 2 * p[i * 5 + j];
  expect_near(values(r), want, 1e-12);
  // beta = 0 ignores self, NaN included.
  const Tensor nan = full({3, 5}, Scalar(std::numeric_limits<double>::quiet_NaN()), ScalarType::Float64);
  expect_near(values(addmm(nan, m1, m2, Scalar(0))), p, 1e-12);
  // Integers: integral factors only.
  const Tensor i1 = random({2, 3}, ScalarType::Int64), i2 = random({3, 2}, ScalarType::Int64, 4);
  const Tensor ir = addmm(ones({2, 2}, ScalarType::Int64), i1, i2, Scalar(int64_t{3}), Scalar(int64_t{2}));
  const auto ip = naive_mm(i1, i2);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(values(ir)[i], 3 + 2 * ip[i]);
  EXPECT_EQ(error_of([&] {
              addmm(ones({2, 2}, ScalarType::Int64), i1, i2, Scalar(0.5));
            }),
            "addmm: beta must be an integer for integer tensors, got 0.500000");
  EXPECT_EQ(error_of([&] { addmm(random({4}), m1, m2); }),
            "addmm: self of shape [4] cannot be broadcast to the product's shape [3, 5]");
  // out= and the method; out may be self.
  Tensor acc = random({3, 5}, ScalarType::Float64, 8);
  const auto before = values(acc);
  addmm_out(acc, acc, m1, m2);
  for (int i = 0; i < 15; ++i) EXPECT_NEAR(values(acc)[i], before[i] + p[i], 1e-12);
  expect_near(values(bias.addmm(m1, m2)), values(addmm(bias, m1, m2)), 0);
}

TEST(Dot, StridedAndIntegers) {
  const Tensor a = random({10}), b = random({20}, ScalarType::Float64, 2);
  const Tensor strided = slice(b, 0, 0, 20, 2);
  const auto av = values(a), sv = values(strided);
  double want = 0;
  for (int i = 0; i < 10; ++i) want += av[i] * sv[i];
  const Tensor d = dot(a, strided);
  ASSERT_EQ(d.dim(), 0);
  EXPECT_NEAR(values(d)[0], want, 1e-12);
  EXPECT_EQ(dot(random({5}, ScalarType::Int32), random({5}, ScalarType::Int32)).dtype(), ScalarType::Int32);
  EXPECT_EQ(values(dot(empty({0}), empty({0})))[0], 0.0);
  EXPECT_EQ(error_of([&] { dot(random({3}), random({4})); }),
            "dot: self and tensor must have the same number of elements, got shapes [3] and [4]");
}

TEST(Matmul, EveryRankCombination) {
  const Tensor v3 = random({3}), v4 = random({4}, ScalarType::Float64, 2), m34 = random({3, 4}, ScalarType::Float64, 3);
  const Tensor m43 = random({4, 3}, ScalarType::Float64, 4);
  EXPECT_EQ(matmul(v3, v3).dim(), 0);                                           // 1-D . 1-D
  expect_near(values(matmul(m34, v4)), naive_mm(m34, v4.unsqueeze(1)), 1e-12);  // 2-D . 1-D
  expect_near(values(matmul(v3, m34)), naive_mm(v3.unsqueeze(0), m34), 1e-12);  // 1-D . 2-D
  EXPECT_EQ(matmul(m34, m43).sizes(), DimVector({3, 3}));
  // Batched with broadcast batch dims: [2, 1, 3, 4] @ [5, 4, 3] -> [2, 5, 3, 3].
  const Tensor a = random({2, 1, 3, 4}, ScalarType::Float64, 5), b = random({5, 4, 3}, ScalarType::Float64, 6);
  const Tensor c = matmul(a, b);
  ASSERT_EQ(c.sizes(), DimVector({2, 5, 3, 3}));
  expect_near(values(select(select(c, 0, 1), 0, 4)), naive_mm(select(select(a, 0, 1), 0, 0), select(b, 0, 4)), 1e-12);
  // A batch times a matrix or a vector; a vector times a batch.
  EXPECT_EQ(matmul(a, m43).sizes(), DimVector({2, 1, 3, 3}));
  EXPECT_EQ(matmul(a, v4).sizes(), DimVector({2, 1, 3}));
  const Tensor vb = matmul(v4, b);
  ASSERT_EQ(vb.sizes(), DimVector({5, 3}));
  expect_near(values(select(vb, 0, 2)), naive_mm(v4.unsqueeze(0), select(b, 0, 2)), 1e-12);
  EXPECT_EQ(matmul(m34, b).sizes(), DimVector({5, 3, 3}));
  EXPECT_EQ(v3.matmul(m34).sizes(), DimVector({4}));
  EXPECT_EQ(matmul(empty({0, 2, 3}), empty({3, 4})).sizes(), DimVector({0, 2, 4}));
  EXPECT_EQ(error_of([&] {
              matmul(random({2, 3}), random({4, 5}));
            }),
            "matmul: shapes [2, 3] and [4, 5] cannot be multiplied (3 columns vs 4 rows)");
  EXPECT_EQ(error_of([&] {
              matmul(random({2, 3, 4}), random({3, 4, 2}));
            }),
            "matmul: the batch dims [2] and [3] of shapes [2, 3, 4] and [3, 4, 2] cannot be broadcast together");
  EXPECT_EQ(error_of([&] { matmul(random({}), random({3})); }),
            "matmul: both arguments need at least one dimension, got shapes [] and [3]");
}

TEST(OuterAndLinear, AgainstLoops) {
  const Tensor a = random({3}), b = random({4}, ScalarType::Float64, 2);
  expect_near(values(outer(a, b)), naive_mm(a.unsqueeze(1), b.unsqueeze(0)), 1e-12);
  EXPECT_EQ(outer(random({2}, ScalarType::Int64), random({2})).dtype(), ScalarType::Float64);  // promotes like mul
  const Tensor x = random({2, 3, 4}), w = random({5, 4}, ScalarType::Float64, 3),
               bias = random({5}, ScalarType::Float64, 4);
  const Tensor y = linear(x, w, bias);
  ASSERT_EQ(y.sizes(), DimVector({2, 3, 5}));
  const auto p = naive_mm(select(x, 0, 1), w.t()), bv = values(bias), yv = values(select(y, 0, 1));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_NEAR(yv[i * 5 + j], p[i * 5 + j] + bv[j], 1e-12);
  expect_near(values(linear(select(x, 0, 1), w, bias)), yv, 1e-12);  // the addmm path
  expect_near(values(linear(select(x, 0, 1), w)), p, 1e-12);
  EXPECT_EQ(error_of([&] {
              linear(x, random({5, 3}));
            }),
            "linear: input of shape [2, 3, 4] and weight of shape [5, 3] disagree on in_features (4 vs 3)");
  EXPECT_EQ(error_of([&] { outer(random({2, 2}), a); }), "outer: expected two 1-D vectors, got shapes [2, 2] and [3]");
}

TEST(Gemm, CblasAgreesWithTheBuiltInGemm) {
  for (ScalarType dt : {ScalarType::Float32, ScalarType::Float64}) {
    // Sizes that cross the built-in gemm's blocks, every transpose combination, alpha and beta.
    const int64_t m = 70, k = 300, n = 260;
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        const Tensor a = ta ? random({k, m}, dt, 1).t() : random({m, k}, dt, 1);
        const Tensor b = tb ? random({n, k}, dt, 2).t() : random({k, n}, dt, 2);
        Tensor c1 = random({m, n}, dt, 3), c2 = c1.clone();
        auto view = [](const Tensor& t) {
          return cpu::MatrixView{t.data_ptr(), t.sizes()[0], t.sizes()[1], t.strides()[0], t.strides()[1]};
        };
        cpu::gemm(dt, view(a), view(b), view(c1), 1.5, 0.5);
        cpu::gemm_fallback(dt, view(a), view(b), view(c2), 1.5, 0.5);
        expect_near(values(c1), values(c2), dt == ScalarType::Float32 ? 1e-5 : 1e-12);
      }
  }
  EXPECT_FALSE(cpu::blas_info().empty());
}

TEST(Gemm, ThreadCountsGiveTheSameResultsAndReachBlas) {
  const Tensor a = random({130, 70}, ScalarType::Float16), b = random({70, 300}, ScalarType::Float16, 2);
  set_num_threads(1);
  const auto one = values(mm(a, b));
  set_num_threads(2);
  EXPECT_EQ(values(mm(a, b)), one);
  // float64: OpenBLAS's dgemm wherever it was found (float32 may go to oneDNN's sgemm instead).
  mm(random({4, 4}, ScalarType::Float64), random({4, 4}, ScalarType::Float64));
  EXPECT_EQ(cpu::blas_num_threads(), 2);
  set_num_threads(1);
  mm(random({4, 4}, ScalarType::Float64), random({4, 4}, ScalarType::Float64));
  EXPECT_EQ(cpu::blas_num_threads(), 1);
  set_num_threads(2);
}

TEST(Meta, ProductShapesWithoutData) {
  const Tensor a = empty({2, 3, 4}, ScalarType::Float32, kMeta), b = empty({2, 4, 5}, ScalarType::Float32, kMeta);
  const Tensor c = bmm(a, b);
  EXPECT_EQ(c.device(), kMeta);
  EXPECT_EQ(c.sizes(), DimVector({2, 3, 5}));
  EXPECT_EQ(c.data_ptr(), nullptr);
  EXPECT_EQ(mm(select(a, 0, 0), select(b, 0, 0)).sizes(), DimVector({3, 5}));
  EXPECT_EQ(
      matmul(empty({7, 1, 3, 4}, ScalarType::Float16, kMeta), empty({6, 4, 2}, ScalarType::Float16, kMeta)).sizes(),
      DimVector({7, 6, 3, 2}));
  EXPECT_EQ(addmm(empty({5}, ScalarType::Float32, kMeta), select(a, 0, 0), select(b, 0, 0)).sizes(), DimVector({3, 5}));
  EXPECT_EQ(dot(empty({3}, ScalarType::Int64, kMeta), empty({3}, ScalarType::Int64, kMeta)).dim(), 0);
  EXPECT_EQ(linear(empty({8, 4}, ScalarType::Float32, kMeta), empty({6, 4}, ScalarType::Float32, kMeta)).sizes(),
            DimVector({8, 6}));
  EXPECT_EQ(error_of([&] { mm(select(a, 0, 0), select(a, 0, 0)); }),
            "mm: mat1 and mat2 shapes cannot be multiplied (3x4 and 3x4)");
}

TEST(Errors, NameTheOperatorShapesAndDtypes) {
  EXPECT_EQ(error_of([] {
              mm(random({2, 3}), random({4, 5}));
            }),
            "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  EXPECT_EQ(error_of([] {
              mm(random({2, 3, 1}), random({4, 5}));
            }),
            "mm: self must be a matrix (2-D), got a 3-D tensor of shape [2, 3, 1]");
  EXPECT_EQ(error_of([] {
              mm(random({2, 3}), random({3, 5}, ScalarType::Float32));
            }),
            "mm: expected self and mat2 to have the same dtype, got float64 and float32");
  EXPECT_THROW(mm(random({2, 3}), random({3, 5}, ScalarType::Float32)), Error);
  EXPECT_EQ(error_of([] {
              mm(ones({2, 2}, ScalarType::Bool), ones({2, 2}, ScalarType::Bool));
            }),
            "mm: not supported for bool tensors (got shape [2, 2])");
  EXPECT_EQ(error_of([] {
              bmm(random({2, 2, 3}), random({3, 3, 5}));
            }),
            "bmm: batch1 and batch2 must have the same batch size (2x2x3 and 3x3x5)");
  EXPECT_EQ(error_of([] {
              bmm(random({2, 2, 3}), random({2, 4, 5}));
            }),
            "bmm: batch1 and batch2 shapes cannot be multiplied (2x2x3 and 2x4x5)");
  EXPECT_EQ(error_of([] {
              mm(random({2, 3}), empty({3, 2}, ScalarType::Float64, kMeta));
            }),
            "mm: expected self and mat2 on one device, got cpu and meta");
  EXPECT_EQ(error_of([] {
              matmul(random({2, 3}), random({3}, ScalarType::Int64));
            }),
            "matmul: expected self and other to have the same dtype, got float64 and int64");
}
