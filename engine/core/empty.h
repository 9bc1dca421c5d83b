#pragma once
// Making tensors with fresh memory: the allocator of each device type, and empty tensors.
#include <span>

#include "engine/core/allocator.h"
#include "engine/core/scalar.h"
#include "engine/core/tensor.h"

namespace glassbox {

// The CPU allocator is registered by the core; glassbox_cuda registers the CUDA one when it loads.
void register_allocator(DeviceType type, Allocator* allocator);
// Throws a clear error for a device type without an allocator (e.g. cuda in a CPU-only build).
Allocator& allocator_for(DeviceType type);

// A contiguous tensor with uninitialised memory (meta tensors get no memory).
Tensor empty_tensor(std::span<const int64_t> sizes, ScalarType dtype, Device device);
Tensor empty_strided_tensor(std::span<const int64_t> sizes, std::span<const int64_t> strides, ScalarType dtype,
                            Device device);
// A 0-d CPU tensor holding s (int64, float64 or bool), marked as a wrapped number.
Tensor wrap_scalar(const Scalar& s);

}  // namespace glassbox
