#pragma once
// The front end every reduction shares (sum, mean, amax, var, ...) and the dim checks of the
// operators that work along one dim (cumsum, softmax, sort, topk), called by the family's front end
// (reductions.cpp, every device's kernel), so a shape or dtype error reads the same on every device.
#include <optional>

#include "engine/core/tensor.h"
#include "engine/ops/out_arguments.h"

namespace glassbox {

// `dim` wrapped into [0, ndim) (a 0-d tensor accepts 0 and -1). Throws IndexError naming the
// operator, the dim and the tensor's shape.
int64_t wrap_dim(const char* op, int64_t dim, const Tensor& self);

struct ReductionShape {
  DimVector out_shape;    // the result's shape
  DimVector reduced;      // per dim of self: 1 where it is reduced
  int64_t reduced_numel;  // how many elements each result combines
  ScalarType dtype;       // the result's dtype
};

// Reduces `dims` of self (none or empty: every dim), keeping them as size 1 when keepdim.
// Repeated dims and dims out of range raise.
ReductionShape reduction_shape(const char* op, const Tensor& self, std::optional<IntArrayRef> dims, bool keepdim,
                               ScalarType result_dtype);

// A reduction's input as a contiguous [outer, reduced, inner] block whose results come out in the
// order of the kept dims, for every backend's loops: a view of self when the reduced dims (flagged in
// `reduced`, ignoring size-1 dims) form one run of a contiguous tensor, else a permuted copy with the
// reduced dims last (inner 1). rows_only asks for inner 1 always (kernels that take whole rows).
struct ReduceGeometry {
  Tensor data;
  int64_t outer = 1, reduced = 1, inner = 1;
};
ReduceGeometry reduce_geometry(const Tensor& self, const DimVector& reduced, bool rows_only = false);
// The [outer, size, inner] view of self along one dim (a copy when self is not contiguous).
ReduceGeometry dim_geometry(const Tensor& self, int64_t dim);

// The result dtypes of the reduction families, as PyTorch picks them.
enum class ReductionDtype {
  Accumulate,  // sum, prod: integers and bool give int64; `dtype` overrides
  Mean,        // floating point only (integers raise unless `dtype` is floating point)
  Same,        // amax, amin, max, min: the input's dtype
  Floating,    // var, std: floating point only
  ToFloat,     // logsumexp: integers give the default float dtype
};
ScalarType reduction_dtype(const char* op, const Tensor& self, std::optional<ScalarType> dtype, ReductionDtype kind);

// Operators without an identity (max, amax, argmax, ...) cannot reduce an empty set.
void check_reduction_nonempty(const char* op, const Tensor& self, const ReductionShape& shape);

// The result of a dim-wise op (cumsum, softmax) given an optional dtype: floating point results
// for softmax-like ops (integers raise), int64 for integer cumsums.
ScalarType softmax_dtype(const char* op, const Tensor& self, std::optional<ScalarType> dtype);
ScalarType cumsum_dtype(const Tensor& self, std::optional<ScalarType> dtype);

// _softmax_backward_data / _log_softmax_backward_data: grad_output and output of one shape,
// floating point, dim in range, input_dtype floating point.
void softmax_backward_shape(const char* op, const Tensor& grad, const Tensor& output, int64_t dim,
                            ScalarType input_dtype);

// The value shape and checks of topk along `dim` (k in [0, size]).
DimVector topk_shape(const Tensor& self, int64_t k, int64_t dim);

}  // namespace glassbox
