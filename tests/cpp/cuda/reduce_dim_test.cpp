// The CUDA reductions along dims, scans and sorts against the CPU on the same inputs: prod,
// max.dim/min.dim/argmax/argmin (ties and NaN), var/std (corrections), logsumexp, cumsum, sort
// and topk; every dim, keepdim, every dtype, non-contiguous and empty inputs, out= variants,
// the gradients of var/std/logsumexp, and the errors the CPU raises.
#include <gtest/gtest.h>

#include <limits>

#include "tests/cpp/cuda/cuda_test_util.h"
#include "tests/cpp/ops/error_text.h"
#include "tests/cpp/ops/reduction_test_util.h"

using namespace glassbox;
using namespace glassbox::cuda_testing;
using glassbox::testing::error_of;
using glassbox::testing::from_values;

namespace {
const int64_t kDims[] = {0, 1, 2, -1};

double acc_rtol(ScalarType t) { return t == ScalarType::Float32 ? 1e-4 : tolerance(t).rtol * 2; }

// The same error on both devices, and an error at all.
template <class F>
void expect_same_error(F f, const Tensor& cpu, const Tensor& cuda) {
  const std::string expected = error_of([&] { f(cpu); });
  EXPECT_NE(expected, "(no error)");
  EXPECT_EQ(error_of([&] { f(cuda); }), expected);
}

Tensor with_nan(const Tensor& t, int64_t at) {
  Tensor c = t.contiguous().clone();
  c.reshape({-1}).narrow(0, at, 1).fill_(Scalar(std::numeric_limits<double>::quiet_NaN()));
  return c;
}
}  // namespace

TEST(CudaReduceDim, ProdEveryDimAndDtype) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    // Values near 1 keep float products of many factors in range.
    const Tensor a = is_floating_point(t)
                         ? add(mul(random_cpu({4, 6, 3}, ScalarType::Float64), Scalar(0.1)), Scalar(1.0)).to(t)
                         : random_cpu({4, 6, 3}, t);
    const Tensor d = on_cuda(a);
    for (int64_t dim : kDims) {
      for (bool keepdim : {false, true}) {
        EXPECT_TRUE(matches(prod(d, dim, keepdim), prod(a, dim, keepdim), acc_rtol(t), 1e-5))
            << to_string(t) << " dim " << dim;
      }
    }
    EXPECT_TRUE(matches(prod(d), prod(a), acc_rtol(t), 1e-5)) << to_string(t);
    EXPECT_TRUE(matches(prod(d, ScalarType::Float64), prod(a, ScalarType::Float64), 1e-10)) << to_string(t);
    EXPECT_TRUE(matches(prod(d.transpose(0, 2), 1), prod(a.transpose(0, 2), 1), acc_rtol(t), 1e-5)) << to_string(t);
  }
  // An empty product is 1.
  const Tensor e = random_cpu({3, 0}, ScalarType::Float32);
  EXPECT_TRUE(matches(prod(on_cuda(e), 1), prod(e, 1)));
  EXPECT_TRUE(matches(prod(on_cuda(e)), prod(e)));
  EXPECT_TRUE(matches(prod(on_cuda(e), 0), prod(e, 0)));
}

TEST(CudaReduceDim, MaxMinArgmaxArgminWithTiesAndNan) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    // Integers in [0, 20) over rows of 40 tie often: the first index must win.
    for (const Tensor& a : {random_cpu({6, 40, 5}, t), random_cpu({3, 700, 2}, t)}) {
      const Tensor d = on_cuda(a);
      for (int64_t dim : kDims) {
        for (bool keepdim : {false, true}) {
          const std::string what =
              std::string(to_string(t)) + " " + shape_to_string(a.sizes()) + " dim " + std::to_string(dim);
          auto [gv, gi] = max(d, dim, keepdim);
          auto [cv, ci] = max(a, dim, keepdim);
          EXPECT_TRUE(matches(gv, cv, 0)) << "max " << what;
          EXPECT_TRUE(matches(gi, ci, 0)) << "max indices " << what;
          auto [gv2, gi2] = min(d, dim, keepdim);
          auto [cv2, ci2] = min(a, dim, keepdim);
          EXPECT_TRUE(matches(gv2, cv2, 0)) << "min " << what;
          EXPECT_TRUE(matches(gi2, ci2, 0)) << "min indices " << what;
          EXPECT_TRUE(matches(argmax(d, dim, keepdim), argmax(a, dim, keepdim), 0)) << "argmax " << what;
          EXPECT_TRUE(matches(argmin(d, dim, keepdim), argmin(a, dim, keepdim), 0)) << "argmin " << what;
        }
      }
      EXPECT_TRUE(matches(argmax(d), argmax(a), 0)) << to_string(t);
      EXPECT_TRUE(matches(argmin(d), argmin(a), 0)) << to_string(t);
      EXPECT_TRUE(matches(argmax(d, std::nullopt, true), argmax(a, std::nullopt, true), 0)) << to_string(t);
      EXPECT_TRUE(matches(argmin(d.transpose(0, 1), 0), argmin(a.transpose(0, 1), 0), 0)) << to_string(t);
    }
  }
  // NaN counts as the extreme, its first index is returned.
  const Tensor n = with_nan(with_nan(random_cpu({5, 9}, ScalarType::Float32), 12), 15);
  for (int64_t dim : {0, 1}) {
    EXPECT_TRUE(matches(std::get<1>(max(on_cuda(n), dim)), std::get<1>(max(n, dim)), 0));
    EXPECT_TRUE(matches(std::get<0>(min(on_cuda(n), dim)), std::get<0>(min(n, dim)), 0));
    EXPECT_TRUE(matches(argmin(on_cuda(n), dim), argmin(n, dim), 0));
  }
  EXPECT_TRUE(matches(argmax(on_cuda(n)), argmax(n), 0));
  // A 0-d tensor.
  const Tensor s = random_cpu({}, ScalarType::Float32);
  EXPECT_TRUE(matches(std::get<1>(max(on_cuda(s), 0)), std::get<1>(max(s, 0)), 0));
  EXPECT_TRUE(matches(argmax(on_cuda(s)), argmax(s), 0));
}

TEST(CudaReduceDim, MaxMinOfEmptyInputs) {
  GB_REQUIRE_GPU();
  const Tensor e = random_cpu({0, 4}, ScalarType::Float32);
  const Tensor de = on_cuda(e);
  // Reducing a non-empty dim of an empty tensor gives empty results; an empty dim raises.
  EXPECT_TRUE(matches(std::get<0>(max(de, 1)), std::get<0>(max(e, 1))));
  EXPECT_TRUE(matches(argmin(de, 1), argmin(e, 1)));
  expect_same_error([](const Tensor& x) { max(x, 0); }, e, de);
  expect_same_error([](const Tensor& x) { argmax(x); }, e, de);
  expect_same_error([](const Tensor& x) { argmin(x, 3); }, e, de);
}

TEST(CudaReduceDim, VarStdEveryDimSetAndCorrection) {
  GB_REQUIRE_GPU();
  const std::vector<std::vector<int64_t>> dim_sets = {{0}, {1}, {2}, {-1}, {0, 2}, {1, 2}, {0, 1, 2}};
  for (ScalarType t : kFloatTypes) {
    // An offset mean: a one-pass formula would lose the variance to cancellation.
    const Tensor a = add(random_cpu({5, 33, 4}, ScalarType::Float64), Scalar(100.0)).to(t);
    const Tensor d = on_cuda(a);
    for (const auto& dims : dim_sets) {
      const IntArrayRef ds(dims);
      for (bool keepdim : {false, true}) {
        for (bool unbiased : {false, true}) {
          const std::string what = std::string(to_string(t)) + " dims " + shape_to_string(dims);
          EXPECT_TRUE(matches(var(d, ds, unbiased, keepdim), var(a, ds, unbiased, keepdim), acc_rtol(t), 1e-4)) << what;
          EXPECT_TRUE(matches(glassbox::std(d, ds, unbiased, keepdim), glassbox::std(a, ds, unbiased, keepdim),
                              acc_rtol(t), 1e-4))
              << what;
        }
      }
      for (double c : {0.0, 2.0, 2.5}) {
        EXPECT_TRUE(matches(var_correction(d, ds, Scalar(c)), var_correction(a, ds, Scalar(c)), acc_rtol(t), 1e-4))
            << to_string(t) << " " << c;
        EXPECT_TRUE(
            matches(std_correction(d, ds, Scalar(c), true), std_correction(a, ds, Scalar(c), true), acc_rtol(t), 1e-4))
            << c;
      }
    }
    EXPECT_TRUE(matches(var(d), var(a), acc_rtol(t), 1e-4)) << to_string(t);
    EXPECT_TRUE(matches(glassbox::std(d, false), glassbox::std(a, false), acc_rtol(t), 1e-4)) << to_string(t);
    EXPECT_TRUE(
        matches(var(d.transpose(0, 1), IntArrayRef({1})), var(a.transpose(0, 1), IntArrayRef({1})), acc_rtol(t), 1e-4));
  }
  // One element (unbiased: 0 / 0) and empty reductions give NaN, as on the CPU.
  const Tensor one = random_cpu({3, 1}, ScalarType::Float32), empty = random_cpu({3, 0}, ScalarType::Float32);
  EXPECT_TRUE(matches(var(on_cuda(one), IntArrayRef({1})), var(one, IntArrayRef({1}))));
  EXPECT_TRUE(matches(glassbox::std(on_cuda(empty), IntArrayRef({1})), glassbox::std(empty, IntArrayRef({1}))));
  EXPECT_TRUE(matches(var(on_cuda(empty), IntArrayRef({0})), var(empty, IntArrayRef({0}))));
  const Tensor ints = random_cpu({3, 4}, ScalarType::Int64);
  expect_same_error([](const Tensor& x) { var(x); }, ints, on_cuda(ints));
  expect_same_error([](const Tensor& x) { glassbox::std(x, IntArrayRef({2})); }, ints.to(ScalarType::Float32),
                    on_cuda(ints.to(ScalarType::Float32)));
}

TEST(CudaReduceDim, LogsumexpAndItsOutForm) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    const Tensor a = random_cpu({4, 50, 3}, t);
    const Tensor d = on_cuda(a);
    for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{0}, {1}, {-1}, {0, 2}, {0, 1, 2}}) {
      for (bool keepdim : {false, true}) {
        const Tensor expected = logsumexp(a, IntArrayRef(dims), keepdim);
        EXPECT_TRUE(matches(logsumexp(d, IntArrayRef(dims), keepdim), expected, acc_rtol(expected.dtype()), 1e-4))
            << to_string(t) << " " << shape_to_string(dims);
        Tensor out = empty(expected.sizes(), expected.dtype(), kCuda);
        logsumexp_out(out, d, IntArrayRef(dims), keepdim);
        EXPECT_TRUE(matches(out, expected, acc_rtol(expected.dtype()), 1e-4)) << to_string(t);
      }
    }
  }
  // Large values do not overflow; -inf rows give -inf; empty reductions -inf.
  Tensor big = mul(random_cpu({3, 8}, ScalarType::Float32), Scalar(1000.0));
  big.narrow(0, 1, 1).fill_(Scalar(-std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(matches(logsumexp(on_cuda(big), IntArrayRef({1})), logsumexp(big, IntArrayRef({1})), 1e-5));
  const Tensor empty_rows = random_cpu({2, 0}, ScalarType::Float32);
  EXPECT_TRUE(matches(logsumexp(on_cuda(empty_rows), IntArrayRef({1})), logsumexp(empty_rows, IntArrayRef({1}))));
  const Tensor a = random_cpu({3, 4}, ScalarType::Float32);
  // An out= of another shape is resized (with a warning) on both devices, as PyTorch does.
  Tensor wrong = empty({5}, ScalarType::Float32, kCuda);
  Tensor wrong_cpu = empty({5}, ScalarType::Float32, kCpu);
  logsumexp_out(wrong_cpu, a, IntArrayRef({1}));
  logsumexp_out(wrong, on_cuda(a), IntArrayRef({1}));
  EXPECT_TRUE(matches(wrong, wrong_cpu, 1e-5));
  EXPECT_EQ(wrong.sizes(), logsumexp(a, IntArrayRef({1})).sizes());
  expect_same_error([](const Tensor& x) { logsumexp(x, IntArrayRef({2})); }, a, on_cuda(a));
}

TEST(CudaReduceDim, CumsumEveryDimDtypeAndLayout) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    for (const Tensor& a : {random_cpu({5, 7, 3}, t), random_cpu({2, 3000, 2}, t)}) {
      const Tensor d = on_cuda(a);
      for (int64_t dim : kDims) {
        const Tensor expected = cumsum(a, dim);
        EXPECT_TRUE(matches(cumsum(d, dim), expected, acc_rtol(expected.dtype()), 1e-3))
            << to_string(t) << " " << shape_to_string(a.sizes()) << " dim " << dim;
        Tensor out = empty(expected.sizes(), expected.dtype(), kCuda);
        cumsum_out(out, d, dim);
        EXPECT_TRUE(matches(out, expected, acc_rtol(expected.dtype()), 1e-3)) << to_string(t);
      }
      EXPECT_TRUE(matches(cumsum(d, 1, ScalarType::Float64), cumsum(a, 1, ScalarType::Float64), 1e-10, 1e-9))
          << to_string(t);
      EXPECT_TRUE(
          matches(cumsum(d.transpose(0, 1), 0), cumsum(a.transpose(0, 1), 0), acc_rtol(cumsum(a, 0).dtype()), 1e-3));
    }
  }
  const Tensor i8 = random_cpu({4, 9}, ScalarType::Int8);
  EXPECT_TRUE(matches(cumsum(on_cuda(i8), 1, ScalarType::Int16), cumsum(i8, 1, ScalarType::Int16), 0));
  const Tensor e = random_cpu({0, 3}, ScalarType::Float32), s = random_cpu({}, ScalarType::Float32);
  EXPECT_TRUE(matches(cumsum(on_cuda(e), 0), cumsum(e, 0)));
  EXPECT_TRUE(matches(cumsum(on_cuda(s), 0), cumsum(s, 0)));
  expect_same_error([](const Tensor& x) { cumsum(x, 3); }, e, on_cuda(e));
  // An out= of another shape is resized (with a warning) on both devices, as PyTorch does.
  Tensor wrong = empty({5}, ScalarType::Float32, kCuda), wrong_cpu = empty({5}, ScalarType::Float32, kCpu);
  const Tensor r = random_cpu({3, 4}, ScalarType::Float32);
  cumsum_out(wrong_cpu, r, 1);
  cumsum_out(wrong, on_cuda(r), 1);
  EXPECT_EQ(wrong.sizes(), r.sizes());
  EXPECT_TRUE(matches(wrong, wrong_cpu, 1e-5));
}

TEST(CudaSort, StableAscendingAndDescendingEveryDimAndDtype) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    for (const Tensor& a : {random_cpu({4, 30, 3}, t), random_cpu({2, 5000}, t)}) {
      const Tensor d = on_cuda(a);
      for (int64_t dim = -1; dim < a.dim(); ++dim) {
        for (bool descending : {false, true}) {
          auto [gv, gi] = sort(d, dim, descending);
          auto [cv, ci] = sort(a, dim, descending);
          const std::string what =
              std::string(to_string(t)) + " " + shape_to_string(a.sizes()) + " dim " + std::to_string(dim);
          EXPECT_TRUE(matches(gv, cv, 0)) << what;
          EXPECT_TRUE(matches(gi, ci, 0)) << what;  // ties keep their order
        }
      }
    }
  }
  // NaN above every number, -0.0 equal to 0.0, infinities in place.
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const Tensor special = from_values({1.0, nan, -0.0, 0.0, -inf, inf, nan, 0.0, -2.0, -0.0}, {10}, ScalarType::Float64);
  for (ScalarType t : kFloatTypes) {
    const Tensor a = special.to(t);
    for (bool descending : {false, true}) {
      auto [gv, gi] = sort(on_cuda(a), 0, descending);
      auto [cv, ci] = sort(a, 0, descending);
      EXPECT_TRUE(matches(gv, cv, 0)) << to_string(t) << descending;
      EXPECT_TRUE(matches(gi, ci, 0)) << to_string(t) << descending;
    }
  }
  const Tensor nc = random_cpu({6, 8}, ScalarType::Float32).transpose(0, 1);
  EXPECT_TRUE(matches(std::get<1>(sort(on_cuda(nc), 1)), std::get<1>(sort(nc, 1)), 0));
  for (const Tensor& e : {random_cpu({0, 4}, ScalarType::Float32), random_cpu({}, ScalarType::Float32)}) {
    EXPECT_TRUE(matches(std::get<0>(sort(on_cuda(e), 0)), std::get<0>(sort(e, 0)), 0));
    EXPECT_TRUE(matches(std::get<1>(sort(on_cuda(e), -1)), std::get<1>(sort(e, -1)), 0));
  }
  const Tensor a = random_cpu({3, 4}, ScalarType::Float32);
  expect_same_error([](const Tensor& x) { sort(x, 2); }, a, on_cuda(a));
}

TEST(CudaSort, TopkLargestSmallestAndEdges) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    const Tensor a = random_cpu({5, 40, 3}, t);
    const Tensor d = on_cuda(a);
    for (int64_t dim : kDims) {
      for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{3}, a.sizes()[dim < 0 ? 2 : dim]}) {
        for (bool largest : {true, false}) {
          auto [gv, gi] = topk(d, k, dim, largest);
          auto [cv, ci] = topk(a, k, dim, largest);
          const std::string what =
              std::string(to_string(t)) + " dim " + std::to_string(dim) + " k " + std::to_string(k);
          EXPECT_TRUE(matches(gv, cv, 0)) << what;
          EXPECT_TRUE(matches(gi, ci, 0)) << what;
        }
      }
    }
  }
  const Tensor n = with_nan(random_cpu({4, 10}, ScalarType::Float32), 7);
  EXPECT_TRUE(matches(std::get<1>(topk(on_cuda(n), 3)), std::get<1>(topk(n, 3)), 0));
  EXPECT_TRUE(matches(std::get<1>(topk(on_cuda(n), 3, 0, false)), std::get<1>(topk(n, 3, 0, false)), 0));
  const Tensor a = random_cpu({3, 4}, ScalarType::Float32);
  expect_same_error([](const Tensor& x) { topk(x, 5); }, a, on_cuda(a));
  expect_same_error([](const Tensor& x) { topk(x, -1); }, a, on_cuda(a));
  expect_same_error([](const Tensor& x) { topk(x, 1, 2); }, a, on_cuda(a));
}

TEST(CudaReduceDim, GradientsOfVarStdLogsumexpMatchTheCpu) {
  GB_REQUIRE_GPU();
  const Tensor init = random_cpu({6, 9}, ScalarType::Float64);
  auto grads = [&](const Device& dev, int which) {
    Tensor x = init.to(dev).detach();
    x.requires_grad_(true);
    const int64_t d1[] = {1};
    Tensor y = which == 0   ? var(x, IntArrayRef(d1), true, false)
               : which == 1 ? std_correction(x, IntArrayRef(d1), Scalar(0.0), true)
               : which == 2 ? logsumexp(x, IntArrayRef(d1))
                            : glassbox::std(x, true);
    sum(mul(y, y)).backward();
    return x.grad();
  };
  for (int which = 0; which < 4; ++which)
    EXPECT_TRUE(matches(grads(kCuda, which), grads(kCpu, which), 1e-10, 1e-12)) << which;
}
