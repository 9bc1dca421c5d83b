// copy_ with CUDA on either side: every dtype there and back, every dtype pair converted on the
// device, non-contiguous and broadcast sources and destinations, empty tensors, and to()/clone().
#include <gtest/gtest.h>

#include "tests/cpp/cuda/cuda_test_util.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using namespace glassbox::cuda_testing;
using glassbox::testing::error_of;

TEST(CudaCopy, EveryDtypeThereAndBack) {
  GB_REQUIRE_GPU();
  for (ScalarType t : all_types()) {
    const Tensor a = random_cpu({3, 5, 7}, t);
    const Tensor d = on_cuda(a);
    ASSERT_EQ(d.device(), kCuda);
    ASSERT_EQ(d.dtype(), t);
    const Tensor back = d.to(kCpu);
    EXPECT_EQ(back.device(), kCpu);
    EXPECT_EQ(values(back), values(a)) << to_string(t);
  }
}

TEST(CudaCopy, ConvertsEveryDtypePairAsTheCpuDoes) {
  GB_REQUIRE_GPU();
  // Non-negative values with fractions: every conversion is defined, to uint8 and bool included.
  const Tensor base = mul(rand({4, 9}, ScalarType::Float64), Scalar(100.0));
  for (ScalarType from : all_types()) {
    const Tensor src = base.to(from);
    const Tensor src_cuda = on_cuda(src);
    for (ScalarType to : all_types()) {
      EXPECT_TRUE(matches(src_cuda.to(to), src.to(to), 0)) << to_string(from) << " -> " << to_string(to);
      // Into a strided destination too (the converting kernel with strides).
      Tensor dst = empty({9, 4}, to, kCuda).t();
      copy_(dst, src_cuda);
      EXPECT_TRUE(matches(dst, src.to(to), 0)) << to_string(from) << " -> strided " << to_string(to);
    }
  }
}

TEST(CudaCopy, NonContiguousSourcesAndDestinations) {
  GB_REQUIRE_GPU();
  const Tensor a = random_cpu({6, 8}, ScalarType::Float32);
  const Tensor d = on_cuda(a);
  // Device to device: transposed, sliced with a step, both.
  EXPECT_TRUE(matches(d.t().contiguous(), a.t().contiguous(), 0));
  EXPECT_TRUE(matches(slice(d, 1, 1, 7, 3).contiguous(), slice(a, 1, 1, 7, 3).contiguous(), 0));
  // Host to device and back with non-contiguous ends.
  EXPECT_TRUE(matches(a.t().to(kCuda), a.t(), 0));
  EXPECT_EQ(values(d.t().to(kCpu)), values(a.t()));
  Tensor host_dst = zeros({8, 6}).t();
  copy_(host_dst, slice(d, 0, 0, 6));
  EXPECT_EQ(values(host_dst), values(a));
  Tensor dev_dst = zeros({8, 6}, std::nullopt, kCuda).t();
  copy_(dev_dst, a);
  EXPECT_TRUE(matches(dev_dst, a, 0));
  // A float16 destination from a transposed float32 host source: converted on the host side.
  EXPECT_TRUE(matches(a.t().to(kCuda, ScalarType::Float16), a.t().to(ScalarType::Float16), 0));
}

TEST(CudaCopy, BroadcastSources) {
  GB_REQUIRE_GPU();
  const Tensor row = random_cpu({5}, ScalarType::Float64);
  Tensor d = empty({4, 5}, ScalarType::Float64, kCuda);
  copy_(d, row);  // host row into every device row
  EXPECT_TRUE(matches(d, row.expand({4, 5}).contiguous(), 0));
  Tensor d2 = empty({4, 5}, ScalarType::Float32, kCuda);
  copy_(d2, on_cuda(row).unsqueeze(1).t());  // device [1, 5] broadcast and converted
  EXPECT_TRUE(matches(d2, row.expand({4, 5}).to(ScalarType::Float32), 0));
  Tensor h = empty({3, 5}, ScalarType::Float64);
  copy_(h, on_cuda(row));  // device row into every host row
  EXPECT_EQ(values(h), values(row.expand({3, 5})));
  const std::string e = error_of([&] { copy_(d, random_cpu({3}, ScalarType::Float64)); });
  EXPECT_TRUE(e.find("cannot be broadcast") != std::string::npos) << e;
}

TEST(CudaCopy, EmptyAndZeroDimTensors) {
  GB_REQUIRE_GPU();
  const Tensor e = on_cuda(empty({0, 3}));
  EXPECT_EQ(e.sizes(), DimVector({0, 3}));
  EXPECT_EQ(e.to(kCpu).numel(), 0);
  const Tensor s = on_cuda(full({}, Scalar(2.5)));
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(values(s), (std::vector<double>{2.5}));
}

TEST(CudaCopy, FactoriesToAndClone) {
  GB_REQUIRE_GPU();
  EXPECT_TRUE(matches(zeros({2, 3}, ScalarType::Int32, kCuda), zeros({2, 3}, ScalarType::Int32), 0));
  EXPECT_TRUE(matches(ones({5}, ScalarType::BFloat16, kCuda), ones({5}, ScalarType::BFloat16), 0));
  EXPECT_TRUE(matches(full({2, 2}, Scalar(-0.0), std::nullopt, kCuda), full({2, 2}, Scalar(-0.0)), 0));
  EXPECT_TRUE(matches(full({3}, Scalar(true), std::nullopt, kCuda), full({3}, Scalar(true)), 0));
  Tensor strided = empty_strided({2, 3}, {1, 2}, ScalarType::Float32, kCuda);
  EXPECT_EQ(strided.strides(), DimVector({1, 2}));
  strided.fill_(Scalar(7));
  EXPECT_EQ(values(strided), (std::vector<double>(6, 7.0)));
  const Tensor a = random_cpu({4, 4}, ScalarType::Float32);
  const Tensor d = on_cuda(a);
  EXPECT_TRUE(d.to(kCuda).is_same(d));  // already there: no copy
  const Tensor c = clone(d);
  EXPECT_NE(c.data_ptr(), d.data_ptr());
  EXPECT_TRUE(matches(c, a, 0));
  EXPECT_TRUE(matches(d.to(ScalarType::Float64), a.to(ScalarType::Float64), 0));
}
