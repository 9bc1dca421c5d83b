#pragma once
// Shape and dtype inference of element-wise operators, shared by their Meta kernels and by the
// checks the CPU kernels make through TensorIterator (which computes the same thing).
#include "engine/core/tensor.h"

namespace glassbox {

struct ElementwiseResult {
  DimVector shape;
  ScalarType dtype;
  Device device;
};

// The broadcast shape and promoted dtype of `self op other`; integer inputs of true division
// give the default float dtype. Throws naming the operator, both shapes and both devices.
ElementwiseResult binary_result(const char* op_name, const Tensor& self, const Tensor& other,
                                bool int_to_float = false);

// Subtraction and negation are not defined for bool tensors (as in PyTorch).
void check_not_bool(const char* op_name, const Tensor& t, const char* hint);

}  // namespace glassbox
