// Reductions and softmax on CUDA against the CPU: every dim combination of a 3-D tensor, keepdim,
// dtype=, non-contiguous and empty inputs, rows long enough to be split across blocks, columns,
// integer and bool inputs, NaN; softmax/log_softmax along each dim, rows cached in shared memory
// or not, reduced-precision inputs, -inf rows, and their gradients.
#include <gtest/gtest.h>

#include <limits>

#include "tests/cpp/cuda/cuda_test_util.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using namespace glassbox::cuda_testing;
using glassbox::testing::error_of;

namespace {
const std::vector<std::vector<int64_t>> kDimSets = {{}, {0}, {1}, {2}, {-1}, {0, 2}, {1, 2}, {0, 1, 2}};

// Sums add in different orders on each device: allow for the rounding of n additions.
double sum_rtol(ScalarType t) { return t == ScalarType::Float32 ? 1e-4 : tolerance(t).rtol * 2; }
}  // namespace

TEST(CudaReductions, EveryDimSetOfA3dTensor) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    const Tensor a = random_cpu({7, 33, 5}, t);
    const Tensor d = on_cuda(a);
    for (const auto& dims : kDimSets) {
      for (bool keepdim : {false, true}) {
        const IntArrayRef ds(dims);
        const std::string what =
            std::string(to_string(t)) + " dims " + shape_to_string(dims) + (keepdim ? " keepdim" : "");
        EXPECT_TRUE(matches(sum(d, ds, keepdim), sum(a, ds, keepdim), sum_rtol(t), 1e-4)) << "sum " << what;
        EXPECT_TRUE(matches(amax(d, ds, keepdim), amax(a, ds, keepdim), 0)) << "amax " << what;
        EXPECT_TRUE(matches(amin(d, ds, keepdim), amin(a, ds, keepdim), 0)) << "amin " << what;
        if (is_floating_point(t)) {
          EXPECT_TRUE(matches(mean(d, ds, keepdim), mean(a, ds, keepdim), sum_rtol(t), 1e-4)) << "mean " << what;
        }
      }
    }
    EXPECT_TRUE(matches(sum(d), sum(a), sum_rtol(t), 1e-4)) << to_string(t);
    EXPECT_TRUE(matches(max(d), max(a), 0)) << to_string(t);
    EXPECT_TRUE(matches(min(d), min(a), 0)) << to_string(t);
  }
}

TEST(CudaReductions, LongRowsColumnsAndLayouts) {
  GB_REQUIRE_GPU();
  // {300, 2100} and {4096, 2048} over dim 0: many column blocks, the rows still cut into chunks (a
  // linear layer's bias gradient is the second).
  const std::vector<std::vector<int64_t>> shapes = {{3, 70001}, {2, 1 << 20}, {70001, 3},  {100000, 2},
                                                    {1 << 22},  {513, 517},   {300, 2100}, {4096, 2048}};
  for (const auto& shape : shapes) {
    const Tensor a = random_cpu(shape, ScalarType::Float32);
    const Tensor d = on_cuda(a);
    for (int64_t dim : {0, -1}) {
      const int64_t ds[] = {dim};
      EXPECT_TRUE(matches(sum(d, IntArrayRef(ds)), sum(a, IntArrayRef(ds)), 1e-4, 1e-3))
          << shape_to_string(shape) << " " << dim;
      EXPECT_TRUE(matches(amax(d, IntArrayRef(ds)), amax(a, IntArrayRef(ds)), 0)) << shape_to_string(shape);
    }
    EXPECT_TRUE(matches(sum(d), sum(a), 1e-4, 1e-2)) << shape_to_string(shape);
    // Non-contiguous: the transpose reduces through a permuted copy or in columns.
    if (shape.size() == 2) {
      const int64_t d0[] = {0};
      EXPECT_TRUE(matches(sum(d.t(), IntArrayRef(d0)), sum(a.t(), IntArrayRef(d0)), 1e-4, 1e-3))
          << shape_to_string(shape);
    }
  }
}

TEST(CudaReductions, DtypesEmptyInputsNaNAndOut) {
  GB_REQUIRE_GPU();
  const Tensor a = random_cpu({40, 50}, ScalarType::Float32);
  const Tensor d = on_cuda(a);
  const int64_t d1[] = {1};
  EXPECT_TRUE(matches(sum(d, ScalarType::Float64), sum(a, ScalarType::Float64), 1e-12, 1e-12));
  EXPECT_TRUE(matches(mean(d, IntArrayRef(d1), false, ScalarType::Float64),
                      mean(a, IntArrayRef(d1), false, ScalarType::Float64), 1e-12, 1e-12));
  EXPECT_TRUE(matches(sum(on_cuda(ones({5, 5}, ScalarType::Int32)), ScalarType::Float16),
                      sum(ones({5, 5}, ScalarType::Int32), ScalarType::Float16), 0));
  const Tensor e = empty({0, 3});
  EXPECT_TRUE(matches(sum(on_cuda(e)), sum(e), 0));
  const int64_t d0[] = {0};
  EXPECT_TRUE(matches(sum(on_cuda(e), IntArrayRef(d0)), sum(e, IntArrayRef(d0)), 0));
  EXPECT_TRUE(matches(mean(on_cuda(e), IntArrayRef(d0)), mean(e, IntArrayRef(d0))));  // NaN, as 0 / 0
  EXPECT_EQ(error_of([&] { amax(on_cuda(e), IntArrayRef(d0)); }), error_of([&] { amax(e, IntArrayRef(d0)); }));
  EXPECT_EQ(error_of([&] { mean(on_cuda(ones({2}, ScalarType::Int64))); }),
            error_of([&] { mean(ones({2}, ScalarType::Int64)); }));
  Tensor n = random_cpu({4, 6}, ScalarType::Float32);
  n.select(0, 2).select(0, 3).fill_(Scalar(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_TRUE(matches(amax(on_cuda(n), IntArrayRef(d1)), amax(n, IntArrayRef(d1)), 0));
  EXPECT_TRUE(matches(amin(on_cuda(n), IntArrayRef(d0)), amin(n, IntArrayRef(d0)), 0));
  Tensor out = empty({40}, ScalarType::Float32, kCuda);
  sum_out(out, d, IntArrayRef(d1));
  EXPECT_TRUE(matches(out, sum(a, IntArrayRef(d1)), 1e-5, 1e-5));
}

TEST(CudaSoftmax, EveryDimAndDtype) {
  GB_REQUIRE_GPU();
  for (ScalarType t : kFloatTypes) {
    const Tensor a = random_cpu({17, 33, 9}, t);
    const Tensor d = on_cuda(a);
    for (int64_t dim : {0, 1, 2, -1}) {
      EXPECT_TRUE(matches(softmax(d, dim), softmax(a, dim))) << to_string(t) << " dim " << dim;
      EXPECT_TRUE(matches(log_softmax(d, dim), log_softmax(a, dim))) << to_string(t) << " dim " << dim;
    }
    EXPECT_TRUE(matches(softmax(d.transpose(0, 2), 1), softmax(a.transpose(0, 2), 1))) << to_string(t);
  }
  const Tensor h = random_cpu({6, 10}, ScalarType::Float16);
  EXPECT_TRUE(matches(softmax(on_cuda(h), 1, ScalarType::Float32), softmax(h, 1, ScalarType::Float32)));
  const Tensor s = full({}, Scalar(3.0));
  EXPECT_TRUE(matches(log_softmax(on_cuda(s), 0), log_softmax(s, 0)));
  EXPECT_EQ(error_of([&] { softmax(on_cuda(ones({2}, ScalarType::Int32)), 0); }),
            error_of([&] { softmax(ones({2}, ScalarType::Int32), 0); }));
}

TEST(CudaSoftmax, ShortLongAndUncachedRows) {
  GB_REQUIRE_GPU();
  // 5: a warp per row, unvectorised; 8192: shared-memory cache, vectorised; 40000: too long to cache.
  for (int64_t n : {5, 64, 1000, 8192, 40000}) {
    for (ScalarType t : {ScalarType::Float32, ScalarType::BFloat16}) {
      const Tensor a = mul(random_cpu({9, n}, t), Scalar(4.0));
      const Tensor d = on_cuda(a);
      EXPECT_TRUE(matches(softmax(d, 1), softmax(a, 1))) << n << " " << to_string(t);
      EXPECT_TRUE(matches(log_softmax(d, 1), log_softmax(a, 1), -1, 1e-4)) << n << " " << to_string(t);
    }
  }
  Tensor inf = zeros({3, 4});
  inf.select(0, 1).fill_(Scalar(-std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(matches(softmax(on_cuda(inf), 1), softmax(inf, 1)));
  EXPECT_TRUE(matches(log_softmax(on_cuda(inf), 1), log_softmax(inf, 1)));
  const Tensor e = empty({0, 5});
  EXPECT_TRUE(matches(softmax(on_cuda(e), 1), softmax(e, 1)));
}

TEST(CudaSoftmax, Gradients) {
  GB_REQUIRE_GPU();
  for (ScalarType t : kFloatTypes) {
    for (int64_t dim : {0, 1}) {
      const Tensor x = random_cpu({12, 300}, t), g = random_cpu({12, 300}, t);
      const Tensor y = softmax(x, dim), ly = log_softmax(x, dim);
      EXPECT_TRUE(matches(_softmax_backward_data(on_cuda(g), on_cuda(y), dim, t), _softmax_backward_data(g, y, dim, t)))
          << to_string(t) << " " << dim;
      EXPECT_TRUE(matches(_log_softmax_backward_data(on_cuda(g), on_cuda(ly), dim, t),
                          _log_softmax_backward_data(g, ly, dim, t), -1, 1e-4))
          << to_string(t) << " " << dim;
    }
  }
}
