#pragma once
// The combining rules of the reductions (for reduce_ori in reduce_loop.h) and the helpers that
// run one over a tensor and write the results in the result's dtype.
#include <cmath>
#include <limits>
#include <vector>

#include "engine/core/empty.h"
#include "engine/cpu/reduce_loop.h"
#include "engine/cpu/vec_math.h"
#include "engine/ops/copy.h"
#include "engine/ops/reductions.h"
#include "glassbox/ops/copy.h"

namespace glassbox::cpu {

// Accumulator of sums and products: float for float16/bfloat16/float32, int64 for integers and bool.
template <class T>
using sum_acc_t = std::conditional_t<std::is_floating_point_v<opmath_t<T>>, opmath_t<T>, int64_t>;

template <class A>
struct SumOp {
  using acc_t = A;
  A identity() const { return A(0); }
  A combine(A acc, A v) const { return acc + v; }
  A merge(A a, A b) const { return a + b; }
};
template <class A>
struct ProdOp {
  using acc_t = A;
  A identity() const { return A(1); }
  A combine(A acc, A v) const { return acc * v; }
  A merge(A a, A b) const { return a * b; }
};
// NaN wins: once the accumulator is NaN no comparison replaces it.
template <class A>
struct MaxOp {
  using acc_t = A;
  A identity() const {
    if constexpr (std::numeric_limits<A>::has_infinity) return -std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::lowest();
  }
  A combine(A acc, A v) const { return (v > acc || v != v) ? v : acc; }
  A merge(A a, A b) const { return combine(a, b); }
};
template <class A>
struct MinOp {
  using acc_t = A;
  A identity() const {
    if constexpr (std::numeric_limits<A>::has_infinity) return std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::max();
  }
  A combine(A acc, A v) const { return (v < acc || v != v) ? v : acc; }
  A merge(A a, A b) const { return combine(a, b); }
};
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

// self in dtype t (a copy when it differs).
inline Tensor converted(const Tensor& self, ScalarType t) {
  if (self.dtype() == t) return self;
  Tensor out = empty_tensor(self.sizes(), t, self.device());
  glassbox::copy_(out, self, false);
  return out;
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
