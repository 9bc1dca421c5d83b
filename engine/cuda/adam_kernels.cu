// The fused Adam step on CUDA (engine/ops/kernels/adam.h): one launch per parameter, one thread per
// element. Checks and constants are the front end's (engine/ops/fused_adam.cpp).
#include "engine/cuda/cuda_types.cuh"
#include "engine/cuda/device_guard.h"
#include "engine/cuda/for_each_launch.cuh"
#include "engine/ops/kernels/adam.h"

namespace glassbox::cuda {
namespace {
using namespace kernels;

// float16 and bfloat16 compute in float, as the element-wise kernels do.
template <class T>
using adam_compute_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

void step(const AdamOperands* params, int64_t count) {
  for (int64_t k = 0; k < count; ++k) {
    const AdamOperands& o = params[k];
    const int device = o.param.device().index;
    DeviceGuard guard(device);
    visit_floating_device_type(o.param.dtype(), [&]<class T>() {
      const AdamUpdate<T, adam_compute_t<T>> update(o.param.data<T>(), o.grad.data<T>(), o.exp_avg.data<T>(),
                                                    o.exp_avg_sq.data<T>(), o.constants);
      for_each_index(device, o.param.numel(), update);
    });
  }
}

const AdamBackend kAdam{step};
const AdamBackends::Registration kRegistered(DeviceType::CUDA, kAdam);
}  // namespace
}  // namespace glassbox::cuda
