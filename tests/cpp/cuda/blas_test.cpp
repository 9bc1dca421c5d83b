// Matrix products on CUDA (cuBLAS) against the CPU: mm, bmm, addmm, dot and matmul over float32,
// float64, float16 and bfloat16; transposed and strided operands (read in place or copied),
// broadcast batches, empty dims, out=; the TF32 switch; and the integer dtypes cuBLAS does not take
// (glassbox's own kernel, wrapping around as the CPU does).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/cuda/matmul_settings.h"
#include "tests/cpp/cuda/cuda_test_util.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using namespace glassbox::cuda_testing;
using glassbox::testing::error_of;

namespace {
// Products sum k terms: compare relative to the size of the result, not element by element.
double product_rtol(ScalarType t) {
  switch (t) {
    case ScalarType::Float64: return 1e-10;
    case ScalarType::Float32: return 1e-4;
    case ScalarType::Float16: return 1e-2;
    default: return 5e-2;
  }
}
}  // namespace

TEST(CudaBlas, MmOverDtypesShapesAndLayouts) {
  GB_REQUIRE_GPU();
  const std::vector<std::array<int64_t, 3>> shapes = {{1, 1, 1}, {17, 33, 9}, {128, 64, 256}, {5, 300, 1}, {1, 7, 40}};
  for (ScalarType t : kFloatTypes) {
    for (const auto& [m, k, n] : shapes) {
      const Tensor a = random_cpu({m, k}, t), b = random_cpu({k, n}, t);
      const Tensor da = on_cuda(a), db = on_cuda(b);
      const std::string what =
          std::string(to_string(t)) + " " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
      EXPECT_TRUE(matches(mm(da, db), mm(a, b), product_rtol(t), product_rtol(t))) << what;
      // Transposed operands are read in place (cuBLAS transposes them).
      const Tensor at = on_cuda(a.t().contiguous()).t(), bt = on_cuda(b.t().contiguous()).t();
      EXPECT_TRUE(matches(mm(at, bt), mm(a, b), product_rtol(t), product_rtol(t))) << what << " transposed";
    }
  }
  // Strided in both dims: copied first.
  const Tensor big = random_cpu({20, 30}, ScalarType::Float32);
  const Tensor a = slice(slice(big, 0, 0, 20, 2), 1, 0, 30, 3), b = slice(slice(big.t(), 0, 0, 30, 3), 1, 0, 20, 2);
  const Tensor dbig = on_cuda(big);
  const Tensor da = slice(slice(dbig, 0, 0, 20, 2), 1, 0, 30, 3), db = slice(slice(dbig.t(), 0, 0, 30, 3), 1, 0, 20, 2);
  EXPECT_TRUE(matches(mm(da, db), mm(a, b), 1e-4, 1e-4));
  // Empty dims: k == 0 gives zeros, m == 0 an empty result.
  EXPECT_TRUE(matches(mm(on_cuda(empty({3, 0})), on_cuda(empty({0, 4}))), mm(empty({3, 0}), empty({0, 4})), 0));
  EXPECT_EQ(mm(on_cuda(empty({0, 3})), on_cuda(ones({3, 4}))).sizes(), DimVector({0, 4}));
}

TEST(CudaBlas, BmmAddmmDotMatmulAndOut) {
  GB_REQUIRE_GPU();
  for (ScalarType t : {ScalarType::Float32, ScalarType::Float64, ScalarType::BFloat16}) {
    const double tol = product_rtol(t);
    const Tensor a = random_cpu({4, 9, 13}, t), b = random_cpu({4, 13, 6}, t);
    EXPECT_TRUE(matches(bmm(on_cuda(a), on_cuda(b)), bmm(a, b), tol, tol)) << to_string(t);
    EXPECT_TRUE(matches(bmm(on_cuda(b).transpose(1, 2), on_cuda(a).transpose(1, 2)),
                        bmm(b.transpose(1, 2), a.transpose(1, 2)), tol, tol))
        << to_string(t);
    // A batch broadcast from one matrix (batch stride 0) through matmul.
    const Tensor w = random_cpu({13, 5}, t);
    EXPECT_TRUE(matches(matmul(on_cuda(a), on_cuda(w)), matmul(a, w), tol, tol)) << to_string(t);
    const Tensor w3 = random_cpu({1, 13, 5}, t);
    EXPECT_TRUE(matches(matmul(on_cuda(a), on_cuda(w3)), matmul(a, w3), tol, tol)) << to_string(t);
    const Tensor bias = random_cpu({6}, t), m1 = random_cpu({8, 13}, t), m2 = random_cpu({13, 6}, t);
    EXPECT_TRUE(matches(addmm(on_cuda(bias), on_cuda(m1), on_cuda(m2), Scalar(0.5), Scalar(2.0)),
                        addmm(bias, m1, m2, Scalar(0.5), Scalar(2.0)), tol, tol))
        << to_string(t);
    const Tensor v = random_cpu({50}, t), u = random_cpu({100}, t);
    EXPECT_TRUE(matches(dot(on_cuda(v), slice(on_cuda(u), 0, 0, 100, 2)), dot(v, slice(u, 0, 0, 100, 2)), tol, tol));
    EXPECT_TRUE(matches(matmul(on_cuda(v), on_cuda(v)), matmul(v, v), tol, tol));  // 1-D @ 1-D: dot
  }
  // beta == 0 ignores self, NaN included.
  const Tensor nan_bias = full({3, 3}, Scalar(std::nan("")));
  const Tensor m = random_cpu({3, 3}, ScalarType::Float32);
  EXPECT_TRUE(matches(addmm(on_cuda(nan_bias), on_cuda(m), on_cuda(m), Scalar(0)), addmm(nan_bias, m, m, Scalar(0)),
                      1e-5, 1e-5));
  // out= through a non-contiguous destination.
  Tensor out = empty({3, 3}, ScalarType::Float32, kCuda).t();
  mm_out(out, on_cuda(m), on_cuda(m));
  EXPECT_TRUE(matches(out, mm(m, m), 1e-5, 1e-5));
}

// addmm with beta = alpha = 1 and a 1-D bias (nn.Linear's forward) adds the bias in cuBLASLt's
// epilogue; a strided bias, other factors and an empty k take the copy-then-accumulate path.
TEST(CudaBlas, AddmmWithABiasVectorMatchesTheCpu) {
  GB_REQUIRE_GPU();
  const std::vector<std::array<int64_t, 3>> shapes = {{1, 1, 1}, {8, 13, 6}, {4096 / 16, 64, 192}, {33, 7, 5}};
  for (ScalarType t : {ScalarType::Float32, ScalarType::Float16, ScalarType::BFloat16}) {
    const double tol = product_rtol(t);
    for (const auto& [m, k, n] : shapes) {
      const std::string what =
          std::string(to_string(t)) + " " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
      const Tensor bias = random_cpu({n}, t), x = random_cpu({m, k}, t), w = random_cpu({n, k}, t);
      const Tensor want = addmm(bias, x, w.t());
      EXPECT_TRUE(matches(addmm(on_cuda(bias), on_cuda(x), on_cuda(w).t()), want, tol, tol)) << what;
      EXPECT_TRUE(matches(addmm(on_cuda(bias), on_cuda(x), on_cuda(w.t().contiguous())), want, tol, tol)) << what;
      EXPECT_TRUE(matches(addmm(on_cuda(bias), on_cuda(x.t().contiguous()).t(), on_cuda(w).t()), want, tol, tol))
          << what << " transposed mat1";
    }
  }
  const Tensor wide = random_cpu({12}, ScalarType::Float32), x = random_cpu({5, 4}, ScalarType::Float32);
  const Tensor w = random_cpu({4, 6}, ScalarType::Float32);
  const Tensor strided = slice(wide, 0, 0, 12, 2);
  EXPECT_TRUE(
      matches(addmm(slice(on_cuda(wide), 0, 0, 12, 2), on_cuda(x), on_cuda(w)), addmm(strided, x, w), 1e-5, 1e-5));
  EXPECT_TRUE(matches(addmm(on_cuda(strided.contiguous()), on_cuda(x), on_cuda(w), Scalar(1.0), Scalar(-1.0)),
                      addmm(strided, x, w, Scalar(1.0), Scalar(-1.0)), 1e-5, 1e-5));
  EXPECT_TRUE(matches(addmm(on_cuda(strided.contiguous()), on_cuda(empty({5, 0})), on_cuda(empty({0, 6}))),
                      addmm(strided.contiguous(), empty({5, 0}), empty({0, 6})), 0));
}

TEST(CudaBlas, Tf32IsOptIn) {
  GB_REQUIRE_GPU();
  ASSERT_FALSE(cuda::matmul_allow_tf32());
  const Tensor a = random_cpu({512, 512}, ScalarType::Float32), b = random_cpu({512, 512}, ScalarType::Float32);
  const Tensor exact = mm(a.to(ScalarType::Float64), b.to(ScalarType::Float64));
  auto max_error = [&](const Tensor& r) {
    double worst = 0;
    const auto x = values(r), y = values(exact);
    for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(x[i] - y[i]));
    return worst;
  };
  const double fp32 = max_error(mm(on_cuda(a), on_cuda(b)));
  cuda::set_matmul_allow_tf32(true);
  const double tf32 = max_error(mm(on_cuda(a), on_cuda(b)));
  cuda::set_matmul_allow_tf32(false);
  EXPECT_LT(fp32, 1e-3);
  EXPECT_LT(tf32, 0.5);        // 10-bit mantissas over k = 512 terms of size ~1
  EXPECT_GT(tf32, 10 * fp32);  // and it did round: the tensor cores were used
}

TEST(CudaBlas, IntegerProductsMatchTheCpuAndWrapAround) {
  GB_REQUIRE_GPU();
  const std::vector<std::array<int64_t, 3>> shapes = {{1, 1, 1}, {17, 33, 9}, {40, 70, 20}, {3, 0, 4}};
  for (ScalarType t : kIntTypes) {
    for (const auto& [m, k, n] : shapes) {
      const Tensor a = random_cpu({m, k}, t), b = random_cpu({k, n}, t);
      const std::string what =
          std::string(to_string(t)) + " " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
      // Values in [0, 20) over up to 70 terms overflow int8 and uint8: both sides wrap alike.
      EXPECT_TRUE(matches(mm(on_cuda(a), on_cuda(b)), mm(a, b), 0)) << what;
      EXPECT_TRUE(matches(mm(on_cuda(b).t(), on_cuda(a).t()), mm(b.t(), a.t()), 0)) << what << " transposed";
    }
    const Tensor a = random_cpu({3, 5, 7}, t), b = random_cpu({3, 7, 4}, t), bias = random_cpu({4}, t);
    EXPECT_TRUE(matches(bmm(on_cuda(a), on_cuda(b)), bmm(a, b), 0)) << to_string(t);
    EXPECT_TRUE(matches(addmm(on_cuda(bias), on_cuda(select(a, 0, 0)), on_cuda(select(b, 0, 1)), Scalar(int64_t{3}),
                              Scalar(int64_t{-2})),
                        addmm(bias, select(a, 0, 0), select(b, 0, 1), Scalar(int64_t{3}), Scalar(int64_t{-2})), 0))
        << to_string(t);
    const Tensor v = random_cpu({50}, t);
    EXPECT_TRUE(matches(dot(on_cuda(v), on_cuda(v)), dot(v, v), 0)) << to_string(t);
  }
  // Bool is refused with the CPU's words; so are integer alpha/beta given as floats.
  const Tensor flags = on_cuda(ones({2, 2}, ScalarType::Bool));
  EXPECT_EQ(error_of([&] { mm(flags, flags); }), error_of([&] {
              mm(ones({2, 2}, ScalarType::Bool), ones({2, 2}, ScalarType::Bool));
            }));
  const Tensor i = on_cuda(ones({2, 2}, ScalarType::Int64));
  EXPECT_EQ(error_of([&] { addmm(i, i, i, Scalar(0.5)); }), error_of([&] {
              const Tensor h = ones({2, 2}, ScalarType::Int64);
              addmm(h, h, h, Scalar(0.5));
            }));
  EXPECT_EQ(error_of([&] {
              mm(on_cuda(ones({2, 3})), on_cuda(ones({2, 3})));
            }),
            error_of([&] {
              mm(ones({2, 3}), ones({2, 3}));
            }));
}
