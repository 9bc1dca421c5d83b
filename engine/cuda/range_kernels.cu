// The counting factories' out= overloads on CUDA: arange, linspace and eye, with the CPU kernels'
// formulas (engine/cpu/range_kernels.cpp) and lengths and shapes from engine/ops/factories.h.
// Values are computed in int64 or double and converted as convert_value converts them.
#include <algorithm>

#include "engine/core/error.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/factories.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/arange.h"
#include "glassbox/ops/native/eye.h"
#include "glassbox/ops/native/linspace.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

// start + i * step, exactly in int64.
struct IntegerRamp {
  int64_t start, step;
  __device__ int64_t operator()(int64_t i) const { return start + i * step; }
};
// Multiply and add rounded separately (no fused multiply-add), as the CPU computes them.
struct FloatRamp {
  double start, step;
  __device__ double operator()(int64_t i) const { return __dadd_rn(start, __dmul_rn(static_cast<double>(i), step)); }
};
// The first half counts up from start, the second down from end: both ends exact.
struct Linspace {
  double start, end, step;
  int64_t steps, half;
  __device__ double operator()(int64_t i) const {
    return i < half ? __dadd_rn(start, __dmul_rn(step, static_cast<double>(i)))
                    : __dsub_rn(end, __dmul_rn(step, static_cast<double>(steps - 1 - i)));
  }
};

template <class T, class F>
__global__ void fill_1d_kernel(char* base, int64_t stride_bytes, int64_t n, F value) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    *reinterpret_cast<T*>(base + i * stride_bytes) = from_opmath<T>(value(i));
}

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + kElementwiseThreads - 1) / kElementwiseThreads, 1, 65536));
}

// out[i] = value(i) over a 1-d tensor of any stride (or n elements apart by stride_bytes).
template <class T, class F>
void fill_1d(Tensor& out, int64_t n, int64_t stride_bytes, F value) {
  if (n == 0) return;
  const int device = out.device().index;
  DeviceGuard guard(device);
  fill_1d_kernel<T><<<grid_for(n), kElementwiseThreads, 0, current_stream(device).handle()>>>(
      static_cast<char*>(out.data_ptr()), stride_bytes, n, value);
  GB_CUDA_KERNEL_LAUNCH_CHECK();
  mark_written(out);
}

int64_t stride_bytes_1d(const Tensor& out) {
  return out.dim() == 1 ? out.strides()[0] * static_cast<int64_t>(element_size(out.dtype())) : 0;
}
}  // namespace

Tensor& arange_out_cuda(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  const ArangeOut a = check_arange_out(start, end, step, out);
  visit_numeric_device_type(out.dtype(), [&]<class T>() {
    if (a.integral && std::is_integral_v<T>)
      fill_1d<T>(out, a.length, stride_bytes_1d(out), IntegerRamp{start.to_int(), step.to_int()});
    else fill_1d<T>(out, a.length, stride_bytes_1d(out), FloatRamp{start.to_double(), step.to_double()});
  });
  return out;
}

Tensor& linspace_out_cuda(const Scalar& start, const Scalar& end, int64_t steps, Tensor& out) {
  const LinspaceOut l = check_linspace_out(start, end, steps, out);
  visit_numeric_device_type(out.dtype(), [&]<class T>() {
    fill_1d<T>(out, steps, stride_bytes_1d(out), Linspace{l.start, l.end, l.step, steps, (steps + 1) / 2});
  });
  return out;
}

// One along the diagonal: element i at i * (stride0 + stride1).
struct One {
  __device__ int64_t operator()(int64_t) const { return 1; }
};

Tensor& eye_out_cuda(int64_t n, int64_t m, Tensor& out) {
  check_eye_out(n, m, out);
  glassbox::fill_(out, Scalar(int64_t{0}));
  const int64_t diagonal_stride =
      (out.strides()[0] + out.strides()[1]) * static_cast<int64_t>(element_size(out.dtype()));
  visit_scalar_device_type(out.dtype(), [&]<class T>() { fill_1d<T>(out, std::min(n, m), diagonal_stride, One{}); });
  return out;
}

}  // namespace glassbox::native
