#pragma once
// Which instruction-set copy of the CPU loops may run: chosen once, at run time, from what the
// processor and the operating system support. The library itself is built for baseline x86-64;
// only functions marked __attribute__((target(...))) use wider instructions, and every call to
// one is behind these checks.
namespace glassbox::cpu {

enum class CpuCapability { Baseline = 0, Avx2 = 1, Avx512 = 2 };

// Avx2 means AVX2 and FMA; Avx512 adds AVX-512 F, VL, DQ and BW. GLASSBOX_CPU_CAPABILITY
// (baseline, avx2 or avx512) lowers it, never raises it: tests run every copy on one machine.
CpuCapability cpu_capability();
// What the processor and OS support, ignoring the environment (not cached).
CpuCapability detected_cpu_capability();
// "baseline", "avx2" or "avx512".
const char* to_string(CpuCapability c);

}  // namespace glassbox::cpu
