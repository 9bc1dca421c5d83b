#include "engine/cuda/pinned_memory.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/cuda_error.h"
#include "engine/cuda/stream.h"

namespace glassbox::cuda {

namespace {
constexpr size_t kRound = 4096;  // a page

struct PinnedBlock {
  void* ptr;
  size_t size;
  cudaEvent_t freed = nullptr;  // recorded on the current stream at deallocation
};

class PinnedHostAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes) override {
    if (nbytes == 0) return nullptr;
    check_available("pinned host allocation");
    const size_t size = (nbytes + kRound - 1) / kRound * kRound;
    std::lock_guard lock(mutex_);
    for (auto it = free_.lower_bound(size); it != free_.end() && it->first <= 2 * size; ++it) {
      PinnedBlock* b = it->second;
      const cudaError_t done = cudaEventQuery(b->freed);
      if (done == cudaErrorNotReady) {
        cudaGetLastError();
        continue;  // a copy may still read it
      }
      GB_CUDA_CHECK(done);
      free_.erase(it);
      active_.emplace(b->ptr, b);
      return b->ptr;
    }
    void* ptr = nullptr;
    GB_CUDA_CHECK(cudaHostAlloc(&ptr, size, cudaHostAllocDefault));
    auto* b = new PinnedBlock{ptr, size};
    GB_CUDA_CHECK(cudaEventCreateWithFlags(&b->freed, cudaEventDisableTiming));
    active_.emplace(ptr, b);
    return ptr;
  }

  void deallocate(void* ptr, size_t) override {
    if (!ptr) return;
    std::lock_guard lock(mutex_);
    const auto it = active_.find(ptr);
    if (it == active_.end()) {
      std::fprintf(stderr, "glassbox: pinned allocator asked to free %p, which it did not hand out\n", ptr);
      return;
    }
    PinnedBlock* b = it->second;
    active_.erase(it);
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaEventRecord(b->freed, current_stream(device).handle()) != cudaSuccess) {
      cudaGetLastError();
      cudaDeviceSynchronize();  // cannot mark the point: make sure nothing reads the block any more
      cudaGetLastError();
    }
    free_.emplace(b->size, b);
  }

  Device device() const override { return Device(DeviceType::CPU); }

 private:
  std::mutex mutex_;
  std::multimap<size_t, PinnedBlock*> free_;
  std::unordered_map<void*, PinnedBlock*> active_;
};
}  // namespace

Allocator& pinned_host_allocator() {
  static auto* a = new PinnedHostAllocator();  // never destroyed: storages may outlive statics
  return *a;
}

Tensor empty_pinned(std::span<const int64_t> sizes, ScalarType dtype) {
  const int64_t numel = checked_numel(sizes, "empty_pinned");
  const auto nbytes = static_cast<size_t>(numel) * element_size(dtype);
  const Device cpu(DeviceType::CPU);
  Storage storage = Storage::make(nbytes, &pinned_host_allocator(), cpu);
  return Tensor(
      intrusive_ptr<TensorImpl>::make(std::move(storage), default_key_set(DeviceType::CPU), dtype, cpu, sizes));
}

bool is_pinned(const void* ptr) {
  if (!ptr || !is_available()) return false;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

}  // namespace glassbox::cuda
