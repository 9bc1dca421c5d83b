#pragma once
// Bool masks in the indices of index and index_put_, made integer index tensors for the kernels of
// every backend. How many elements a mask picks decides the result's shape, so the mask is read on
// the host (copied there first when it lives on a device).
#include <optional>
#include <vector>

#include "engine/core/tensor.h"

namespace glassbox {

// indices (checked, masks allowed) with every mask replaced by the integer index tensors of its
// true elements: one int64 tensor per dim it covers, in row-major order, on the mask's device.
std::vector<std::optional<Tensor>> expand_index_masks(const char* op, const Tensor& self, OptionalTensorList indices);

}  // namespace glassbox
