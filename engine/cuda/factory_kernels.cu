// Factories under the CUDA key: empty and empty_strided (memory from the caching allocator) and fill_.
#include <cmath>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/copy.h"
#include "engine/ops/factory_options.h"
#include "engine/ops/fill_value.h"
#include "glassbox/ops/native/empty.h"
#include "glassbox/ops/native/empty_strided.h"
#include "glassbox/ops/native/fill.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

// "cuda" means the current device; the tensor records which one it got ("cuda:0").
Device cuda_device(std::optional<Device> device, const char* op) {
  const Device d = device.value_or(Device(DeviceType::CUDA));
  GB_CHECK(d.type == DeviceType::CUDA, op, ": the CUDA kernel was asked for a tensor on ", d.to_string());
  return Device(DeviceType::CUDA, static_cast<int8_t>(checked_device_index(d.index, op)));
}

template <class T>
struct Fill {
  T value;
  __device__ opmath_t<T> operator()() const { return to_opmath(value); }
};

bool is_zero_bits(const Scalar& v) {
  if (v.is_floating_point()) return v.to_double() == 0.0 && !std::signbit(v.to_double());
  return v.to_int() == 0;
}
}  // namespace

Tensor empty_cuda(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const Device d = cuda_device(device, "empty");
  DeviceGuard guard(d.index);
  return empty_tensor(size, dtype_or_default(dtype), d);
}

Tensor empty_strided_cuda(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                          std::optional<Device> device) {
  const Device d = cuda_device(device, "empty_strided");
  DeviceGuard guard(d.index);
  return empty_strided_tensor(size, stride, dtype_or_default(dtype), d);
}

Tensor& fill_cuda_(Tensor& self, const Scalar& value) {
  check_fill_value("fill_", value, self.dtype());
  if (self.numel() == 0) return self;
  const int device = self.device().index;
  DeviceGuard guard(device);
  if (self.is_contiguous() && is_zero_bits(value)) {
    GB_CUDA_CHECK(cudaMemsetAsync(self.data_ptr(), 0, static_cast<size_t>(self.numel()) * element_size(self.dtype()),
                                  current_stream(device).handle()));
  } else {
    Tensor target = self;
    TensorIterator it = TensorIteratorConfig("fill_").add_output(&target).keep_dtypes().build();
    visit_scalar_type(self.dtype(), [&]<class H>() {
      // The value converted on the host as the CPU kernel converts it, then passed bit for bit.
      const H v = value.is_floating_point() ? convert_value<H>(value.to_double())
                  : value.is_bool()         ? convert_value<H>(value.to_bool())
                                            : convert_value<H>(value.to_int());
      using T = device_t<H>;
      launch_elementwise<T>(it, Fill<T>{to_device_value<T>(v)});
    });
  }
  mark_written(self);
  return self;
}

}  // namespace glassbox::native
