// intrusive_ptr: the count starts at one without a locked add, and the last owner deletes without
// one. Both are only right if no other thread can hold a reference at that moment, so the tests
// share objects across threads (copies made and dropped concurrently, the last reference dropped
// on a thread other than the one that made the object) and count destructions.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "engine/core/empty.h"
#include "engine/core/intrusive_ptr.h"

using namespace glassbox;

namespace {
std::atomic<int> g_destroyed{0};

struct Counted : RefCounted {
  explicit Counted(int v) : value(v) {}
  ~Counted() override { g_destroyed.fetch_add(1, std::memory_order_relaxed); }
  int value;
};
}  // namespace

TEST(IntrusivePtr, MakeStartsAtOneAndCopiesCount) {
  g_destroyed = 0;
  {
    auto p = intrusive_ptr<Counted>::make(7);
    EXPECT_EQ(p.use_count(), 1u);
    {
      intrusive_ptr<Counted> q = p;
      intrusive_ptr<Counted> r(p.get());  // a new reference from the raw pointer
      EXPECT_EQ(p.use_count(), 3u);
    }
    EXPECT_EQ(p.use_count(), 1u);
    intrusive_ptr<Counted> moved = std::move(p);
    EXPECT_EQ(moved.use_count(), 1u);
    EXPECT_EQ(g_destroyed.load(), 0);
  }
  EXPECT_EQ(g_destroyed.load(), 1);
}

// Threads copy and drop one object as fast as they can while the owner lets go of it at some
// point: whichever reference is last deletes it, exactly once, never while another is held.
TEST(IntrusivePtr, ConcurrentCopiesAndReleasesDeleteExactlyOnce) {
  constexpr int kThreads = 4, kRounds = 500, kCopies = 50;
  g_destroyed = 0;
  for (int round = 0; round < kRounds; ++round) {
    auto shared = intrusive_ptr<Counted>::make(round);
    std::atomic<int> ready{0};
    std::atomic<bool> wrong{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, mine = shared] {  // each thread starts with its own reference
        ready.fetch_add(1);
        while (ready.load() < kThreads) {
        }
        for (int i = 0; i < kCopies; ++i) {
          intrusive_ptr<Counted> copy = mine;
          if (copy->value != round) wrong = true;
        }
      });
    }
    shared.reset();  // the maker lets go while the threads still copy
    for (std::thread& t : threads) t.join();
    ASSERT_FALSE(wrong.load());
    ASSERT_EQ(g_destroyed.load(), round + 1) << "round " << round;
  }
}

// Tensors made on one thread and dropped on another (what the autograd worker and thread-pool
// kernels do): the tensor, its storage and its memory go away once, and the allocator's counts
// come back to where they were.
TEST(IntrusivePtr, TensorsMadeOnOneThreadAndFreedOnAnother) {
  const AllocatorStats before = cpu_allocator().stats();
  for (int round = 0; round < 50; ++round) {
    std::vector<Tensor> made;
    std::thread maker([&] {
      for (int64_t n : {1, 3, 16, 200, 5000, 1 << 20}) {
        const int64_t size[] = {n};
        made.push_back(empty_tensor(size, ScalarType::Float32, Device(DeviceType::CPU)));
      }
    });
    maker.join();  // the maker has ended: its caches are gone, its tensors live on
    std::vector<Tensor> copies = made;
    std::thread dropper([moved = std::move(made)]() mutable { moved.clear(); });
    dropper.join();
    for (const Tensor& t : copies) EXPECT_EQ(t.unsafe_impl()->use_count(), 1u);
  }
  const AllocatorStats after = cpu_allocator().stats();
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.live_allocations, before.live_allocations);
  EXPECT_EQ(after.total_allocations, before.total_allocations + 50 * 6);
}
