#pragma once
// A hook for the profiler (a higher layer): storages report the bytes they allocate (+) and free
// (-) while one is set. Unset, a storage pays one relaxed load.
#include <atomic>
#include <cstdint>

#include "engine/core/device.h"

namespace glassbox {

using MemoryObserver = void (*)(int64_t delta_bytes, Device device);
void set_memory_observer(MemoryObserver observer);  // null removes it

namespace detail {
extern std::atomic<MemoryObserver> memory_observer;
inline void report_memory(int64_t delta_bytes, Device device) {
  if (MemoryObserver f = memory_observer.load(std::memory_order_relaxed)) [[unlikely]]
    f(delta_bytes, device);
}
}  // namespace detail

}  // namespace glassbox
