// where and div with a rounding mode on CUDA: the formulas of engine/ops/kernels/where_div_mode.h
// through launch_elementwise (the front end, with every check, is engine/ops/where_div_mode.cpp).
// Integer division by zero sets a flag on the device that is read back for the front end to
// throw (the result is not written anywhere the user sees it before that).
#include "engine/core/empty.h"
#include "engine/cuda/pointwise_launch.cuh"
#include "engine/ops/kernels/where_div_mode.h"

namespace glassbox::cuda {

namespace {
using namespace kernels;

void where(TensorIterator& it) {
  DeviceGuard guard(it.operand(0).device().index);
  visit_scalar_device_type(it.operand(0).dtype(), [&]<class T>() { launch_elementwise<T, bool, T, T>(it, Select{}); });
}

bool div_rounded(TensorIterator& it, bool floor) {
  const Device device = it.operand(0).device();
  DeviceGuard guard(device.index);
  const cudaStream_t stream = current_stream(device.index).handle();
  const bool integral = !is_floating_point(it.compute_dtype());
  Tensor flag;
  if (integral) {
    flag = empty_tensor(DimVector{1}, ScalarType::Int32, device);
    GB_CUDA_CHECK(cudaMemsetAsync(flag.data_ptr(), 0, sizeof(int), stream));
  }
  int* divided_by_zero = integral ? static_cast<int*>(flag.data_ptr()) : nullptr;
  visit_numeric_device_type(it.compute_dtype(), [&]<class T>() {
    if (floor) launch_elementwise<T, T, T>(it, DivRounded<true, int>{divided_by_zero});
    else launch_elementwise<T, T, T>(it, DivRounded<false, int>{divided_by_zero});
  });
  if (!integral || it.numel() == 0) return false;
  int flagged = 0;
  GB_CUDA_CHECK(cudaMemcpyAsync(&flagged, flag.data_ptr(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  GB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return flagged != 0;
}

Tensor& true_divide(const char* op, Tensor& out, const Tensor& self, const Tensor& other) {
  return structured_pointwise<functors::Div, PointwiseCompute>(op, out, self, other);
}

const WhereDivModeBackend kWhereDivMode{where, div_rounded, true_divide};
const WhereDivModeBackends::Registration kRegistered(DeviceType::CUDA, kWhereDivMode);
}  // namespace

}  // namespace glassbox::cuda
