#pragma once
// The gradient of softmax and log_softmax, the arithmetic both backends share, from grad_output g
// and the forward's output y along the dim:
//   softmax: y * (g - sum(g * y));  log_softmax: g - exp(y) * sum(g).
// The CPU runs SoftmaxBackwardColumn for every slice along the dim, CUDA for slices along a
// non-last dim (one thread each); CUDA's rows combine the sum across a warp or block first.
#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"

namespace glassbox::kernels {

// One term of the sum, and an element's gradient once the sum `dot` is known, in A.
template <bool kLog, class A>
GLASSBOX_HOST_DEVICE A softmax_grad_term(A g, A y) {
  return kLog ? g : g * y;
}
template <bool kLog, class A>
GLASSBOX_HOST_DEVICE A softmax_grad_input(A g, A y, A dot) {
  return kLog ? g - std::exp(y) * dot : y * (g - dot);
}

// Slice `column` = (o, i) of [outer, n, inner] blocks g, y and dx (contiguous).
template <class T, class A, bool kLog>
struct SoftmaxBackwardColumn {
  const T* g;
  const T* y;
  T* dx;
  int64_t n, inner;
  GLASSBOX_HOST_DEVICE void operator()(int64_t column) const {
    const int64_t base = column / inner * n * inner + column % inner;
    A dot = 0;
    for (int64_t r = 0; r < n; ++r)
      dot += softmax_grad_term<kLog>(static_cast<A>(g[base + r * inner]), static_cast<A>(y[base + r * inner]));
    for (int64_t r = 0; r < n; ++r) {
      const A gv = static_cast<A>(g[base + r * inner]), yv = static_cast<A>(y[base + r * inner]);
      dx[base + r * inner] = static_cast<T>(softmax_grad_input<kLog>(gv, yv, dot));
    }
  }
};

}  // namespace glassbox::kernels
