// The fused Adam step on the CPU (engine/ops/kernels/adam.h): each parameter's update in a
// parallel loop over its elements. Checks and constants are the front end's (engine/ops/fused_adam.cpp).
#include "engine/cpu/for_each_index.h"
#include "engine/cpu/loops.h"
#include "engine/cpu/pointwise_kernel.h"
#include "engine/ops/kernels/adam.h"

namespace glassbox::cpu {
namespace {
using namespace kernels;

void step(const AdamOperands* params, int64_t count) {
  for (int64_t k = 0; k < count; ++k) {
    const AdamOperands& o = params[k];
    visit_floating_type(o.param.dtype(), [&]<class T>() {
      const AdamUpdate<T, opmath_t<T>> update(o.param.data<T>(), o.grad.data<T>(), o.exp_avg.data<T>(),
                                              o.exp_avg_sq.data<T>(), o.constants);
      for_each_index(o.param.numel(), kDefaultGrain, update);
    });
  }
}

const AdamBackend kAdam{step};
const AdamBackends::Registration kRegistered(DeviceType::CPU, kAdam);
}  // namespace
}  // namespace glassbox::cpu
