#pragma once
// Layer normalisation, what both backends share: the operands (engine/ops/layer_norm_operands.h),
// a row's rstd from its sum of squared deviations (sums in double on both), and each element's
// output and gradient. How a row's sums are gathered differs: a loop per row on the CPU, a warp or
// block per row on CUDA.
#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"
#include "engine/ops/backend_table.h"
#include "engine/ops/layer_norm_operands.h"

namespace glassbox::kernels {

GLASSBOX_HOST_DEVICE inline double layer_norm_rstd(double squared_deviations, int64_t n, double eps) {
  return 1.0 / std::sqrt(squared_deviations / static_cast<double>(n) + eps);
}

// Element j of a normalised row: (x - mean) * rstd, scaled by w[j] and shifted by b[j] where given.
template <class C, class T>
GLASSBOX_HOST_DEVICE C layer_norm_output(C x, C mean, C rstd, const T* w, const T* b, int64_t j) {
  C y = (x - mean) * rstd;
  if (w) y *= static_cast<C>(w[j]);
  if (b) y += static_cast<C>(b[j]);
  return y;
}

// With xhat = (x - mean) * rstd and g = grad_out * weight (weight 1 when absent), per row of n:
//   grad_input = rstd * (g - mean(g) - xhat * mean(g * xhat)), in the arithmetic type A.
template <class A>
GLASSBOX_HOST_DEVICE A layer_norm_grad_input(A rstd, A g, A xhat, A mean_g, A mean_gx) {
  return rstd * (g - mean_g - xhat * mean_gx);
}

struct LayerNormBackend {
  void (*forward)(LayerNormOperands& o, double eps);  // fills out, mean and rstd
  void (*backward)(LayerNormBackwardOperands& o);     // fills grad_in, grad_w and grad_b
};
using LayerNormBackends = BackendTable<LayerNormBackend>;

}  // namespace glassbox::kernels
