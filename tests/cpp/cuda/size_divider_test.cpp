// SizeDivider, the strided kernels' division by a loop size: against `/` on the host, for every
// divisor up to 4096, powers of two and their neighbours up to 2^31, and numerators at the edges of
// each quotient and across the whole range the kernels use (below 2^31). Needs no GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "engine/cuda/size_divider.h"

using glassbox::cuda::SizeDivider;

TEST(SizeDivider, EqualsDivisionForEverySizeAndIndexTheKernelsUse) {
  std::vector<uint32_t> divisors;
  for (uint32_t d = 1; d <= 4096; ++d) divisors.push_back(d);
  for (int k = 12; k <= 31; ++k) {
    const uint64_t p = uint64_t{1} << k;
    for (uint64_t d : {p - 1, p, p + 1, p / 3 * 2 + 1})
      if (d >= 1 && d <= (uint64_t{1} << 31)) divisors.push_back(static_cast<uint32_t>(d));
  }
  std::mt19937 rng(7);
  const uint32_t kLimit = (uint32_t{1} << 31) - 1;  // largest element count of one launch
  std::uniform_int_distribution<uint32_t> any(0, kLimit);
  int64_t checked = 0;
  for (uint32_t d : divisors) {
    const SizeDivider div(d);
    std::vector<uint32_t> numerators = {0, 1, kLimit, kLimit - 1};
    for (int i = 0; i < 200; ++i) numerators.push_back(any(rng));
    for (uint64_t q : {uint64_t{1}, uint64_t{2}, uint64_t{kLimit} / d}) {
      for (int64_t delta : {-1, 0, 1}) {
        const int64_t n = static_cast<int64_t>(q * d) + delta;
        if (n >= 0 && n <= kLimit) numerators.push_back(static_cast<uint32_t>(n));
      }
    }
    for (uint32_t n : numerators) {
      ASSERT_EQ(div.divide(n), n / d) << n << " / " << d;
      ++checked;
    }
  }
  EXPECT_GT(checked, 800000);
}
