#include "engine/cpu/openmp_threads.h"

#include <pthread.h>

#include <atomic>

#include "engine/core/parallel.h"

namespace glassbox::cpu {
namespace {

std::atomic<bool> forked_child{false};

// Registered when the library loads, so that every fork after it is seen.
const int registered = pthread_atfork(nullptr, nullptr, [] { forked_child.store(true); });

}  // namespace

int openmp_threads() {
  (void)registered;
  return forked_child.load(std::memory_order_relaxed) ? 1 : get_num_threads();
}

}  // namespace glassbox::cpu
