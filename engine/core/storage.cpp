#include "engine/core/storage.h"

namespace glassbox {

StorageImpl::StorageImpl(size_t nbytes, Allocator* allocator, Device device)
    : data_(allocator ? allocator->allocate(nbytes) : nullptr), nbytes_(nbytes), device_(device), allocator_(allocator) {}

StorageImpl::StorageImpl(void* data, size_t nbytes, Device device, void (*deleter)(void*), void* ctx)
    : data_(data), nbytes_(nbytes), device_(device), deleter_(deleter), ctx_(ctx) {}

StorageImpl::~StorageImpl() {
  if (allocator_) allocator_->deallocate(data_, nbytes_);
  else if (deleter_) deleter_(ctx_);
}

}  // namespace glassbox
