#pragma once
// The join and reorder family (cat, flip, roll, tril, triu): one front end (join_reorder_copy.cpp)
// is each operator's kernel on CPU, CUDA and Meta. It checks the arguments (join_reorder_shape.h),
// allocates the result and builds the plan (engine/ops/kernels/reorder.h); a backend only runs the
// element loop (ReorderBackend). cat copies each input into its slice of the output through copy_
// (any dtypes, any strides), so it needs no loop of its own. Meta has no backend: its kernel is the
// front end without compute.
#include "engine/ops/backend_table.h"
#include "engine/ops/join_reorder_shape.h"
#include "engine/ops/kernels/reorder.h"

namespace glassbox {

struct ReorderBackend {
  // out (contiguous, src's shape) = src remapped as the plan (built over src's dims) says. Elements
  // are moved whole, so any dtype of the same size takes the same loop.
  void (*remap)(const RemapPlan& plan, const Tensor& src, Tensor& out);
  // Zeroes, in the contiguous, non-empty t, what lies outside the kept triangle.
  void (*zero_outside_triangle)(const TrianglePlan& plan, Tensor& t);
};
using ReorderBackends = BackendTable<ReorderBackend>;

}  // namespace glassbox
