// The CUDA caching allocator. cudaMalloc is slow and cudaFree waits for the whole device, so
// freed blocks are kept and handed out again: per device and per stream (a block freed on one
// stream is reused only by work queued on that stream, which runs after the work that used it),
// in size-ordered pools. Sizes round up to 512 bytes (up to 1 MiB) or 2 MiB, so that similar
// requests share blocks. When the driver runs out, the cache is emptied and the request retried.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/cuda_error.h"
#include "engine/cuda/device_guard.h"
#include "engine/cuda/memory.h"
#include "engine/cuda/stream.h"

namespace glassbox::cuda {

namespace {
constexpr size_t kSmallLimit = size_t{1} << 20;  // blocks up to 1 MiB ...
constexpr size_t kSmallRound = 512;              // ... round to 512 bytes
constexpr size_t kLargeRound = size_t{2} << 20;  // larger ones to 2 MiB

size_t round_size(size_t n) {
  const size_t unit = n <= kSmallLimit ? kSmallRound : kLargeRound;
  return (n + unit - 1) / unit * unit;
}
// A cached block serves a request when it wastes at most a quarter (and at least one rounding unit).
bool fits(size_t block, size_t request) {
  const size_t unit = request <= kSmallLimit ? kSmallRound : kLargeRound;
  return block <= request + std::max(request / 4, unit);
}

std::string format_bytes(int64_t n) {
  char buf[32];
  if (n >= (int64_t{1} << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(n) / (1 << 30));
  else if (n >= (int64_t{1} << 20)) std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(n) / (1 << 20));
  else std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(n));
  return buf;
}

struct Block {
  void* ptr;
  size_t size;
  int device;
  cudaStream_t stream;
};
// Free blocks ordered by (stream, size, address): lower_bound finds the smallest one that fits.
struct FreeOrder {
  bool operator()(const Block* a, const Block* b) const {
    const auto sa = reinterpret_cast<uintptr_t>(a->stream), sb = reinterpret_cast<uintptr_t>(b->stream);
    if (sa != sb) return sa < sb;
    if (a->size != b->size) return a->size < b->size;
    return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
  }
};

struct DeviceState {
  std::set<Block*, FreeOrder> free_blocks;
  MemoryStats stats;
};

class CachingAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes) override;
  void deallocate(void* ptr, size_t nbytes) override;
  Device device() const override { return Device(DeviceType::CUDA); }

  MemoryStats stats(int device) {
    std::lock_guard lock(mutex_);
    return state(device).stats;
  }
  void reset_peak(int device) {
    std::lock_guard lock(mutex_);
    MemoryStats& s = state(device).stats;
    s.peak_allocated_bytes = s.allocated_bytes;
    s.peak_reserved_bytes = s.reserved_bytes;
  }
  void empty_cache() {
    std::lock_guard lock(mutex_);
    for (size_t d = 0; d < devices_.size(); ++d)
      if (devices_[d]) release_cached(*devices_[d], static_cast<int>(d));
  }

 private:
  DeviceState& state(int device) {
    if (devices_.size() <= static_cast<size_t>(device)) devices_.resize(device + 1);
    if (!devices_[device]) devices_[device] = std::make_unique<DeviceState>();
    return *devices_[device];
  }
  // cudaFree of every cached block of one device (the lock is held).
  void release_cached(DeviceState& d, int device) {
    if (d.free_blocks.empty()) return;
    DeviceGuard guard(device);
    for (Block* b : d.free_blocks) {
      cudaFree(b->ptr);
      d.stats.reserved_bytes -= static_cast<int64_t>(b->size);
      delete b;
    }
    d.free_blocks.clear();
  }
  [[noreturn]] void out_of_memory(size_t nbytes, int device, const DeviceState& d);

  std::mutex mutex_;
  std::vector<std::unique_ptr<DeviceState>> devices_;
  std::unordered_map<void*, Block*> active_;
};

void CachingAllocator::out_of_memory(size_t nbytes, int device, const DeviceState& d) {
  size_t free_bytes = 0, total_bytes = 0;
  cudaMemGetInfo(&free_bytes, &total_bytes);
  cudaGetLastError();
  throw Error("CUDA out of memory: tried to allocate " + format_bytes(static_cast<int64_t>(nbytes)) +
              " on cuda:" + std::to_string(device) + " (" + format_bytes(static_cast<int64_t>(free_bytes)) +
              " free of " + format_bytes(static_cast<int64_t>(total_bytes)) + "; glassbox holds " +
              format_bytes(d.stats.allocated_bytes) + " in tensors, " + format_bytes(d.stats.reserved_bytes) +
              " reserved)");
}

void* CachingAllocator::allocate(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  const int device = checked_device_index(-1, "CUDA allocation");
  const cudaStream_t stream = current_stream(device).handle();
  const size_t size = round_size(nbytes);
  std::lock_guard lock(mutex_);
  DeviceState& d = state(device);
  Block key{nullptr, size, device, stream};
  Block* block = nullptr;
  if (auto it = d.free_blocks.lower_bound(&key);
      it != d.free_blocks.end() && (*it)->stream == stream && fits((*it)->size, size)) {
    block = *it;
    d.free_blocks.erase(it);
  } else {
    void* ptr = nullptr;
    cudaError_t status = cudaMalloc(&ptr, size);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      release_cached(d, device);
      status = cudaMalloc(&ptr, size);
    }
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      out_of_memory(nbytes, device, d);
    }
    GB_CUDA_CHECK(status);
    block = new Block{ptr, size, device, stream};
    d.stats.reserved_bytes += static_cast<int64_t>(size);
    d.stats.peak_reserved_bytes = std::max(d.stats.peak_reserved_bytes, d.stats.reserved_bytes);
    ++d.stats.driver_allocations;
  }
  active_.emplace(block->ptr, block);
  d.stats.allocated_bytes += static_cast<int64_t>(block->size);
  d.stats.peak_allocated_bytes = std::max(d.stats.peak_allocated_bytes, d.stats.allocated_bytes);
  ++d.stats.active_blocks;
  ++d.stats.allocations;
  return block->ptr;
}

void CachingAllocator::deallocate(void* ptr, size_t) {
  if (!ptr) return;
  std::lock_guard lock(mutex_);
  const auto it = active_.find(ptr);
  if (it == active_.end()) {
    // Called from storage destructors: report rather than throw.
    std::fprintf(stderr, "glassbox: CUDA allocator asked to free %p, which it did not hand out\n", ptr);
    return;
  }
  Block* block = it->second;
  active_.erase(it);
  DeviceState& d = state(block->device);
  d.stats.allocated_bytes -= static_cast<int64_t>(block->size);
  --d.stats.active_blocks;
  d.free_blocks.insert(block);
}

CachingAllocator& caching_allocator() {
  static auto* a = new CachingAllocator();  // never destroyed: storages may outlive statics
  return *a;
}

// Registered when the library loads, GPU or not: without one, allocating names the reason.
[[maybe_unused]] const bool registered = [] {
  register_allocator(DeviceType::CUDA, &caching_allocator());
  return true;
}();
}  // namespace

MemoryStats memory_stats(int device) {
  if (!is_available()) return {};
  return caching_allocator().stats(checked_device_index(device, "memory_stats"));
}

void reset_peak_memory_stats(int device) {
  if (!is_available()) return;
  caching_allocator().reset_peak(checked_device_index(device, "reset_peak_memory_stats"));
}

void empty_cache() {
  if (is_available()) caching_allocator().empty_cache();
}

}  // namespace glassbox::cuda
