#pragma once
// f(i) for every i in [0, n), spread over the thread pool in chunks of at least `grain` indices:
// the CPU side of a per-element functor (engine/ops/kernels/) that CUDA runs one thread per index
// (engine/cuda/for_each_launch.cuh).
#include <cstdint>

#include "engine/core/parallel.h"

namespace glassbox::cpu {

template <class F>
void for_each_index(int64_t n, int64_t grain, const F& f) {
  parallel_for(0, n, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) f(i);
  });
}

}  // namespace glassbox::cpu
