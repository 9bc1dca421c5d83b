#pragma once
// Row loops of the normalisation kernels (layer norm, batch norm), each in an AVX2 copy where the
// CPU has it: sums in double over kLanes independent accumulators, added up in a fixed order at the
// end (one running sum is a chain of dependent additions the compiler keeps in order: no
// vectorising, an addition's latency per element), and the output pass.
#include <cstdint>

#include "engine/cpu/loops.h"

namespace glassbox::cpu {

inline constexpr int kRowSumLanes = 8;

// first += the sum of terms(s).first, second += that of terms(s).second, over s in [0, S).
template <class Terms>
[[gnu::always_inline]] inline void add_row_sums_here(int64_t S, const Terms& terms, double& first, double& second) {
  double a[kRowSumLanes] = {}, b[kRowSumLanes] = {};
  int64_t s = 0;
  for (; s + kRowSumLanes <= S; s += kRowSumLanes)
    for (int l = 0; l < kRowSumLanes; ++l) {
      const auto [ta, tb] = terms(s + l);
      a[l] += ta;
      b[l] += tb;
    }
  for (; s < S; ++s) {
    const auto [ta, tb] = terms(s);
    a[0] += ta;
    b[0] += tb;
  }
  for (int l = 0; l < kRowSumLanes; ++l) first += a[l], second += b[l];
}

// The sum of term(s) over s in [0, S).
template <class Term>
[[gnu::always_inline]] inline double row_sum_here(int64_t S, const Term& term) {
  double a[kRowSumLanes] = {};
  int64_t s = 0;
  for (; s + kRowSumLanes <= S; s += kRowSumLanes)
    for (int l = 0; l < kRowSumLanes; ++l) a[l] += term(s + l);
  for (; s < S; ++s) a[0] += term(s);
  double sum = 0;
  for (int l = 0; l < kRowSumLanes; ++l) sum += a[l];
  return sum;
}

// write(s) for s in [0, S).
template <class Write>
[[gnu::always_inline]] inline void write_row_here(int64_t S, const Write& write) {
  for (int64_t s = 0; s < S; ++s) write(s);
}

#ifdef GLASSBOX_X86_DISPATCH
template <class Terms>
__attribute__((target("avx2"))) void add_row_sums_avx2(int64_t S, const Terms& terms, double& first, double& second) {
  add_row_sums_here(S, terms, first, second);
}
template <class Term>
__attribute__((target("avx2"))) double row_sum_avx2(int64_t S, const Term& term) {
  return row_sum_here(S, term);
}
template <class Write>
__attribute__((target("avx2"))) void write_row_avx2(int64_t S, const Write& write) {
  write_row_here(S, write);
}
#endif

template <class Terms>
void add_row_sums(int64_t S, const Terms& terms, double& first, double& second) {
#ifdef GLASSBOX_X86_DISPATCH
  if (S >= 64 && cpu_has_avx2()) return add_row_sums_avx2(S, terms, first, second);
#endif
  add_row_sums_here(S, terms, first, second);
}

template <class Term>
double row_sum(int64_t S, const Term& term) {
#ifdef GLASSBOX_X86_DISPATCH
  if (S >= 64 && cpu_has_avx2()) return row_sum_avx2(S, term);
#endif
  return row_sum_here(S, term);
}

template <class Write>
void write_row(int64_t S, const Write& write) {
#ifdef GLASSBOX_X86_DISPATCH
  if (S >= 64 && cpu_has_avx2()) return write_row_avx2(S, write);
#endif
  write_row_here(S, write);
}

}  // namespace glassbox::cpu
