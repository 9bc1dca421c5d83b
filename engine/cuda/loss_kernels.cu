// The loss family's CUDA loops (the front end, with every check, is engine/ops/losses.cpp): the
// element-wise formulas are functors run by launch_elementwise over the front end's TensorIterator;
// nll_loss has its own per-sample kernels. The formulas are those of engine/cpu/loss_kernels.cpp.
#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/losses.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::cuda {

namespace {
using F = LossFormula;

template <class A>
__device__ __forceinline__ A log_sigmoid(A x) {
  return (x < A(0) ? x : A(0)) - ::log1p(::exp(-::fabs(x)));
}

struct SquaredError {
  template <class A>
  __device__ A operator()(A x, A y) const {
    return (x - y) * (x - y);
  }
};
struct AbsoluteError {
  template <class A>
  __device__ A operator()(A x, A y) const {
    return ::fabs(x - y);
  }
};
struct SquaredErrorGrad {
  double scale;
  template <class A>
  __device__ A operator()(A x, A y, A g) const {
    return static_cast<A>(scale) * (x - y) * g;
  }
};
struct BceLoss {
  template <class A>
  __device__ A operator()(A x, A y, A w) const {
    const A lx = ::log(x) > A(-100) ? ::log(x) : A(-100);
    const A l1x = ::log1p(-x) > A(-100) ? ::log1p(-x) : A(-100);
    return -(y * lx + (A(1) - y) * l1x) * w;
  }
};
struct BceGrad {
  double scale;
  template <class A>
  __device__ A operator()(A x, A y, A g, A w) const {
    const A d = x * (A(1) - x);
    return static_cast<A>(scale) * g * (x - y) / (d > A(1e-12) ? d : A(1e-12)) * w;
  }
};
struct LogitsLoss {
  template <class A>
  __device__ A operator()(A x, A y, A w, A p) const {
    return -(p * y * log_sigmoid(x) + (A(1) - y) * log_sigmoid(-x)) * w;
  }
};
struct LogitsGrad {
  double scale;
  template <class A>
  __device__ A operator()(A x, A y, A w, A p, A g) const {
    const A sig = A(1) / (A(1) + ::exp(-x));
    return static_cast<A>(scale) * g * (sig * (A(1) - y + p * y) - p * y) * w;
  }
};
// 1 where x is outside [0, 1] (NaN too).
struct OutsideUnit {
  template <class A>
  __device__ bool operator()(A x) const {
    return !(x >= A(0) && x <= A(1));
  }
};

void pointwise(F formula, TensorIterator& it, double scale) {
  DeviceGuard guard(it.operand(0).device().index);
  visit_floating_device_type(it.operand(0).dtype(), [&]<class T>() {
    switch (formula) {
      case F::SquaredError: return launch_elementwise<T, T, T>(it, SquaredError{});
      case F::AbsoluteError: return launch_elementwise<T, T, T>(it, AbsoluteError{});
      case F::SquaredErrorGrad: return launch_elementwise<T, T, T, T>(it, SquaredErrorGrad{scale});
      case F::Bce: return launch_elementwise<T, T, T, T>(it, BceLoss{});
      case F::BceGrad: return launch_elementwise<T, T, T, T, T>(it, BceGrad{scale});
      case F::Logits: return launch_elementwise<T, T, T, T, T>(it, LogitsLoss{});
      case F::LogitsGrad: return launch_elementwise<T, T, T, T, T, T>(it, LogitsGrad{scale});
    }
  });
}

// Flags on the device, then the first flagged value read back on the host (row-major).
std::optional<double> first_non_probability(const Tensor& self, ScalarType dtype) {
  DeviceGuard guard(self.device().index);
  Tensor bad;
  TensorIteratorConfig config("binary_cross_entropy");
  config.add_output(&bad).compute_dtype(dtype).output_dtype(ScalarType::Bool).add_input(self);
  TensorIterator it = config.build();
  visit_floating_device_type(dtype, [&]<class T>() { launch_elementwise<bool, T>(it, OutsideUnit{}); });
  if (bad.numel() == 0 || !glassbox::amax(bad).to(Device(DeviceType::CPU)).data<bool>()[0]) return std::nullopt;
  const Tensor host = self.to(Device(DeviceType::CPU)).to(dtype).to(ScalarType::Float64).contiguous();
  for (int64_t i = 0; i < host.numel(); ++i) {
    const double x = host.data<double>()[i];
    if (!(x >= 0 && x <= 1)) return x;
  }
  return std::nullopt;
}

// Per sample i of log-probabilities x [n, classes]: loss[i] = -w[t] x[i, t] and weight[i] = w[t]
// (both 0 where t == ignore_index); the first out-of-range target's sample goes to *bad.
template <class T, class A>
__global__ void nll_samples_kernel(const T* x, const int64_t* target, const T* w, A* loss, A* weight, int64_t n,
                                   int64_t classes, int64_t ignore_index, unsigned long long* bad) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int64_t t = target[i];
  if (t == ignore_index || t < 0 || t >= classes) {
    if (t != ignore_index) atomicMin(bad, static_cast<unsigned long long>(i));
    loss[i] = A(0), weight[i] = A(0);
    return;
  }
  const A wt = w ? static_cast<A>(to_opmath(w[t])) : A(1);
  loss[i] = -wt * static_cast<A>(to_opmath(x[i * classes + t]));
  weight[i] = wt;
}

// grad[i, t] = -w[t] g (g per sample for Reduction::None), divided by the total weight for the mean.
template <class T, class A>
__global__ void nll_backward_kernel(const int64_t* target, const T* w, const T* g, const A* total_weight, T* grad,
                                    int64_t n, int64_t classes, int64_t ignore_index, int64_t reduction) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int64_t t = target[i];
  if (t == ignore_index) return;
  A scale = static_cast<A>(to_opmath(g[reduction == Reduction::None ? i : 0]));
  if (reduction == Reduction::Mean) scale /= *total_weight;
  grad[i * classes + t] = from_opmath<T>(-(w ? static_cast<A>(to_opmath(w[t])) : A(1)) * scale);
}

std::optional<int64_t> nll_samples(const Tensor& x, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                                   Tensor& loss, Tensor& weights) {
  const Device device = x.device();
  DeviceGuard guard(device.index);
  const int64_t n = loss.numel(), classes = x.sizes()[x.dim() - 1];
  Tensor bad = glassbox::full({}, Scalar(n), ScalarType::Int64, device);
  const cudaStream_t stream = current_stream(device.index).handle();
  if (n > 0)
    visit_floating_device_type(x.dtype(), [&]<class T>() {
      using A = opmath_t<T>;
      nll_samples_kernel<T, A><<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(
          x.template data<T>(), target.data<int64_t>(), weight.defined() ? weight.template data<T>() : nullptr,
          loss.template data<A>(), weights.template data<A>(), n, classes, ignore_index,
          reinterpret_cast<unsigned long long*>(bad.data<int64_t>()));
      GB_CUDA_KERNEL_LAUNCH_CHECK();
    });
  const int64_t first_bad = bad.to(Device(DeviceType::CPU)).data<int64_t>()[0];
  if (first_bad >= n) return std::nullopt;
  const int64_t flat[] = {n};
  const Tensor t = glassbox::select(glassbox::reshape(target, IntArrayRef(flat)), 0, first_bad);
  return t.to(Device(DeviceType::CPU)).data<int64_t>()[0];
}

void nll_backward(const Tensor& target, const Tensor& weight, const Tensor& g, const Tensor& total_weight,
                  int64_t ignore_index, int64_t reduction, Tensor& grad) {
  DeviceGuard guard(grad.device().index);
  const int64_t n = target.numel(), classes = grad.sizes()[grad.dim() - 1];
  const cudaStream_t stream = current_stream(grad.device().index).handle();
  if (n > 0)
    visit_floating_device_type(grad.dtype(), [&]<class T>() {
      using A = opmath_t<T>;
      nll_backward_kernel<T, A><<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(
          target.data<int64_t>(), weight.defined() ? weight.template data<T>() : nullptr, g.template data<T>(),
          total_weight.template data<A>(), grad.template data<T>(), n, classes, ignore_index, reduction);
      GB_CUDA_KERNEL_LAUNCH_CHECK();
    });
}

const LossBackend kLosses{pointwise, first_non_probability, nll_samples, nll_backward};
const LossBackends::Registration kRegistered(DeviceType::CUDA, kLosses);
}  // namespace

}  // namespace glassbox::cuda
