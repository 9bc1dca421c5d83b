#pragma once
// What the CUDA caching allocator (allocator.cpp) holds, per device. Needs no CUDA headers: the
// Python bindings and the stub library (built without CUDA, where every figure is 0) use it too.
#include <cstdint>

namespace glassbox::cuda {

struct MemoryStats {
  int64_t allocated_bytes = 0;       // in blocks handed to tensors (sizes rounded up to the block size)
  int64_t peak_allocated_bytes = 0;  // since the start or the last reset_peak_memory_stats
  int64_t reserved_bytes = 0;        // taken from the driver: allocated plus cached
  int64_t peak_reserved_bytes = 0;
  int64_t active_blocks = 0;       // blocks handed out now
  int64_t allocations = 0;         // allocate calls answered, from the cache or not
  int64_t driver_allocations = 0;  // cudaMalloc calls
};

// device -1: the current device. All zeros where no GPU is present.
MemoryStats memory_stats(int device = -1);
void reset_peak_memory_stats(int device = -1);
// Hands every cached, unused block of every device back to the driver.
void empty_cache();

}  // namespace glassbox::cuda
