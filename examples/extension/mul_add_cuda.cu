// The CUDA kernel of myops::mul_add (mul_add.cpp has the rest): one thread per element, on the
// current stream of the tensors' device.
#include <glassbox/glassbox.h>

#include "engine/cuda/stream.h"
#include "mul_add.h"

namespace {
using glassbox::Tensor;

template <class T>
__global__ void mul_add_kernel(const T* x, const T* y, const T* z, T* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * y[i] + z[i];
}

template <class T>
void launch(const Tensor& x, const Tensor& y, const Tensor& z, Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  cudaStream_t stream = glassbox::cuda::current_stream(x.device().index).handle();
  mul_add_kernel<T><<<blocks, 256, 0, stream>>>(x.data<T>(), y.data<T>(), z.data<T>(), out.data<T>(), n);
  const cudaError_t error = cudaGetLastError();
  GB_CHECK(error == cudaSuccess, "myops::mul_add: CUDA launch failed: ", cudaGetErrorString(error));
}

Tensor mul_add_cuda(const Tensor& x, const Tensor& y, const Tensor& z) {
  myops::check_mul_add(x, y, z);
  const Tensor xc = x.contiguous(), yc = y.contiguous(), zc = z.contiguous();
  Tensor out = glassbox::empty(x.sizes(), x.dtype(), x.device());
  if (x.dtype() == glassbox::ScalarType::Float32) launch<float>(xc, yc, zc, out);
  else launch<double>(xc, yc, zc, out);
  return out;
}
}  // namespace

GLASSBOX_LIBRARY_IMPL(myops, CUDA, m) { m.impl("mul_add", &mul_add_cuda); }
