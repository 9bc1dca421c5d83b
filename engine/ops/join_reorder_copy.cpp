#include "engine/ops/join_reorder_copy.h"

#include "engine/core/empty.h"
#include "engine/ops/out_arguments.h"
#include "glassbox/ops/Functions.h"

namespace glassbox {

void copy_into_cat_slices(TensorList tensors, const CatResult& r, Tensor& out) {
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

Tensor triangle(const char* op, const Tensor& self, int64_t diagonal, bool lower, ZeroOutsideTriangle zero_outside) {
  check_triangle_input(op, self);
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  glassbox::copy_(out, self, false);
  zero_outside(out, diagonal, lower);
  return out;
}

Tensor& triangle_(const char* op, Tensor& self, int64_t diagonal, bool lower, ZeroOutsideTriangle zero_outside) {
  check_triangle_input(op, self);
  if (self.is_contiguous()) {
    zero_outside(self, diagonal, lower);
    return self;
  }
  if (has_internal_overlap(self)) {
    // An expanded self (PyTorch allows it): only the zeros are written, so an element that is both inside
    // and outside the triangle through its aliases ends up 0, as in PyTorch.
    Tensor inside = glassbox::ones(self.sizes(), ScalarType::Bool, self.device());
    zero_outside(inside, diagonal, lower);
    return self.masked_fill_(glassbox::logical_not(inside), Scalar(int64_t{0}));
  }
  const Tensor result = triangle(op, self, diagonal, lower, zero_outside);
  return glassbox::copy_(self, result, false);
}

}  // namespace glassbox
