#pragma once
// The reduction family (sum, mean, prod, amax, amin, max, min, var, std, logsumexp, max.dim, min.dim,
// argmax, argmin, cumsum, softmax, log_softmax and their gradients, sort, topk): one front end (reductions.cpp) is each
// operator's kernel on CPU, CUDA and Meta. It checks the arguments and decides the result's shape and dtype
// (reduction_shape.h), allocates the result on the input's device and hands the configured plan to that device's
// ReductionBackend; Meta has none, so its kernel is the front end without compute.
#include <optional>

#include "engine/ops/backend_table.h"
#include "engine/ops/reduction_shape.h"

namespace glassbox {

enum class ReduceKind { Sum, Mean, Prod, Max, Min, Var, Std, LogSumExp };

// One reduction as the front end configured it.
struct ReducePlan {
  ReduceKind kind;
  ReductionShape shape;  // what is reduced, the result's shape and dtype
  double divisor = 1;    // var, std: the count less the correction (never negative)
};

// What a backend computes; each is called with a non-empty result, allocated contiguous on self's device.
struct ReductionBackend {
  // result (plan.shape.out_shape, plan.shape.dtype) = the reduction of self, given in the dtype to
  // compute in (reductions.cpp's compute_input).
  void (*reduce)(const ReducePlan& plan, const Tensor& self, Tensor& result);
  // indices (Int64) and, when defined, values (self's dtype) of the first extreme of self along dim,
  // or over the flattened tensor (row-major) when dim is empty; reduced: the plan's per-dim flags.
  void (*arg_extreme)(const Tensor& self, std::optional<int64_t> dim, const DimVector& reduced, bool largest,
                      Tensor& values, Tensor& indices);
  // result (self's shape, floating point or Int64) = the running sum of self along dim (wrapped).
  void (*cumsum)(const Tensor& self, int64_t dim, Tensor& result);
  // result (self's shape and floating dtype) = softmax of self along dim (log_softmax when log).
  void (*softmax)(const Tensor& self, int64_t dim, bool log, Tensor& result);
  // result (grad's shape and dtype) = the gradient of softmax (log_softmax when log) from grad_output
  // and the forward's output, which has grad's dtype.
  void (*softmax_backward)(const Tensor& grad, const Tensor& output, int64_t dim, bool log, Tensor& result);
  // values and indices (self's shape with k along dim) of the first k elements of self along dim in
  // stable ascending (descending) order; NaN sorts above every number.
  void (*sort)(const Tensor& self, int64_t k, int64_t dim, bool descending, Tensor& values, Tensor& indices);
};
using ReductionBackends = BackendTable<ReductionBackend>;

}  // namespace glassbox
