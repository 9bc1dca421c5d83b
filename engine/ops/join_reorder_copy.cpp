// The join and reorder family's front end: cat, flip, roll, tril and triu on CPU, CUDA and Meta
// (see join_reorder_copy.h). Errors are raised here and in join_reorder_shape.cpp only.
#include "engine/ops/join_reorder_copy.h"

#include <algorithm>
#include <vector>

#include "engine/core/empty.h"
#include "engine/ops/out_arguments.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/cat.h"
#include "glassbox/ops/native/flip.h"
#include "glassbox/ops/native/roll.h"
#include "glassbox/ops/native/tril.h"
#include "glassbox/ops/native/triu.h"

namespace glassbox::native {

namespace {

// Copies each input that cat does not skip into its slice of out along r.dim (r from cat_result).
void copy_into_cat_slices(TensorList tensors, const CatResult& r, Tensor& out) {
  if (!ReorderBackends::of(r.device)) return;
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (cat_skips(t)) continue;
    const int64_t length = t.sizes()[r.dim];
    if (length == 0) continue;
    Tensor slice = glassbox::narrow(out, r.dim, offset, length);
    glassbox::copy_(slice, t, false);
    offset += length;
  }
}

// out (contiguous, src's shape) = src with dim d flipped (flips[d]) or rotated by shifts[d].
// Dims of size 1 stay out of the plan: whatever they say, their one index reads index 0.
void remap_into(const Tensor& src, Tensor& out, const std::vector<bool>& flips, const DimVector& shifts) {
  const ReorderBackend* backend = ReorderBackends::of(src.device());
  if (!backend || src.numel() == 0) return;
  RemapPlan plan;
  for (int64_t d = 0; d < src.dim(); ++d) {
    if (src.sizes()[d] == 1) continue;
    plan.sizes[plan.ndim] = src.sizes()[d];
    plan.in_strides[plan.ndim] = src.strides()[d];
    plan.flips[plan.ndim] = flips[d];
    plan.shifts[plan.ndim] = shifts[d];
    ++plan.ndim;
  }
  backend->remap(plan, src, out);
}

// Zeroes, in the contiguous t, what lies outside the triangle tril (lower) or triu keeps.
void zero_outside_triangle(Tensor& t, int64_t diagonal, bool lower) {
  if (t.numel() == 0) return;
  const int64_t rows = t.sizes()[t.dim() - 2], cols = t.sizes()[t.dim() - 1];
  ReorderBackends::of(t.device())->zero_outside_triangle({rows, cols, std::clamp(diagonal, -rows, cols), lower}, t);
  if (t.unsafe_impl()->storage()) t.unsafe_impl()->storage()->bump_version();
}

// tril/triu: a contiguous copy of self with what lies outside the triangle zeroed.
Tensor triangle(const char* op, const Tensor& self, int64_t diagonal, bool lower) {
  check_triangle_input(op, self);
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  if (!ReorderBackends::of(self.device())) return out;
  glassbox::copy_(out, self, false);
  zero_outside_triangle(out, diagonal, lower);
  return out;
}

// tril_/triu_: in place when self is contiguous, else through triangle and a copy back.
Tensor& triangle_(const char* op, Tensor& self, int64_t diagonal, bool lower) {
  check_triangle_input(op, self);
  if (!ReorderBackends::of(self.device())) return self;
  if (self.is_contiguous()) {
    zero_outside_triangle(self, diagonal, lower);
    return self;
  }
  if (has_internal_overlap(self)) {
    // An expanded self (PyTorch allows it): only the zeros are written, so an element that is both inside
    // and outside the triangle through its aliases ends up 0, as in PyTorch.
    Tensor inside = glassbox::ones(self.sizes(), ScalarType::Bool, self.device());
    zero_outside_triangle(inside, diagonal, lower);
    return self.masked_fill_(glassbox::logical_not(inside), Scalar(int64_t{0}));
  }
  const Tensor result = triangle(op, self, diagonal, lower);
  return glassbox::copy_(self, result, false);
}

}  // namespace

Tensor cat_generic(TensorList tensors, int64_t dim) {
  const CatResult r = cat_result("cat", tensors, dim);
  Tensor out = empty_tensor(r.shape, r.dtype, r.device);
  copy_into_cat_slices(tensors, r, out);
  return out;
}

Tensor& cat_out_generic(TensorList tensors, int64_t dim, Tensor& out) {
  const CatResult r = cat_result("cat.out", tensors, dim);
  check_cat_out(r, out);
  copy_into_cat_slices(tensors, r, out);
  return out;
}

Tensor flip_generic(const Tensor& self, IntArrayRef dims) {
  std::vector<bool> flips(static_cast<size_t>(self.dim()), false);
  for (int64_t d : flip_dims(self, dims))
    if (self.dim() > 0) flips[d] = true;
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  remap_into(self, out, flips, DimVector(static_cast<size_t>(self.dim()), 0));
  return out;
}

Tensor roll_generic(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  const RollPlan plan = roll_plan(self, shifts, dims);
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  if (plan.flattened && ReorderBackends::of(self.device())) {
    // Rolling the flattened tensor: a 1-d view of a contiguous copy, rotated as one dimension.
    const int64_t flat[] = {self.numel()};
    Tensor dst = out.view(flat);
    remap_into(self.contiguous().view(flat), dst, {false}, plan.shifts);
  } else if (!plan.flattened) {
    remap_into(self, out, std::vector<bool>(static_cast<size_t>(self.dim()), false), plan.shifts);
  }
  return out;
}

Tensor tril_generic(const Tensor& self, int64_t diagonal) { return triangle("tril", self, diagonal, true); }
Tensor triu_generic(const Tensor& self, int64_t diagonal) { return triangle("triu", self, diagonal, false); }
Tensor& tril_generic_(Tensor& self, int64_t diagonal) { return triangle_("tril_", self, diagonal, true); }
Tensor& triu_generic_(Tensor& self, int64_t diagonal) { return triangle_("triu_", self, diagonal, false); }

}  // namespace glassbox::native
