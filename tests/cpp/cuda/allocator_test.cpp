// The CUDA caching allocator (statistics, reuse per size and stream, empty_cache, out-of-memory
// text) and pinned host memory.
#include <gtest/gtest.h>

#include <string>

#include "engine/core/empty.h"
#include "engine/cuda/memory.h"
#include "engine/cuda/pinned_memory.h"
#include "engine/cuda/stream.h"
#include "tests/cpp/cuda/cuda_test_util.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using namespace glassbox::cuda_testing;
using glassbox::testing::error_of;

TEST(CudaAllocator, StatisticsFollowTensors) {
  GB_REQUIRE_GPU();
  cuda::empty_cache();  // no cached block of another size may serve the requests below
  const cuda::MemoryStats before = cuda::memory_stats();
  {
    const Tensor t = empty({1000}, ScalarType::Float32, kCuda);  // 4000 bytes: one 4096-byte block
    const cuda::MemoryStats during = cuda::memory_stats();
    EXPECT_EQ(during.allocated_bytes - before.allocated_bytes, 4096);
    EXPECT_EQ(during.active_blocks - before.active_blocks, 1);
    EXPECT_EQ(during.allocations - before.allocations, 1);
    EXPECT_GE(during.reserved_bytes, during.allocated_bytes);
    EXPECT_GE(during.peak_allocated_bytes, during.allocated_bytes);
  }
  const cuda::MemoryStats after = cuda::memory_stats();
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(after.active_blocks, before.active_blocks);
  EXPECT_GE(after.reserved_bytes, before.reserved_bytes);  // the block stays cached
  // Sizes above 1 MiB round to 2 MiB.
  const Tensor big = empty({(3 << 20) / 4}, ScalarType::Float32, kCuda);
  EXPECT_EQ(cuda::memory_stats().allocated_bytes - after.allocated_bytes, 4 << 20);
}

TEST(CudaAllocator, ReusesAFreedBlockOfTheSameStream) {
  GB_REQUIRE_GPU();
  cuda::empty_cache();
  void* first = nullptr;
  {
    const Tensor t = empty({1 << 18}, ScalarType::Float32, kCuda);
    first = t.data_ptr();
  }
  const cuda::MemoryStats before = cuda::memory_stats();
  const Tensor again = empty({1 << 18}, ScalarType::Float32, kCuda);
  EXPECT_EQ(again.data_ptr(), first);
  EXPECT_EQ(cuda::memory_stats().driver_allocations, before.driver_allocations);
  // Another stream does not get it while it is taken, nor after it is freed on this one.
  const cuda::Stream s = cuda::pool_stream();
  cuda::StreamGuard guard(s);
  const Tensor other = empty({1 << 18}, ScalarType::Float32, kCuda);
  EXPECT_NE(other.data_ptr(), first);
}

TEST(CudaAllocator, PeakResetAndEmptyCache) {
  GB_REQUIRE_GPU();
  { const Tensor t = empty({64 << 20}, ScalarType::Float32, kCuda); }  // 256 MiB, freed into the cache
  cuda::MemoryStats s = cuda::memory_stats();
  EXPECT_GE(s.peak_allocated_bytes - s.allocated_bytes, 256 << 20);
  cuda::reset_peak_memory_stats();
  s = cuda::memory_stats();
  EXPECT_EQ(s.peak_allocated_bytes, s.allocated_bytes);
  EXPECT_GE(s.reserved_bytes - s.allocated_bytes, 256 << 20);
  cuda::empty_cache();
  s = cuda::memory_stats();
  EXPECT_EQ(s.reserved_bytes, s.allocated_bytes);
  EXPECT_EQ(s.peak_reserved_bytes >= s.reserved_bytes, true);
}

TEST(CudaAllocator, OutOfMemoryIsAClearError) {
  GB_REQUIRE_GPU();
  const std::string e = error_of([] { empty({int64_t{1} << 50}, ScalarType::Float32, kCuda); });
  EXPECT_TRUE(e.starts_with("CUDA out of memory: tried to allocate 4194304.00 GiB on cuda:0 (")) << e;
  const Tensor fine = ones({4}, std::nullopt, kCuda);  // the allocator still works afterwards
  EXPECT_EQ(values(fine), (std::vector<double>{1, 1, 1, 1}));
}

TEST(PinnedMemory, TensorsAreCpuTensorsInPageLockedMemory) {
  GB_REQUIRE_GPU();
  Tensor host = cuda::empty_pinned(std::vector<int64_t>{3, 4}, ScalarType::Float32);
  EXPECT_EQ(host.device().type, DeviceType::CPU);
  EXPECT_TRUE(cuda::is_pinned(host.data_ptr()));
  EXPECT_FALSE(cuda::is_pinned(empty({3}).data_ptr()));
  copy_(host, random_cpu({3, 4}, ScalarType::Float32));
  const Tensor expected = clone(host);
  // Asynchronous both ways, then one wait.
  Tensor device = empty({3, 4}, ScalarType::Float32, kCuda);
  copy_(device, host, /*non_blocking=*/true);
  Tensor back = cuda::empty_pinned(std::vector<int64_t>{3, 4}, ScalarType::Float32);
  copy_(back, mul(device, Scalar(2.0)), /*non_blocking=*/true);
  cuda::synchronize();
  EXPECT_EQ(values(back), values(mul(expected, Scalar(2.0))));
}
