#pragma once
// flip, roll, tril and triu element by element, written once for the CPU loops
// (engine/cpu/reorder_kernels.cpp) and the CUDA kernels (engine/cuda/shape_kernels.cu). The plans
// are built by the family's front end (engine/ops/join_reorder_copy.cpp).
#include <cstdint>

#include "engine/core/host_device.h"

namespace glassbox {

// Dims of size 1 are left out of a plan, so 63 dims cover every tensor that fits in memory.
inline constexpr int kMaxRemapDims = 64;

// flip and roll as one remapping of a tensor's dims: output index i of dim d reads input index
// size-1-i when d is flipped, else i - shift (mod size).
struct RemapPlan {
  int ndim = 0;
  int64_t sizes[kMaxRemapDims];
  int64_t in_strides[kMaxRemapDims];  // elements
  int64_t shifts[kMaxRemapDims];      // in [0, size)
  bool flips[kMaxRemapDims];
};

// The input index that output index i of plan dim d reads.
GLASSBOX_HOST_DEVICE inline int64_t remapped_index(const RemapPlan& r, int d, int64_t i) {
  const int64_t j = r.flips[d] ? r.sizes[d] - 1 - i : i - r.shifts[d];
  return j < 0 ? j + r.sizes[d] : j;
}

// The input element offset that output row `row` (all plan dims but the last, row-major) reads from.
GLASSBOX_HOST_DEVICE inline int64_t remapped_row_offset(const RemapPlan& r, int64_t row) {
  int64_t offset = 0;
  for (int d = r.ndim - 2; d >= 0; --d) {
    const int64_t i = row % r.sizes[d];
    row /= r.sizes[d];
    offset += remapped_index(r, d, i) * r.in_strides[d];
  }
  return offset;
}

// The input element offset that output element e (row-major) reads.
GLASSBOX_HOST_DEVICE inline int64_t remapped_offset(const RemapPlan& r, int64_t e) {
  if (r.ndim == 0) return 0;
  const int last = r.ndim - 1;
  return remapped_row_offset(r, e / r.sizes[last]) + remapped_index(r, last, e % r.sizes[last]) * r.in_strides[last];
}

// tril (lower) keeps column j <= i + diagonal of row i of every matrix of the last two dims, triu
// keeps j >= i + diagonal. The diagonal is clamped to [-rows, cols]: diagonals past either corner
// behave like the corner one, and i + diagonal cannot overflow.
struct TrianglePlan {
  int64_t rows, cols, diagonal;
  bool lower;
};

// The columns [begin, end) that row i of each matrix loses (end <= begin: none).
struct ColumnRange {
  int64_t begin, end;
};
GLASSBOX_HOST_DEVICE inline int64_t clamp_column(const TrianglePlan& t, int64_t j) {
  return j < 0 ? int64_t{0} : j > t.cols ? t.cols : j;
}
GLASSBOX_HOST_DEVICE inline ColumnRange zeroed_columns(const TrianglePlan& t, int64_t i) {
  return t.lower ? ColumnRange{clamp_column(t, i + t.diagonal + 1), t.cols}
                 : ColumnRange{0, clamp_column(t, i + t.diagonal)};
}

// Whether element e (row-major, in a contiguous tensor) lies outside the kept triangle.
GLASSBOX_HOST_DEVICE inline bool outside_triangle(const TrianglePlan& t, int64_t e) {
  const int64_t j = e % t.cols;
  const ColumnRange z = zeroed_columns(t, e / t.cols % t.rows);
  return j >= z.begin && j < z.end;
}

}  // namespace glassbox
