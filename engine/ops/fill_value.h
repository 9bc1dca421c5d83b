#pragma once
// The check of a number written as such into a tensor (fill_, full, masked_fill, t[i] = v): it must
// fit the tensor's dtype, as PyTorch requires, and so must add/sub's alpha. Arithmetic with numbers (t + 300 on
// int8) wraps instead.
#include "engine/core/scalar.h"
#include "engine/core/scalar_type.h"

namespace glassbox {

// Throws (a RuntimeError naming op, the value and the dtype) when value overflows dtype. PyTorch's
// rules: bool takes anything; integers take numbers within their range, and unsigned ones also
// negative integers down to -max (they wrap, as in two's complement), but neither NaN nor infinities;
// float32 and float64 take any integer, infinities and NaN, and finite values within their range.
// float16 and bfloat16 take anything (rounding to inf): PyTorch itself checks them inconsistently
// (full(1e5, dtype=float16) gives inf, fill_(1e5) raises).
void check_fill_value(const char* op, const Scalar& value, ScalarType dtype);

// add/sub's alpha in the dtype they compute in, as PyTorch checks it: a bool alpha only for bool results,
// and (check_fill_value) a value that fits. The default alpha of 1 returns at once.
void check_alpha(const char* op, const Scalar& alpha, ScalarType dtype);

}  // namespace glassbox
