#pragma once
// Shape and dtype inference of cat, flip, roll, tril and triu, for their front end
// (join_reorder_copy.cpp).
#include "engine/core/tensor.h"

namespace glassbox {

struct CatResult {
  DimVector shape;
  ScalarType dtype;  // promoted across every input
  Device device;
  int64_t dim;  // wrapped
};

// PyTorch's legacy rule: a 1-d tensor of size 0 joins any cat and contributes nothing.
inline bool cat_skips(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

// Throws naming the operator (`op`, "cat" or "stack"), the offending input's position and shape.
CatResult cat_result(const char* op, TensorList tensors, int64_t dim);

// cat.out's out may hold the result in a wider category (int into float) but not a narrower one; it is
// resized to the result's shape (resize_output).
void check_cat_out(const CatResult& r, const Tensor& out);

// The dims to flip, wrapped; throws on a repeated dim.
DimVector flip_dims(const Tensor& self, IntArrayRef dims);

// Per-dimension shifts in [0, size) (accumulated when a dim repeats). With no dims the tensor is
// rolled as if flattened: one shift over numel elements.
struct RollPlan {
  bool flattened = false;
  DimVector shifts;  // one per dim of self (or one when flattened)
};
RollPlan roll_plan(const Tensor& self, IntArrayRef shifts, IntArrayRef dims);

// tril/triu work on the last two dims: self needs at least two.
void check_triangle_input(const char* op, const Tensor& self);

}  // namespace glassbox
