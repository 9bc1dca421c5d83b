#include "engine/core/allocator.h"

#include <sys/mman.h>

#include <cstdlib>
#include <mutex>
#include <new>
#include <string>
#include <vector>

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

// Counts only the owning thread writes (plain loads and stores, no locked instructions); other
// threads read them for stats(). A locked add costs as much as a third of a small allocation.
struct ThreadCounts {
  std::atomic<int64_t> allocations{0}, frees{0};
  void count_allocation() { allocations.store(allocations.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
  void count_free() { frees.store(frees.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
};

// What each thread keeps: its counts and its cache of small blocks.
struct ThreadState {
  ThreadCounts counts;
  void* blocks[kSmallClasses][kMaxCachedPerClass];
  unsigned count[kSmallClasses] = {};
};

// Every live thread's state, so that stats() can add up the counts; a thread that ends folds its
// counts into the retired totals.
struct ThreadRegistry {
  std::mutex mutex;
  std::vector<ThreadState*> live;
  int64_t retired_allocations = 0, retired_frees = 0;
};
ThreadRegistry& registry() {
  static ThreadRegistry* r = new ThreadRegistry();  // never destroyed: threads may end after statics
  return *r;
}

// The hot path reads one initial-exec thread-local pointer (one instruction, no __tls_get_addr
// call); the holder, whose destructor needs the slower dynamic TLS, is touched once per thread.
// Thread-local storage stays a few bytes: the library's TLS must fit the static TLS block a
// dlopen'ed module (the Python extension) gets.
constinit thread_local ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;
constinit thread_local bool t_state_gone __attribute__((tls_model("initial-exec"))) = false;

struct StateHolder {
  ThreadState* state = nullptr;
  ~StateHolder();
};
thread_local StateHolder t_holder;

StateHolder::~StateHolder() {
  t_state = nullptr;
  t_state_gone = true;
  if (!state) return;
  for (size_t c = 0; c < kSmallClasses; ++c)
    for (unsigned i = 0; i < state->count[c]; ++i) std::free(state->blocks[c][i]);
  ThreadRegistry& r = registry();
  {
    std::lock_guard lock(r.mutex);
    r.retired_allocations += state->counts.allocations.load(std::memory_order_relaxed);
    r.retired_frees += state->counts.frees.load(std::memory_order_relaxed);
    std::erase(r.live, state);
  }
  delete state;
  state = nullptr;
}

// This thread's state, made on first use; null once the thread is shutting down (or when it
// cannot be made), in which case the caller counts in the retired totals.
ThreadState* thread_state() {
  if (ThreadState* s = t_state) [[likely]]
    return s;
  if (t_state_gone) return nullptr;
  ThreadState* s = new (std::nothrow) ThreadState();
  if (!s) return nullptr;
  {
    ThreadRegistry& r = registry();
    std::lock_guard lock(r.mutex);
    r.live.push_back(s);
  }
  t_holder.state = s;
  t_state = s;
  return s;
}

void count_retired(bool allocation) {
  ThreadRegistry& r = registry();
  std::lock_guard lock(r.mutex);
  (allocation ? r.retired_allocations : r.retired_frees) += 1;
}

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
  ThreadState* state = thread_state();
  void* p = nullptr;
#if GLASSBOX_ALLOCATOR_CACHE
  const size_t cls = rounded / kAlign - 1;
  if (state && cls < kSmallClasses && state->count[cls] > 0) p = state->blocks[cls][--state->count[cls]];
#endif
  if (!p) p = raw_allocate(rounded);
  if (!p) throw Error("CPU allocator: out of memory allocating " + std::to_string(nbytes) + " bytes");
  // live_bytes_ stays one shared counter: the peak needs the total at every allocation.
  const int64_t live = live_bytes_.fetch_add(static_cast<int64_t>(nbytes), std::memory_order_relaxed) +
                       static_cast<int64_t>(nbytes);
  if (state) state->counts.count_allocation();
  else count_retired(true);
  int64_t peak = peak_bytes_.load(std::memory_order_relaxed);
  while (live > peak && !peak_bytes_.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
  return p;
}

void CPUAllocator::deallocate(void* ptr, size_t nbytes) {
  if (!ptr) return;
  live_bytes_.fetch_sub(static_cast<int64_t>(nbytes), std::memory_order_relaxed);
  ThreadState* state = thread_state();
  if (state) state->counts.count_free();
  else count_retired(false);
#if GLASSBOX_ALLOCATOR_CACHE
  const size_t cls = (nbytes + kAlign - 1) / kAlign - 1;
  if (state && cls < kSmallClasses && state->count[cls] < kMaxCachedPerClass) {
    state->blocks[cls][state->count[cls]++] = ptr;
    return;
  }
#endif
  std::free(ptr);
}

AllocatorStats CPUAllocator::stats() const {
  ThreadRegistry& r = registry();
  int64_t allocations, frees;
  {
    std::lock_guard lock(r.mutex);
    allocations = r.retired_allocations;
    frees = r.retired_frees;
    for (const ThreadState* s : r.live) {
      allocations += s->counts.allocations.load(std::memory_order_relaxed);
      frees += s->counts.frees.load(std::memory_order_relaxed);
    }
  }
  return {live_bytes_.load(), allocations - frees, peak_bytes_.load(), allocations};
}

CPUAllocator& cpu_allocator() {
  static CPUAllocator* a = new CPUAllocator();  // never destroyed: storages may outlive statics
  return *a;
}

}  // namespace glassbox
