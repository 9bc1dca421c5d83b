#pragma once
// Page-locked ("pinned") host memory: the GPU's copy engines read and write it directly, so a
// copy between it and the device runs at full bus speed and, with non_blocking=true, without
// waiting for the host. Tensors made here are ordinary CPU tensors.
#include <span>

#include "engine/core/allocator.h"
#include "engine/core/tensor.h"

namespace glassbox::cuda {

// Caches freed blocks; a block is handed out again only once the work queued on the current
// stream when it was freed (the copies that read it) has finished.
Allocator& pinned_host_allocator();
// A contiguous CPU tensor in pinned memory.
Tensor empty_pinned(std::span<const int64_t> sizes, ScalarType dtype);
// Whether ptr points into page-locked host memory (false without a GPU).
bool is_pinned(const void* ptr);

}  // namespace glassbox::cuda
