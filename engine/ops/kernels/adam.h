#pragma once
// One Adam (or AdamW) step of one parameter, element by element, written once for both backends:
// the CPU runs AdamUpdate in a parallel loop, CUDA one thread per element. The arithmetic is that
// of the seven-kernel form it replaces (gb.optim.Adam without `fused`), in the dtype's compute type:
//   decoupled: p *= 1 - lr * wd        otherwise: g += wd * p   (when wd != 0)
//   m += (1 - beta1) * (g - m)         v = v * beta2 + (1 - beta2) * g * g
//   p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
// The front end (engine/ops/fused_adam.cpp) checks the lists and computes the per-step constants.
#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"
#include "engine/core/tensor.h"
#include "engine/ops/backend_table.h"
#include "engine/ops/kernels/element.h"

namespace glassbox::kernels {

// A step's constants, in double; each kernel rounds them to its compute type once.
struct AdamConstants {
  double beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  double step_size = 0;   // lr / (1 - beta1^t)
  double bias2_sqrt = 0;  // sqrt(1 - beta2^t)
  double decay = 1;       // 1 - lr * weight_decay (decoupled weight decay)
  bool decoupled = false;
};

// T: the element type as stored (the device's for CUDA); C: the type it computes in.
template <class T, class C>
struct AdamUpdate {
  T* param;
  const T* grad;
  T* exp_avg;
  T* exp_avg_sq;
  C one_minus_beta1, beta2, one_minus_beta2, eps, weight_decay, step_size, bias2_sqrt, decay;
  bool decoupled;

  AdamUpdate(T* p, const T* g, T* m, T* v, const AdamConstants& k)
      : param(p),
        grad(g),
        exp_avg(m),
        exp_avg_sq(v),
        one_minus_beta1(C(1 - k.beta1)),
        beta2(C(k.beta2)),
        one_minus_beta2(C(1 - k.beta2)),
        eps(C(k.eps)),
        weight_decay(C(k.weight_decay)),
        step_size(C(k.step_size)),
        bias2_sqrt(C(k.bias2_sqrt)),
        decay(C(k.decay)),
        decoupled(k.decoupled) {}

  GLASSBOX_HOST_DEVICE void operator()(int64_t i) const {
    C p = static_cast<C>(param[i]), g = static_cast<C>(grad[i]);
    C m = static_cast<C>(exp_avg[i]), v = static_cast<C>(exp_avg_sq[i]);
    if (weight_decay != C(0)) {
      if (decoupled) p = p * decay;
      else g = g + p * weight_decay;
    }
    m = m + one_minus_beta1 * (g - m);
    v = v * beta2 + one_minus_beta2 * g * g;
    p = p - step_size * m / (std::sqrt(v) / bias2_sqrt + eps);
    param[i] = element_from<T>(p);
    exp_avg[i] = element_from<T>(m);
    exp_avg_sq[i] = element_from<T>(v);
  }
};

// One parameter's tensors, checked by the front end: same shape, dtype and device, contiguous.
struct AdamOperands {
  Tensor param, grad, exp_avg, exp_avg_sq;
  AdamConstants constants;
};

struct AdamBackend {
  void (*step)(const AdamOperands* params, int64_t count);  // every parameter of one device
};
using AdamBackends = BackendTable<AdamBackend>;

}  // namespace glassbox::kernels
