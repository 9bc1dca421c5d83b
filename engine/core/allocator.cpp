#include "engine/core/allocator.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>
#include <utility>
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

// Big blocks are mapped directly, aligned to 2 MiB and advised to use transparent huge pages:
// their first touch then faults 512 times less often, and the alignment lets every 2 MiB of the
// block, the first included, be a huge page (NumPy advises its large arrays the same way).
constexpr size_t kBigBlockBytes = size_t{4} << 20;
constexpr size_t kHugePage = size_t{2} << 20;

size_t mapped_length(size_t rounded) { return (rounded + kHugePage - 1) / kHugePage * kHugePage; }

void* map_big_block(size_t length) {
  void* raw = mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  // Keep the 2 MiB-aligned `length` bytes inside the mapping; give back the rest.
  char* begin = static_cast<char*>(raw);
  char* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(begin) + kHugePage - 1) & ~(kHugePage - 1));
  char* end = begin + length + kHugePage;
  if (aligned > begin) munmap(begin, static_cast<size_t>(aligned - begin));
  if (end > aligned + length) munmap(aligned + length, static_cast<size_t>(end - (aligned + length)));
#ifdef MADV_HUGEPAGE
  madvise(aligned, length, MADV_HUGEPAGE);  // advice only
#endif
  return aligned;
}

// A thread keeps the last big blocks it freed (two, up to 128 MiB together) for the next
// allocation of the same mapped size: a loop that makes a same-sized temporary on every step
// then pays neither mmap nor the page faults of first touch (the C library unmaps blocks above
// 32 MiB at once). Other sizes, and blocks beyond the limit, are unmapped when freed.
constexpr size_t kKeptBigBlocks = 2;
constexpr size_t kKeptBigBytes = size_t{128} << 20;
// A freed block kept for reuse (big or middle-sized): its address and length.
struct KeptBlock {
  void* data = nullptr;
  size_t length = 0;
};

// Blocks between the small classes and the big ones come from the C library, which gives the top
// of its heap back to the kernel (or maps and unmaps such a block) when it is freed: a loop making
// a 256 KiB temporary on every step then faulted on every page of it, on every step, and with many
// threads each unmap interrupts every core (a 64K-element multiply took 80 us on 16 threads, not
// 4). A thread keeps its last freed middle blocks (up to 64 of them, 64 MiB together) and hands
// one back for the next allocation of exactly its size, as a training step's sizes recur.
constexpr size_t kKeptMiddleBlocks = 64;
constexpr size_t kKeptMiddleBytes = size_t{64} << 20;

// Counts only the owning thread writes (plain loads and stores, no locked instructions); other
// threads read them for stats(). A locked add costs as much as a third of a small allocation.
struct ThreadCounts {
  std::atomic<int64_t> allocations{0}, frees{0};
  void count_allocation() {
    allocations.store(allocations.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  void count_free() { frees.store(frees.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
};

// What each thread keeps: its counts, its cache of small blocks and its last big blocks.
struct ThreadState {
  ThreadCounts counts;
  void* blocks[kSmallClasses][kMaxCachedPerClass];
  unsigned count[kSmallClasses] = {};
  KeptBlock big[kKeptBigBlocks];        // big[0] the most recently freed
  KeptBlock middle[kKeptMiddleBlocks];  // oldest first
  size_t middle_count = 0, middle_bytes = 0;

  // A kept block of exactly `length` mapped bytes, taken out of the cache; null if none.
  void* take_big(size_t length) {
    for (KeptBlock& b : big) {
      if (b.data && b.length == length) return std::exchange(b, KeptBlock{}).data;
    }
    return nullptr;
  }
  // A kept middle block of exactly `length` bytes (the most recent such), taken out; null if none.
  void* take_middle(size_t length) {
    for (size_t i = middle_count; i-- > 0;) {
      if (middle[i].length != length) continue;
      void* data = middle[i].data;
      std::copy(middle + i + 1, middle + middle_count, middle + i);
      --middle_count;
      middle_bytes -= length;
      return data;
    }
    return nullptr;
  }
  // Keeps a freed middle block, freeing the oldest kept ones to make room.
  void keep_middle(void* data, size_t length) {
    size_t drop = 0;
    while (drop < middle_count &&
           (middle_count - drop == kKeptMiddleBlocks || middle_bytes + length > kKeptMiddleBytes)) {
      std::free(middle[drop].data);
      middle_bytes -= middle[drop].length;
      ++drop;
    }
    std::copy(middle + drop, middle + middle_count, middle);
    middle_count -= drop;
    middle[middle_count++] = {data, length};
    middle_bytes += length;
  }
  // Keeps a freed block (unmapping what no longer fits); false if it is too big to keep.
  bool keep_big(void* data, size_t length) {
    if (length > kKeptBigBytes) return false;
    if (big[kKeptBigBlocks - 1].data) munmap(big[kKeptBigBlocks - 1].data, big[kKeptBigBlocks - 1].length);
    for (size_t i = kKeptBigBlocks - 1; i > 0; --i) big[i] = big[i - 1];
    big[0] = {data, length};
    size_t total = 0;
    for (KeptBlock& b : big) {
      if (b.data && (total += b.length) > kKeptBigBytes) {
        munmap(b.data, b.length);
        b = {};
      }
    }
    return true;
  }
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
  for (KeptBlock& b : state->big)
    if (b.data) munmap(b.data, b.length);
  for (size_t i = 0; i < state->middle_count; ++i) std::free(state->middle[i].data);
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

}  // namespace

void* CPUAllocator::allocate(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  const size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
  ThreadState* state = thread_state();
  void* p = nullptr;
  const bool big = rounded >= kBigBlockBytes;
#if GLASSBOX_ALLOCATOR_CACHE
  const size_t cls = rounded / kAlign - 1;
  if (state && cls < kSmallClasses && state->count[cls] > 0) p = state->blocks[cls][--state->count[cls]];
  else if (state && big) p = state->take_big(mapped_length(rounded));
  else if (state && cls >= kSmallClasses) p = state->take_middle(rounded);
#endif
  if (!p) p = big ? map_big_block(mapped_length(rounded)) : std::aligned_alloc(kAlign, rounded);
  if (!p) throw Error("CPU allocator: out of memory allocating " + std::to_string(nbytes) + " bytes");
  // live_bytes_ stays one shared counter: the peak needs the total at every allocation.
  const int64_t live =
      live_bytes_.fetch_add(static_cast<int64_t>(nbytes), std::memory_order_relaxed) + static_cast<int64_t>(nbytes);
  if (state) state->counts.count_allocation();
  else count_retired(true);
  int64_t peak = peak_bytes_.load(std::memory_order_relaxed);
  while (live > peak && !peak_bytes_.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
  return p;
}

void CPUAllocator::deallocate(void* ptr, size_t nbytes) {
  if (!ptr) return;
  const size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
  live_bytes_.fetch_sub(static_cast<int64_t>(nbytes), std::memory_order_relaxed);
  ThreadState* state = thread_state();
  if (state) state->counts.count_free();
  else count_retired(false);
  const bool big = rounded >= kBigBlockBytes;
#if GLASSBOX_ALLOCATOR_CACHE
  const size_t cls = rounded / kAlign - 1;
  if (state && cls < kSmallClasses && state->count[cls] < kMaxCachedPerClass) {
    state->blocks[cls][state->count[cls]++] = ptr;
    return;
  }
  if (state && big && state->keep_big(ptr, mapped_length(rounded))) return;
  if (state && !big && cls >= kSmallClasses) {
    state->keep_middle(ptr, rounded);
    return;
  }
#endif
  if (big) munmap(ptr, mapped_length(rounded));
  else std::free(ptr);
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
  // A thread may have added its block to live_bytes_ and not yet raised the peak: the live total
  // read here was reached, so the peak is at least that.
  const int64_t live = live_bytes_.load();
  return {live, allocations - frees, std::max(peak_bytes_.load(), live), allocations};
}

CPUAllocator& cpu_allocator() {
  static CPUAllocator* a = new CPUAllocator();  // never destroyed: storages may outlive statics
  return *a;
}

}  // namespace glassbox
