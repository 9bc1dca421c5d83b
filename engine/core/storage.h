#pragma once
// Storage: a refcounted block of device memory. Views of a tensor share one storage; the version
// counter lives here too, so an in-place write through any view is seen by all of them.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "engine/core/allocator.h"
#include "engine/core/intrusive_ptr.h"
#include "engine/core/object_cache.h"

namespace glassbox {

class StorageImpl : public RefCounted {
 public:
  // Allocates nbytes from allocator (null allocator: no memory, e.g. the meta device).
  StorageImpl(size_t nbytes, Allocator* allocator, Device device);
  // Wraps memory owned elsewhere (NumPy, DLPack); deleter(ctx) runs when the storage dies.
  StorageImpl(void* data, size_t nbytes, Device device, void (*deleter)(void*), void* ctx);
  ~StorageImpl() override;

  // From the per-thread object cache (engine/core/object_cache.h), as TensorImpl.
  static void* operator new(size_t size) { return detail::object_allocate(size); }
  static void operator delete(void* p, size_t size) { detail::object_deallocate(p, size); }

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  uint64_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  Allocator* allocator_ = nullptr;
  void (*deleter_)(void*) = nullptr;
  void* ctx_ = nullptr;
  std::atomic<uint64_t> version_{0};
};

using Storage = intrusive_ptr<StorageImpl>;

}  // namespace glassbox
