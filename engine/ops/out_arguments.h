#pragma once
// The checks of a tensor an operator writes into: an out= argument (resized to the result's shape,
// as PyTorch does) and any written tensor (no two elements may share one memory location).
#include <span>

#include "engine/core/tensor.h"

namespace glassbox {

// Throws (naming the operator) unless out is defined with this dtype and on this device, and does not
// overlap itself; then gives it `shape` (resize_output).
void check_out(const char* op, const Tensor& out, std::span<const int64_t> shape, ScalarType dtype, Device device);

// Gives out `shape`, contiguous, unless it has that shape already (PyTorch's rule for out= of another
// shape): its storage is reused when large enough, else replaced by a larger one. Resizing an out with
// elements warns (PyTorch deprecates it); an empty out is the way to ask for resizing. True if resized.
bool resize_output(const char* op, const Tensor& out, std::span<const int64_t> shape);

// True when several elements of t share one memory location (see check_no_internal_overlap).
bool has_internal_overlap(const Tensor& t);

// Throws when several elements of t share one memory location (a zero stride on a dim of size > 1,
// as expand() makes): a write through t would land once per alias, the last one winning.
void check_no_internal_overlap(const char* op, const Tensor& t);

}  // namespace glassbox
