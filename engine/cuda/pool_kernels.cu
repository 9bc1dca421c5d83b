// 2-D max and average pooling on CUDA: the element functors of engine/ops/kernels/pool.h, one
// thread per output (or, for the average's gradient, per input element: a gather, no atomics).
// Max pooling's gradient scatters each output's gradient to its recorded index with atomics.
#include "engine/cuda/cuda_types.cuh"
#include "engine/cuda/device_guard.h"
#include "engine/cuda/for_each_launch.cuh"
#include "engine/ops/kernels/pool.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::cuda {

namespace {
using namespace kernels;

void max_pool(const PoolPlan& g, const Tensor& in, Tensor& out, Tensor& indices) {
  DeviceGuard guard(in.device().index);
  visit_numeric_device_type(in.dtype(), [&]<class T>() {
    for_each_index(
        in.device().index, out.numel(),
        MaxPoolOutput<T, opmath_t<T>>{g, in.template data<T>(), out.template data<T>(), indices.data<int64_t>()});
  });
}

struct AtomicAdd {
  template <class A>
  __device__ static void add(A* dst, A v) {
    if constexpr (std::is_same_v<A, int64_t>)
      atomicAdd(reinterpret_cast<unsigned long long*>(dst), static_cast<unsigned long long>(v));
    else atomicAdd(dst, v);
  }
  __device__ static void bad(unsigned long long* first, int64_t o) {
    atomicMin(first, static_cast<unsigned long long>(o));
  }
};

// An index outside its plane is reported through `bad` (the first output holding one).
std::optional<int64_t> max_pool_backward(const PoolPlan& g, const Tensor& grad_out, const Tensor& indices,
                                         Tensor& grad_in) {
  const int device = grad_out.device().index;
  DeviceGuard guard(device);
  const int64_t n = grad_out.numel();
  Tensor bad = glassbox::full({}, Scalar(n), ScalarType::Int64, grad_out.device());
  auto* first_bad = reinterpret_cast<unsigned long long*>(bad.data<int64_t>());
  visit_numeric_device_type(grad_out.dtype(), [&]<class T>() {
    using A = max_pool_grad_t<T>;
    for_each_index(device, n,
                   MaxPoolInputGrad<T, AtomicAdd>{g, grad_out.template data<T>(), indices.data<int64_t>(),
                                                  grad_in.template data<A>(), first_bad});
  });
  const int64_t first = bad.to(Device(DeviceType::CPU)).data<int64_t>()[0];
  return first < n ? std::optional<int64_t>(first) : std::nullopt;
}

void avg_pool(const PoolPlan& g, const Tensor& in, Tensor& out) {
  DeviceGuard guard(in.device().index);
  visit_floating_device_type(in.dtype(), [&]<class T>() {
    for_each_index(in.device().index, out.numel(),
                   AvgPoolOutput<T, opmath_t<T>>{g, in.template data<T>(), out.template data<T>()});
  });
}

void avg_pool_backward(const PoolPlan& g, const Tensor& grad_out, Tensor& grad_in) {
  DeviceGuard guard(grad_out.device().index);
  visit_floating_device_type(grad_out.dtype(), [&]<class T>() {
    for_each_index(grad_out.device().index, grad_in.numel(),
                   AvgPoolInputGrad<T, opmath_t<T>>{g, grad_out.template data<T>(), grad_in.template data<T>()});
  });
}

const PoolBackend kPool{max_pool, max_pool_backward, avg_pool, avg_pool_backward};
const PoolBackends::Registration kRegistered(DeviceType::CUDA, kPool);
}  // namespace

}  // namespace glassbox::cuda
