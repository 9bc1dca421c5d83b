#pragma once
// The combining rules of the reductions (for reduce_ori in reduce_loop.h) and the helpers that
// run one over a tensor and write the results in the result's dtype.
#include <cmath>
#include <vector>

#include "engine/core/empty.h"
#include "engine/cpu/reduce_loop.h"
#include "engine/cpu/vec_math.h"
#include "engine/ops/copy.h"
#include "engine/ops/kernels/reduce.h"
#include "engine/ops/reductions.h"
#include "glassbox/ops/copy.h"

namespace glassbox::cpu {

// Accumulator of sums and products: float for float16/bfloat16/float32, int64 for integers and bool.
template <class T>
using sum_acc_t = sum_acc_of<opmath_t<T>>;

// A combining rule of engine/ops/kernels/reduce.h as the loop of reduce_loop.h takes it.
template <class A, class Combine>
struct ReduceOp {
  using acc_t = A;
  A identity() const { return Combine::template identity<A>(); }
  A combine(A acc, A v) const { return Combine{}(acc, v); }
  A merge(A a, A b) const { return Combine{}(a, b); }
};
template <class A>
using SumOp = ReduceOp<A, SumCombine>;
template <class A>
using ProdOp = ReduceOp<A, ProdCombine>;
template <class A>
using MaxOp = ReduceOp<A, MaxCombine>;
template <class A>
using MinOp = ReduceOp<A, MinCombine>;
template <class A>
struct SumSquaresOp : SumOp<A> {
  A combine(A acc, A v) const { return acc + v * v; }
};
template <class A>
struct SumExpOp : SumOp<A> {
  A combine(A acc, A v) const { return acc + exp_acc(v); }
};

// The reduction of a [outer, reduced, inner] geometry, one accumulator per result.
template <class T, class Op, bool kCentered = false>
std::vector<typename Op::acc_t> reduce_values(const ReduceGeometry& g, const Op& op,
                                              const typename Op::acc_t* center = nullptr) {
  std::vector<typename Op::acc_t> out(static_cast<size_t>(g.outer * g.inner));
  const T* x = g.data.numel() ? g.data.template data<T>() : nullptr;
  reduce_ori<Op, T, kCentered>(x, g.outer, g.reduced, g.inner, op, center, out.data());
  return out;
}

// result (contiguous) [k] = project(values[k], k), converted to the result's dtype.
template <class A, class Project>
void write_values(Tensor& result, const std::vector<A>& values, Project project) {
  visit_scalar_type(result.dtype(), [&]<class R>() {
    R* dst = result.template data<R>();
    for (size_t k = 0; k < values.size(); ++k) dst[k] = convert_value<R>(project(values[k], k));
  });
}

// The CPU's computes of the reduction family (engine/ops/reductions.h), one per file.
void variance_into(const ReducePlan& plan, const Tensor& self, Tensor& result);   // reduce_stats_kernels.cpp
void logsumexp_into(const ReducePlan& plan, const Tensor& self, Tensor& result);  // reduce_stats_kernels.cpp
void arg_extreme_into(const Tensor& self, std::optional<int64_t> dim, const DimVector& reduced, bool largest,
                      Tensor& values, Tensor& indices);                        // arg_reduce_kernels.cpp
void cumsum_into(const Tensor& self, int64_t dim, Tensor& result);             // scan_kernels.cpp
void softmax_into(const Tensor& self, int64_t dim, bool log, Tensor& result);  // softmax_kernels.cpp
void softmax_backward_into(const Tensor& grad, const Tensor& output, int64_t dim, bool log,
                           Tensor& result);  // softmax_kernels.cpp
void sort_into(const Tensor& self, int64_t k, int64_t dim, bool descending, Tensor& values,
               Tensor& indices);  // sort_kernels.cpp

}  // namespace glassbox::cpu
