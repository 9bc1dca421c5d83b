// Run-time choice of the CPU loops' instruction set: GLASSBOX_CPU_CAPABILITY lowers what the CPU
// supports and never raises it, so forcing "avx512" on a machine without it stays safe. Each
// case runs in a fresh process (the choice is made once per process).
#include <gtest/gtest.h>

#include <cstdlib>

#include "engine/cpu/cpu_features.h"

using namespace glassbox::cpu;

namespace {
int expected_code(CpuCapability requested) {
  const CpuCapability detected = detected_cpu_capability();
  return static_cast<int>(requested < detected ? requested : detected);
}
}  // namespace

TEST(CpuCapability, EnvironmentLowersButNeverRaisesTheDetectedSet) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const struct {
    const char* setting;
    CpuCapability requested;
  } cases[] = {{"baseline", CpuCapability::Baseline}, {"avx2", CpuCapability::Avx2}, {"avx512", CpuCapability::Avx512}};
  for (const auto& c : cases) {
    EXPECT_EXIT(
        {
          setenv("GLASSBOX_CPU_CAPABILITY", c.setting, 1);
          std::exit(static_cast<int>(cpu_capability()));
        },
        testing::ExitedWithCode(expected_code(c.requested)), "")
        << c.setting;
  }
  // An unknown setting is reported and ignored.
  EXPECT_EXIT(
      {
        setenv("GLASSBOX_CPU_CAPABILITY", "sse9", 1);
        std::exit(static_cast<int>(cpu_capability()));
      },
      testing::ExitedWithCode(static_cast<int>(detected_cpu_capability())), "ignoring GLASSBOX_CPU_CAPABILITY=sse9");
}

TEST(CpuCapability, NamesEachLevel) {
  EXPECT_STREQ(to_string(CpuCapability::Baseline), "baseline");
  EXPECT_STREQ(to_string(CpuCapability::Avx2), "avx2");
  EXPECT_STREQ(to_string(CpuCapability::Avx512), "avx512");
}
