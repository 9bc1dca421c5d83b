// The counting factories on the CPU: empty_strided, and the fills of arange, linspace and eye
// (engine/ops/kernels/range.h) in a parallel loop. Lengths, shapes and checks are the front end's
// (engine/ops/factories.cpp).
#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cpu/for_each_index.h"
#include "engine/ops/factories.h"
#include "engine/ops/factory_options.h"
#include "engine/ops/kernels/range.h"
#include "glassbox/ops/native/empty_strided.h"

namespace glassbox::native {

Tensor empty_strided_cpu(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                         std::optional<Device> device) {
  const Device d = device_or_default(device);
  GB_CHECK(d.type == DeviceType::CPU, "empty_strided: the CPU kernel was asked for a tensor on ", d.to_string());
  check_empty_strided(size, stride);
  return empty_strided_tensor(size, stride, dtype_or_default(dtype), d);
}

namespace {
using namespace kernels;

void fill(Tensor& out, int64_t n, int64_t stride_bytes, const Ramp& ramp) {
  visit_scalar_type(out.dtype(), [&]<class T>() {
    with_ramp<T>(static_cast<char*>(out.data_ptr()), stride_bytes, ramp,
                 [&](const auto& f) { cpu::for_each_index(n, kDefaultGrain, f); });
  });
}

const RangeBackend kRange{fill};
const RangeBackends::Registration kRegistered(DeviceType::CPU, kRange);
}  // namespace

}  // namespace glassbox::native
