// div with a rounding mode on CUDA ("trunc", "floor"; None is true division, the structured div).
// The front end (engine/ops/pointwise_iterator.h) promotes and broadcasts as for the CPU kernel
// (engine/cpu/div_mode_kernels.cpp), whose element formulas (engine/ops/division_rounding.h) this
// shares. Integer division by zero sets a flag on the device that is read back to throw the CPU's
// error (the result is not written anywhere the user sees it before that).
#include <cmath>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/pointwise_launch.cuh"
#include "engine/ops/division_rounding.h"
#include "engine/ops/pointwise_iterator.h"
#include "glassbox/ops/native/div.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

template <class C>
struct DivRoundedFn {
  bool floor;
  int* divided_by_zero;  // integers only
  __device__ C operator()(C x, C y) const {
    if constexpr (std::is_floating_point_v<C>) {
      return floor ? floor_divide(x, y) : ::trunc(x / y);
    } else {
      if (y == C(0)) {
        *divided_by_zero = 1;
        return C(0);
      }
      return integer_divide(x, y, floor);
    }
  }
};

Tensor& divide_rounded(const char* name, const Tensor& self, const Tensor& other,
                       std::optional<std::string_view> rounding_mode, Tensor& out) {
  const RoundingMode mode = parse_rounding_mode(name, rounding_mode);
  if (mode == RoundingMode::None)
    return structured_pointwise<functors::Div, cuda::PointwiseCompute>(name, out, self, other);
  const int device = self.device().type == DeviceType::CUDA ? self.device().index : other.device().index;
  DeviceGuard guard(device);
  TensorIterator it = div_mode_iterator(name, mode, self, other, out);
  const bool floor = mode == RoundingMode::Floor;
  const ScalarType dtype = it.compute_dtype();
  Tensor flag;
  if (!is_floating_point(dtype)) {
    flag = empty_tensor(DimVector{1}, ScalarType::Int32, Device(DeviceType::CUDA, static_cast<int8_t>(device)));
    GB_CUDA_CHECK(cudaMemsetAsync(flag.data_ptr(), 0, sizeof(int), current_stream(device).handle()));
  }
  visit_numeric_device_type(dtype, [&]<class T>() {
    launch_elementwise<T, T, T>(
        it, DivRoundedFn<opmath_t<T>>{floor, flag.defined() ? static_cast<int*>(flag.data_ptr()) : nullptr});
  });
  if (flag.defined() && it.numel() > 0) {
    int divided_by_zero = 0;
    const cudaStream_t stream = current_stream(device).handle();
    GB_CUDA_CHECK(cudaMemcpyAsync(&divided_by_zero, flag.data_ptr(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    GB_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (divided_by_zero) {
      throw Error(std::string(name) + ": integer division by zero (rounding_mode='" + (floor ? "floor" : "trunc") +
                  "', self " + describe(self) + ", other " + describe(other) + ")");
    }
  }
  it.finish();
  mark_written(out);
  return out;
}
}  // namespace

Tensor div_mode_cuda(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  Tensor out;
  divide_rounded("div", self, other, rounding_mode, out);
  return out;
}
Tensor& div_mode_cuda_(Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  return divide_rounded("div_", self, other, rounding_mode, self);
}
Tensor& div_mode_out_cuda(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode,
                          Tensor& out) {
  return divide_rounded("div.out", self, other, rounding_mode, out);
}

}  // namespace glassbox::native
