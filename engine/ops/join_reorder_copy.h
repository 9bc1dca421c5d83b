#pragma once
// The device-agnostic halves of the cat, tril and triu kernels: cat copies each input into its
// slice of the output through copy_ (any dtypes, any strides), and tril/triu copy self before a
// backend zeroes what lies outside the kept triangle. The CPU and CUDA kernels both call these.
#include "engine/ops/join_reorder_shape.h"

namespace glassbox {

// Copies each input that cat does not skip into its slice of out along r.dim (r from cat_result).
void copy_into_cat_slices(TensorList tensors, const CatResult& r, Tensor& out);

// A backend's part of tril/triu: zeroes, in a contiguous tensor, what lies outside the kept
// triangle of every matrix of its last two dims (lower: tril, else triu).
using ZeroOutsideTriangle = void (*)(Tensor& t, int64_t diagonal, bool lower);

// tril/triu: a contiguous copy of self with zero_outside applied.
Tensor triangle(const char* op, const Tensor& self, int64_t diagonal, bool lower, ZeroOutsideTriangle zero_outside);
// tril_/triu_: in place when self is contiguous, else through triangle and a copy back.
Tensor& triangle_(const char* op, Tensor& self, int64_t diagonal, bool lower, ZeroOutsideTriangle zero_outside);

}  // namespace glassbox
