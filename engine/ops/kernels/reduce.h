#pragma once
// The combining rules of the reductions, written once for the CPU loops (engine/cpu/reduce_ops.h,
// reduce_loop.h) and the CUDA kernels (engine/cuda/reduce_kernels.cu, reduce_dim_kernels.cu), and
// the accumulator types they agree on. C below is a dtype's compute type (opmath_t of either backend).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "engine/core/host_device.h"

namespace glassbox {

// Sums and products accumulate in the compute type when it is floating point, in int64 otherwise.
template <class C>
using sum_acc_of = std::conditional_t<std::is_floating_point_v<C>, C, int64_t>;
// Extremes compare in the compute type; small integers and bool widen to int32 (what CUDA shuffles).
template <class T, class C>
using extreme_acc_of = std::conditional_t<std::is_floating_point_v<C> || std::is_same_v<T, int64_t>, C, int32_t>;
// var and std: float32 (and half) values accumulate in double, as squares of deviations past 1.8e19
// overflow a float although their variance's square root (std) is in range.
template <class C>
using variance_acc_of = std::conditional_t<std::is_same_v<C, float>, double, C>;

// A combining rule: operator() folds a value into an accumulator (and merges two accumulators);
// identity<A>() is the accumulator of nothing, computed on the host.
struct SumCombine {
  template <class A>
  static A identity() {
    return A(0);
  }
  template <class A>
  GLASSBOX_HOST_DEVICE A operator()(A acc, A v) const {
    return acc + v;
  }
};
struct ProdCombine {
  template <class A>
  static A identity() {
    return A(1);
  }
  template <class A>
  GLASSBOX_HOST_DEVICE A operator()(A acc, A v) const {
    return acc * v;
  }
};
// A NaN, once met, stays: no comparison replaces it (v != v is false for integers).
struct MaxCombine {
  template <class A>
  static A identity() {
    if constexpr (std::numeric_limits<A>::has_infinity) return -std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::lowest();
  }
  template <class A>
  GLASSBOX_HOST_DEVICE A operator()(A acc, A v) const {
    return (v > acc || v != v) ? v : acc;
  }
};
struct MinCombine {
  template <class A>
  static A identity() {
    if constexpr (std::numeric_limits<A>::has_infinity) return std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::max();
  }
  template <class A>
  GLASSBOX_HOST_DEVICE A operator()(A acc, A v) const {
    return (v < acc || v != v) ? v : acc;
  }
};

// argmax/argmin and max.dim/min.dim: whether v, met after best, replaces it. The first extreme wins
// ties, and NaN counts as the extreme (its first index wins).
template <class A>
GLASSBOX_HOST_DEVICE bool replaces_extreme(A v, A best, bool largest) {
  return (largest ? v > best : v < best) || (v != v && best == best);
}

// var and std from the sum of squared deviations from the mean; divisor = max(0, count - correction).
template <class A>
GLASSBOX_HOST_DEVICE A variance_from(A sum_squares, double divisor, bool take_sqrt) {
  const A v = static_cast<A>(sum_squares / divisor);
  return take_sqrt ? std::sqrt(v) : v;
}

// logsumexp sums exp(x - centre), the centre being the maximum, or 0 when that is not finite (all
// -inf, some +inf or NaN: exp() decides).
template <class A>
GLASSBOX_HOST_DEVICE A logsumexp_center(A max) {
  return std::isfinite(max) ? max : A(0);
}

}  // namespace glassbox
