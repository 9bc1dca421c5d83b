#include "engine/cpu/cpu_features.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace glassbox::cpu {

CpuCapability detected_cpu_capability() {
#if defined(__x86_64__) && defined(__GNUC__)
  // __builtin_cpu_supports also checks that the OS saves the wider registers (XGETBV).
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return CpuCapability::Baseline;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw"))
    return CpuCapability::Avx512;
  return CpuCapability::Avx2;
#else
  return CpuCapability::Baseline;
#endif
}

namespace {
CpuCapability choose() {
  const CpuCapability detected = detected_cpu_capability();
  const char* env = std::getenv("GLASSBOX_CPU_CAPABILITY");
  if (!env || !*env) return detected;
  CpuCapability cap = detected;
  if (std::strcmp(env, "baseline") == 0) cap = CpuCapability::Baseline;
  else if (std::strcmp(env, "avx2") == 0) cap = CpuCapability::Avx2;
  else if (std::strcmp(env, "avx512") == 0) cap = CpuCapability::Avx512;
  else std::fprintf(stderr, "glassbox: ignoring GLASSBOX_CPU_CAPABILITY=%s (expected baseline, avx2 or avx512)\n", env);
  return cap < detected ? cap : detected;
}
}  // namespace

CpuCapability cpu_capability() {
  static const CpuCapability c = choose();
  return c;
}

const char* to_string(CpuCapability c) {
  switch (c) {
    case CpuCapability::Baseline: return "baseline";
    case CpuCapability::Avx2: return "avx2";
    case CpuCapability::Avx512: return "avx512";
  }
  return "baseline";
}

}  // namespace glassbox::cpu
