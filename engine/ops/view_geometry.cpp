#include "engine/ops/view_geometry.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/tensor_impl.h"

namespace glassbox {

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t n = ndim > 0 ? ndim : 1;  // a 0-d tensor behaves like one dimension here
  if (dim < -n || dim >= n) {
    throw IndexError(detail::str_cat(op, ": dimension out of range (expected to be in range of [", -n, ", ", n - 1,
                                     "], but got ", dim, ")"));
  }
  return dim < 0 ? dim + n : dim;
}

DimVector infer_view_size(std::span<const int64_t> shape, int64_t numel, const char* op) {
  DimVector out(shape);
  int64_t known = 1;
  std::optional<size_t> infer_at;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer_at)
        throw Error(detail::str_cat(op, ": only one dimension can be inferred, shape ", shape_to_string(shape)));
      infer_at = i;
    } else if (shape[i] < 0) {
      throw Error(detail::str_cat(op, ": invalid shape dimension ", shape[i], " in shape ", shape_to_string(shape)));
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      throw Error(detail::str_cat(op, ": shape ", shape_to_string(shape), " has more elements than int64 can count"));
    }
  }
  if (infer_at && known == 0) {
    throw Error(detail::str_cat(op, ": cannot reshape a tensor of ", numel, " elements into shape ",
                                shape_to_string(shape), " because the unspecified dimension size -1 can be any value"));
  }
  const bool fits = infer_at ? (known != 0 && numel % known == 0) : known == numel;
  if (!fits) {
    throw Error(detail::str_cat(op, ": shape '", shape_to_string(shape), "' is invalid for input of size ", numel));
  }
  if (infer_at) out[*infer_at] = numel / known;
  return out;
}

std::optional<DimVector> view_strides(std::span<const int64_t> sizes, std::span<const int64_t> strides,
                                      std::span<const int64_t> new_sizes) {
  const int64_t old_dims = static_cast<int64_t>(sizes.size());
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  // Nothing to address: keep the strides for the same shape, else lay the new shape out densely.
  if (numel == 0 || old_dims == 0) {
    if (numel == 0 && std::equal(sizes.begin(), sizes.end(), new_sizes.begin(), new_sizes.end()))
      return DimVector(strides);
    return contiguous_strides(new_sizes);
  }

  DimVector out(new_sizes.size());
  int64_t next_new = static_cast<int64_t>(new_sizes.size()) - 1;  // filled from the innermost dim outwards
  int64_t group_stride = strides[old_dims - 1];                   // stride of the group's innermost dim
  int64_t group_numel = 1;
  for (int64_t d = old_dims - 1; d >= 0; --d) {
    group_numel *= sizes[d];
    // The group goes on through dim d-1 while d-1 steps exactly over everything inside it
    // (size-1 dims never break a group: their stride is never used).
    const bool group_ends = d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != group_numel * group_stride);
    if (!group_ends) continue;
    // Hand out new dims (and any size-1 dims) until they cover the group's elements.
    int64_t covered = 1;
    while (next_new >= 0 && (covered < group_numel || new_sizes[next_new] == 1)) {
      out[next_new] = covered * group_stride;
      covered *= new_sizes[next_new];
      --next_new;
    }
    if (covered != group_numel) return std::nullopt;  // a new dim would straddle two groups
    if (d > 0) {
      group_stride = strides[d - 1];
      group_numel = 1;
    }
  }
  if (next_new != -1) return std::nullopt;
  return out;
}

}  // namespace glassbox
