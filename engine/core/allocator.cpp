#include "engine/core/allocator.h"

#include <cstdlib>
#include <new>
#include <string>

#include "engine/core/error.h"

namespace glassbox {

void* CPUAllocator::allocate(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  const size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (!p) throw Error("CPU allocator: out of memory allocating " + std::to_string(nbytes) + " bytes");
  const int64_t live = live_bytes_.fetch_add(static_cast<int64_t>(nbytes)) + static_cast<int64_t>(nbytes);
  live_allocations_.fetch_add(1);
  total_allocations_.fetch_add(1);
  int64_t peak = peak_bytes_.load();
  while (live > peak && !peak_bytes_.compare_exchange_weak(peak, live)) {
  }
  return p;
}

void CPUAllocator::deallocate(void* ptr, size_t nbytes) {
  if (!ptr) return;
  std::free(ptr);
  live_bytes_.fetch_sub(static_cast<int64_t>(nbytes));
  live_allocations_.fetch_sub(1);
}

AllocatorStats CPUAllocator::stats() const {
  return {live_bytes_.load(), live_allocations_.load(), peak_bytes_.load(), total_allocations_.load()};
}

CPUAllocator& cpu_allocator() {
  static CPUAllocator* a = new CPUAllocator();  // never destroyed: storages may outlive statics
  return *a;
}

}  // namespace glassbox
