#include "engine/ops/join_reorder_copy.h"

#include "engine/core/empty.h"
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
  const Tensor result = triangle(op, self, diagonal, lower, zero_outside);
  return glassbox::copy_(self, result, false);
}

}  // namespace glassbox
