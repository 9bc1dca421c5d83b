#include "engine/core/storage.h"

#include "engine/core/memory_observer.h"

namespace glassbox {

namespace detail {
std::atomic<MemoryObserver> memory_observer{nullptr};
}  // namespace detail

void set_memory_observer(MemoryObserver observer) { detail::memory_observer.store(observer); }

StorageImpl::StorageImpl(size_t nbytes, Allocator* allocator, Device device)
    : data_(allocator ? allocator->allocate(nbytes) : nullptr),
      nbytes_(nbytes),
      device_(device),
      allocator_(allocator) {
  if (allocator_ && nbytes_ > 0) detail::report_memory(static_cast<int64_t>(nbytes_), device_);
}

StorageImpl::StorageImpl(void* data, size_t nbytes, Device device, void (*deleter)(void*), void* ctx)
    : data_(data), nbytes_(nbytes), device_(device), deleter_(deleter), ctx_(ctx) {}

StorageImpl::~StorageImpl() {
  if (allocator_ && nbytes_ > 0) detail::report_memory(-static_cast<int64_t>(nbytes_), device_);
  if (allocator_) allocator_->deallocate(data_, nbytes_);
  else if (deleter_) deleter_(ctx_);
}

}  // namespace glassbox
