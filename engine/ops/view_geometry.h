#pragma once
// The stride arithmetic behind views: dimension wrapping, -1 inference, and whether a new shape
// can be laid over existing strides without copying. Shared by view, reshape and flatten.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "engine/core/dim_vector.h"
#include "engine/core/tensor_impl.h"  // shape_to_string

namespace glassbox {

// Wraps a possibly negative dim into [0, ndim). A 0-d tensor accepts dims -1 and 0, as in
// PyTorch. Throws "<op>: dimension out of range (expected to be in range of [-n, n-1], but got d)".
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);

// `shape` with its single -1 (if any) replaced so the product equals numel. Throws naming the op
// when there are two -1s, a negative size, or the product cannot match.
DimVector infer_view_size(std::span<const int64_t> shape, int64_t numel, const char* op);

// Strides that let `new_sizes` (same number of elements) address the same elements, in the same
// logical order, as a tensor of `sizes` and `strides`; nullopt when no such strides exist. Old
// dimensions are cut into groups that are contiguous within themselves (each stride equals the
// next one times the next size); a view exists when every new dimension falls inside one group.
std::optional<DimVector> view_strides(std::span<const int64_t> sizes, std::span<const int64_t> strides,
                                      std::span<const int64_t> new_sizes);

}  // namespace glassbox
