#include "engine/core/allocator.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>
#include <string>

#include "engine/core/error.h"

#if defined(__SANITIZE_ADDRESS__)
#define GLASSBOX_ALLOCATOR_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLASSBOX_ALLOCATOR_CACHE 0
#endif
#endif
#ifndef GLASSBOX_ALLOCATOR_CACHE
#define GLASSBOX_ALLOCATOR_CACHE 1
#endif

namespace glassbox {

namespace {
constexpr size_t kAlign = CPUAllocator::kAlignment;

// Small blocks (a scalar, a short vector) are kept in a per-thread cache by size class: the C
// library's aligned allocation path is several times slower than the tensor it backs. Sanitizer
// builds skip the cache so that use-after-free on tensor memory is still caught.
constexpr size_t kSmallClasses = 16;  // 64, 128, ..., 1024 bytes
constexpr size_t kMaxCachedPerClass = 32;

struct SmallBlockCache {
  void* blocks[kSmallClasses][kMaxCachedPerClass];
  unsigned count[kSmallClasses] = {};
};

#if GLASSBOX_ALLOCATOR_CACHE
// Thread-local storage holds only a pointer: the library's TLS must stay small enough for the
// static TLS block a dlopen'ed module (the Python extension) gets.
struct CacheHolder {
  SmallBlockCache* cache = nullptr;
  ~CacheHolder();
};
thread_local bool t_cache_gone = false;  // set once this thread's cache is destroyed
thread_local CacheHolder t_holder;

CacheHolder::~CacheHolder() {
  t_cache_gone = true;
  if (!cache) return;
  for (size_t c = 0; c < kSmallClasses; ++c)
    for (unsigned i = 0; i < cache->count[c]; ++i) std::free(cache->blocks[c][i]);
  delete cache;
  cache = nullptr;
}

// This thread's cache, made on first use; null once the thread is shutting down.
SmallBlockCache* thread_cache() {
  if (t_cache_gone) return nullptr;
  CacheHolder& h = t_holder;
  if (!h.cache) h.cache = new (std::nothrow) SmallBlockCache();
  return h.cache;
}
#endif

// Big blocks come straight from mmap; asking for transparent huge pages cuts their first-touch
// page faults 512-fold where the kernel allows it (NumPy does the same for its large arrays).
constexpr size_t kHugePageAdviceBytes = size_t{4} << 20;

void* raw_allocate(size_t rounded) {
  void* p = std::aligned_alloc(kAlign, rounded);
  if (p && rounded >= kHugePageAdviceBytes) {
#ifdef MADV_HUGEPAGE
    constexpr uintptr_t kPage = 4096;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + rounded) & ~(kPage - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice only
#endif
  }
  return p;
}
}  // namespace

void* CPUAllocator::allocate(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  const size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = nullptr;
#if GLASSBOX_ALLOCATOR_CACHE
  const size_t cls = rounded / kAlign - 1;
  if (cls < kSmallClasses) {
    if (SmallBlockCache* cache = thread_cache(); cache && cache->count[cls] > 0)
      p = cache->blocks[cls][--cache->count[cls]];
  }
#endif
  if (!p) p = raw_allocate(rounded);
  if (!p) throw Error("CPU allocator: out of memory allocating " + std::to_string(nbytes) + " bytes");
  const int64_t live = live_bytes_.fetch_add(static_cast<int64_t>(nbytes), std::memory_order_relaxed) +
                       static_cast<int64_t>(nbytes);
  live_allocations_.fetch_add(1, std::memory_order_relaxed);
  total_allocations_.fetch_add(1, std::memory_order_relaxed);
  int64_t peak = peak_bytes_.load(std::memory_order_relaxed);
  while (live > peak && !peak_bytes_.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
  return p;
}

void CPUAllocator::deallocate(void* ptr, size_t nbytes) {
  if (!ptr) return;
  live_bytes_.fetch_sub(static_cast<int64_t>(nbytes), std::memory_order_relaxed);
  live_allocations_.fetch_sub(1, std::memory_order_relaxed);
#if GLASSBOX_ALLOCATOR_CACHE
  const size_t cls = (nbytes + kAlign - 1) / kAlign - 1;
  if (cls < kSmallClasses) {
    if (SmallBlockCache* cache = thread_cache(); cache && cache->count[cls] < kMaxCachedPerClass) {
      cache->blocks[cls][cache->count[cls]++] = ptr;
      return;
    }
  }
#endif
  std::free(ptr);
}

AllocatorStats CPUAllocator::stats() const {
  return {live_bytes_.load(), live_allocations_.load(), peak_bytes_.load(), total_allocations_.load()};
}

CPUAllocator& cpu_allocator() {
  static CPUAllocator* a = new CPUAllocator();  // never destroyed: storages may outlive statics
  return *a;
}

}  // namespace glassbox
