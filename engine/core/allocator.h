#pragma once
// Allocators hand out device memory; storages own what they hand out. The CPU allocator aligns
// to 64 bytes (a cache line, and enough for any SIMD load) and counts what is live, so tests and
// notebooks can see allocations happen and go away.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "engine/core/device.h"

namespace glassbox {

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Never returns null for nbytes > 0 (throws on failure); may return null for 0 bytes.
  virtual void* allocate(size_t nbytes) = 0;
  virtual void deallocate(void* ptr, size_t nbytes) = 0;
  virtual Device device() const = 0;
};

struct AllocatorStats {
  int64_t live_bytes = 0;
  int64_t live_allocations = 0;
  int64_t peak_bytes = 0;
  int64_t total_allocations = 0;
};

class CPUAllocator final : public Allocator {
 public:
  static constexpr size_t kAlignment = 64;
  void* allocate(size_t nbytes) override;
  void deallocate(void* ptr, size_t nbytes) override;
  Device device() const override { return Device(DeviceType::CPU); }
  AllocatorStats stats() const;

 private:
  // Shared: the peak needs the live total at every allocation. Block counts are kept per thread
  // (allocator.cpp) and added up by stats().
  std::atomic<int64_t> live_bytes_{0}, peak_bytes_{0};
};

CPUAllocator& cpu_allocator();

}  // namespace glassbox
