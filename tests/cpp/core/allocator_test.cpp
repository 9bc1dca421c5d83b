// The CPU allocator: alignment, middle and big blocks (big ones 2 MiB-aligned; the last freed of
// each handed out again for the same size), and its statistics (live bytes and blocks, the peak,
// the total) while blocks come and go on several threads, small (cached per thread) and large alike.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/core/allocator.h"

using namespace glassbox;

TEST(CPUAllocator, AlignsEveryBlock) {
  CPUAllocator& a = cpu_allocator();
  for (size_t n : {1, 63, 64, 100, 1000, 5000, 1 << 20}) {
    void* p = a.allocate(n);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % CPUAllocator::kAlignment, 0u) << n;
    a.deallocate(p, n);
  }
  EXPECT_EQ(a.allocate(0), nullptr);
}

TEST(CPUAllocator, StatsFollowBlocksOnThisThread) {
  CPUAllocator& a = cpu_allocator();
  const AllocatorStats before = a.stats();
  void* small = a.allocate(100);
  void* big = a.allocate(5 << 20);
  const AllocatorStats during = a.stats();
  EXPECT_EQ(during.live_bytes, before.live_bytes + 100 + (5 << 20));
  EXPECT_EQ(during.live_allocations, before.live_allocations + 2);
  EXPECT_EQ(during.total_allocations, before.total_allocations + 2);
  EXPECT_GE(during.peak_bytes, during.live_bytes);
  a.deallocate(small, 100);
  a.deallocate(big, 5 << 20);
  const AllocatorStats after = a.stats();
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.live_allocations, before.live_allocations);
  EXPECT_EQ(after.total_allocations, before.total_allocations + 2);
  EXPECT_GE(after.peak_bytes, during.live_bytes);
}

TEST(CPUAllocator, StatsCountOtherThreadsAndBlocksFreedElsewhere) {
  CPUAllocator& a = cpu_allocator();
  const AllocatorStats before = a.stats();
  std::vector<void*> kept;
  // A thread allocates ten blocks, frees half, and ends: its counts must outlive it.
  std::thread worker([&] {
    std::vector<void*> mine;
    for (int i = 0; i < 10; ++i) mine.push_back(a.allocate(64 * (i + 1)));
    for (int i = 0; i < 5; ++i) a.deallocate(mine[i], 64 * (i + 1));
    kept.assign(mine.begin() + 5, mine.end());
  });
  worker.join();
  const AllocatorStats mid = a.stats();
  EXPECT_EQ(mid.total_allocations, before.total_allocations + 10);
  EXPECT_EQ(mid.live_allocations, before.live_allocations + 5);
  EXPECT_EQ(mid.live_bytes, before.live_bytes + 64 * (6 + 7 + 8 + 9 + 10));
  // This thread frees the worker's other half.
  for (int i = 0; i < 5; ++i) a.deallocate(kept[i], 64 * (i + 6));
  const AllocatorStats after = a.stats();
  EXPECT_EQ(after.live_allocations, before.live_allocations);
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.total_allocations, before.total_allocations + 10);
}

TEST(CPUAllocator, BigBlocksAreHugePageAlignedAndReusedForTheSameSize) {
  CPUAllocator& a = cpu_allocator();
  const size_t n = size_t{24} << 20;
  auto* p = static_cast<unsigned char*>(a.allocate(n));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (size_t{2} << 20), 0u);
  p[0] = 1;
  p[n - 1] = 2;  // the whole block is usable
  a.deallocate(p, n);
  void* again = a.allocate(n);  // the block just freed, without a new mapping
  EXPECT_EQ(again, p);
  void* other = a.allocate(n + (size_t{4} << 20));  // another size maps afresh
  EXPECT_NE(other, p);
  const AllocatorStats s = a.stats();
  a.deallocate(again, n);
  a.deallocate(other, n + (size_t{4} << 20));
  EXPECT_EQ(a.stats().live_bytes, s.live_bytes - static_cast<int64_t>(2 * n + (size_t{4} << 20)));
}

long page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// A loop that makes a temporary of a few hundred KiB on every step, while the previous one is still
// alive (`c = a * b` in Python), gets the blocks it freed back: no page faults after the first steps.
TEST(CPUAllocator, MiddleBlocksFreedAreReusedWithoutNewPageFaults) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer builds keep no freed blocks, so that use-after-free is caught";
#endif
  CPUAllocator& a = cpu_allocator();
  for (size_t n : {size_t{2000}, size_t{256} << 10, size_t{1} << 20, (size_t{3} << 20) + 64}) {
    auto* previous = static_cast<unsigned char*>(a.allocate(n));
    auto step = [&] {
      auto* next = static_cast<unsigned char*>(a.allocate(n));
      for (size_t i = 0; i < n; i += 4096) next[i] = static_cast<unsigned char>(i);
      next[n - 1] = 1;
      a.deallocate(previous, n);
      previous = next;
    };
    for (int i = 0; i < 4; ++i) step();
    const long before = page_faults();
    for (int i = 0; i < 200; ++i) step();
    // Without the blocks kept, 200 steps faulted 6,368 times for 256 KiB and 100,000 for 3 MiB.
    EXPECT_LT(page_faults() - before, 50) << n << " bytes";
    void* same = a.allocate(n);  // nothing else freed since: the block kept is the one just freed
    a.deallocate(same, n);
    EXPECT_EQ(a.allocate(n), same) << n;
    a.deallocate(same, n);
    a.deallocate(previous, n);
  }
}

// Threads that end with blocks in their caches (small ones and kept big ones), blocks that
// outlive the thread that took them, and stats() read while threads come and go: once everything
// has joined, the counts are exact again.
TEST(CPUAllocator, ThreadsEndingWithCachedBlocksKeepTheCountsExact) {
  CPUAllocator& a = cpu_allocator();
  const AllocatorStats before = a.stats();
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) {
      const AllocatorStats s = a.stats();
      EXPECT_GE(s.live_bytes, 0);
      EXPECT_GE(s.peak_bytes, s.live_bytes);
    }
  });
  constexpr size_t kBig = size_t{6} << 20;
  constexpr size_t kMiddle = size_t{300} << 10;
  std::vector<std::pair<void*, size_t>> outliving;
  std::mutex outliving_mutex;
  int64_t allocations = 0;
  for (int round = 0; round < 8; ++round) {
    std::vector<std::thread> workers;
    for (int t = 0; t < 3; ++t) {
      workers.emplace_back([&, t] {
        std::vector<std::pair<void*, size_t>> mine;
        for (int i = 0; i < 40; ++i) mine.emplace_back(a.allocate(64 * (1 + i % 16)), 64 * (1 + i % 16));
        mine.emplace_back(a.allocate(kBig), kBig);
        mine.emplace_back(a.allocate(kMiddle), kMiddle);
        mine.emplace_back(a.allocate(kBig + (size_t{2} << 20)), kBig + (size_t{2} << 20));
        // Free all but two: the cache now holds small blocks, a middle one and both big ones.
        std::lock_guard lock(outliving_mutex);
        outliving.push_back(mine[t]);
        outliving.push_back(mine[40]);
        for (size_t i = 0; i < mine.size(); ++i)
          if (i != static_cast<size_t>(t) && i != 40) a.deallocate(mine[i].first, mine[i].second);
      });
    }
    for (std::thread& w : workers) w.join();
    allocations += 3 * 43;
  }
  done = true;
  reader.join();
  AllocatorStats mid = a.stats();
  EXPECT_EQ(mid.total_allocations, before.total_allocations + allocations);
  EXPECT_EQ(mid.live_allocations, before.live_allocations + static_cast<int64_t>(outliving.size()));
  int64_t outliving_bytes = 0;
  for (auto [p, n] : outliving) outliving_bytes += static_cast<int64_t>(n);
  EXPECT_EQ(mid.live_bytes, before.live_bytes + outliving_bytes);
  // The blocks of ended threads are still whole and writable, then freed here.
  for (auto [p, n] : outliving) {
    static_cast<unsigned char*>(p)[0] = 1;
    static_cast<unsigned char*>(p)[n - 1] = 2;
    a.deallocate(p, n);
  }
  const AllocatorStats after = a.stats();
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.live_allocations, before.live_allocations);
  EXPECT_EQ(after.total_allocations, before.total_allocations + allocations);
}
