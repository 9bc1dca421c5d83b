#pragma once
// The check every out= overload makes of its `out` tensor before writing into it.
#include <span>

#include "engine/core/tensor.h"

namespace glassbox {

// Throws (naming the operator) unless out is defined and has exactly this shape, dtype and device.
void check_out(const char* op, const Tensor& out, std::span<const int64_t> shape, ScalarType dtype, Device device);

}  // namespace glassbox
