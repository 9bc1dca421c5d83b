// The fills of arange, linspace and eye on CUDA (engine/ops/kernels/range.h), one thread per
// element. Lengths, shapes and checks are the front end's (engine/ops/factories.cpp).
#include "engine/cuda/cuda_types.cuh"
#include "engine/cuda/device_guard.h"
#include "engine/cuda/for_each_launch.cuh"
#include "engine/ops/kernels/range.h"

namespace glassbox::cuda {

namespace {
using namespace kernels;

void fill(Tensor& out, int64_t n, int64_t stride_bytes, const Ramp& ramp) {
  const int device = out.device().index;
  DeviceGuard guard(device);
  visit_scalar_device_type(out.dtype(), [&]<class T>() {
    with_ramp<T>(static_cast<char*>(out.data_ptr()), stride_bytes, ramp,
                 [&](const auto& f) { for_each_index(device, n, f); });
  });
}

const RangeBackend kRange{fill};
const RangeBackends::Registration kRegistered(DeviceType::CUDA, kRange);
}  // namespace

}  // namespace glassbox::cuda
