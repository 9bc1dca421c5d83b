// Random numbers on CUDA come from the CPU's generator: the same seed and offset give the same
// numbers on both devices, whatever the dtype, shape or layout, and each call advances the one
// offset whichever device it runs on.
#include <gtest/gtest.h>

#include "engine/core/generator.h"
#include "tests/cpp/cuda/cuda_test_util.h"

using namespace glassbox;
using namespace glassbox::cuda_testing;

TEST(CudaRandom, SameSeedSameNumbersAsTheCpu) {
  GB_REQUIRE_GPU();
  for (ScalarType t : kFloatTypes) {
    manual_seed(1234);
    const Tensor c = rand({1001}, t);  // an odd count: the last Philox block is partly used
    manual_seed(1234);
    EXPECT_TRUE(matches(rand({1001}, t, kCuda), c, 0)) << "rand " << to_string(t);
    manual_seed(99);
    const Tensor n = randn({7, 9}, t);
    manual_seed(99);
    EXPECT_TRUE(matches(randn({7, 9}, t, kCuda), n, -1, 1e-5)) << "randn " << to_string(t);
  }
  for (ScalarType t : all_types()) {
    const int64_t high = t == ScalarType::Bool ? 2 : 50;
    manual_seed(5);
    const Tensor c = randint(0, high, {333}, t);
    manual_seed(5);
    EXPECT_TRUE(matches(randint(0, high, {333}, t, kCuda), c, 0)) << "randint " << to_string(t);
    Tensor b = empty({500}, t), d = empty({500}, t, kCuda);
    manual_seed(7);
    b.bernoulli_(0.3);
    manual_seed(7);
    d.bernoulli_(0.3);
    EXPECT_TRUE(matches(d, b, 0)) << "bernoulli_ " << to_string(t);
  }
}

TEST(CudaRandom, NonContiguousTargetsAndTheSharedOffset) {
  GB_REQUIRE_GPU();
  Tensor c = empty({6, 5}).t(), d = empty({6, 5}, std::nullopt, kCuda).t();
  manual_seed(3);
  c.uniform_(-2, 3);
  manual_seed(3);
  d.uniform_(-2, 3);
  EXPECT_TRUE(matches(d, c, 0));
  // A call on CUDA uses up an offset as a CPU call does.
  manual_seed(8);
  rand({4}, std::nullopt, kCuda);
  const Tensor after_cuda = rand({4});
  manual_seed(8);
  rand({4});
  EXPECT_TRUE(matches(on_cuda(after_cuda), rand({4}), 0));
}
