// The per-thread cache of small core objects: blocks freed on another thread than the one that
// took them, threads that end with blocks in their cache, every size class and its edges, and
// the alignment operator new promises.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "engine/core/object_cache.h"

using namespace glassbox::detail;

TEST(ObjectCache, BlocksAreAlignedUsableAndDistinct) {
  std::vector<std::pair<void*, size_t>> live;
  std::set<void*> seen;
  for (size_t size : {size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{200}, size_t{511}, size_t{512}, size_t{513},
                      size_t{4096}}) {
    for (int i = 0; i < 40; ++i) {  // more than a class keeps
      void* p = object_allocate(size);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignof(std::max_align_t), 0u) << size;
      EXPECT_TRUE(seen.insert(p).second) << "block handed out twice: size " << size;
      std::memset(p, 0xab, size);
      live.emplace_back(p, size);
    }
  }
  for (auto [p, size] : live) object_deallocate(p, size);
  object_deallocate(nullptr, 64);  // a no-op
}

// Producer threads take blocks and end; a consumer frees them into its own cache and takes them
// again for objects of the same class. Nothing is handed out twice while live.
TEST(ObjectCache, BlocksCrossThreadsAndOutliveTheirThread) {
  for (int round = 0; round < 20; ++round) {
    std::vector<void*> made;
    std::thread producer([&] {
      for (int i = 0; i < 100; ++i) made.push_back(object_allocate(64 * (1 + i % 8)));
      // Leave some blocks in this thread's cache: freed again when it ends.
      for (int i = 0; i < 10; ++i) object_deallocate(object_allocate(128), 128);
    });
    producer.join();
    std::thread consumer([&] {
      for (size_t i = 0; i < made.size(); ++i) object_deallocate(made[i], 64 * (1 + i % 8));
      std::set<void*> live;
      std::vector<std::pair<void*, size_t>> again;
      for (int i = 0; i < 100; ++i) {
        void* p = object_allocate(64 * (1 + i % 8));
        EXPECT_TRUE(live.insert(p).second);
        std::memset(p, i, 64 * (1 + i % 8));
        again.emplace_back(p, 64 * (1 + i % 8));
      }
      for (auto [p, size] : again) object_deallocate(p, size);
    });
    consumer.join();
  }
}
