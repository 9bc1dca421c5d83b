#pragma once
// Memory for the core's small objects that come and go with every operator call (TensorImpl,
// StorageImpl): each thread keeps the blocks it freed, by size class, and hands them out again.
// A one-element operation makes and drops two of each; the C library's allocator costs more than
// the rest of the object's life.
#include <cstddef>

namespace glassbox::detail {

// At least alignof(std::max_align_t); never null (throws std::bad_alloc).
void* object_allocate(size_t size);
// `size` must be what object_allocate was given.
void object_deallocate(void* p, size_t size) noexcept;

}  // namespace glassbox::detail
