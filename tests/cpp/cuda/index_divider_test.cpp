// The strided kernels' division by multiplication, on the host (no GPU needed): every quotient
// equals the division's, for small, power-of-two and large divisors and indices up to 2^31 - 1.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "engine/cuda/index_divider.h"

using glassbox::cuda::IndexDivider;

TEST(IndexDivider, QuotientsEqualDivision) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> any_index(0, 0x7fffffffu), any_divisor(1, 0x7fffffffu);
  std::vector<uint32_t> divisors;
  for (uint32_t d = 1; d <= 3000; ++d) divisors.push_back(d);
  for (int k = 0; k < 31; ++k) divisors.push_back(uint32_t{1} << k), divisors.push_back((uint32_t{1} << k) + 1);
  for (int k = 0; k < 2000; ++k) divisors.push_back(any_divisor(rng));
  divisors.push_back(0x7fffffffu);
  divisors.push_back(56 * 56);
  for (const uint32_t d : divisors) {
    const IndexDivider div(d);
    std::vector<uint32_t> indices = {0, 1, d - 1, d, d + 1, 2 * d - 1, 0x7fffffffu, 0x7ffffffeu};
    for (int k = 0; k < 200; ++k) indices.push_back(any_index(rng));
    for (const uint32_t n : indices) {
      if (n > 0x7fffffffu) continue;  // d + 1 past 2^31 - 1
      ASSERT_EQ(div.quotient(n), n / d) << n << " / " << d;
    }
  }
}
