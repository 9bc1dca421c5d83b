// Loss functions and their backward helpers on CUDA. The element-wise losses are functors run
// by launch_elementwise over a TensorIterator (broadcasting, conversion to the loss's dtype),
// then reduced by the CUDA sum/mean; nll_loss has its own per-sample kernels. Formulas, shapes
// and error messages are those of engine/cpu/loss_kernels.cpp (shapes from engine/ops/loss_shape.h).
#include <string>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/loss_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/NativeFunctions.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

// out = f(inputs...) in the loss's dtype, broadcast as the CPU's pointwise().
template <class Make>
Tensor pointwise(const char* op, std::initializer_list<const Tensor*> inputs, ScalarType dtype, const Make& make) {
  DeviceGuard guard((*inputs.begin())->device().index);
  Tensor out;
  TensorIteratorConfig config(op);
  config.add_output(&out).compute_dtype(dtype);
  for (const Tensor* in : inputs) config.add_input(*in);
  TensorIterator it = config.build();
  visit_float_device_type(dtype, [&]<class T>() { make.template operator()<T>(it); });
  it.finish();
  return out;
}

Tensor reduce_loss(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return glassbox::mean(loss);
  if (reduction == Reduction::Sum) return glassbox::sum(loss);
  return loss;
}

double mean_scale(int64_t reduction, int64_t numel) {
  return reduction == Reduction::Mean ? 1.0 / static_cast<double>(numel) : 1.0;
}

// A 0-d 1 of `dtype` for an absent weight, so that one functor serves with and without it.
Tensor weight_or_one(const std::optional<Tensor>& w, ScalarType dtype, Device device) {
  if (w && w->defined()) return *w;
  return glassbox::full({}, Scalar(1.0), dtype, device);
}

template <class A>
__device__ __forceinline__ A log_sigmoid(A x) {
  return (x < A(0) ? x : A(0)) - ::log1p(::exp(-::fabs(x)));
}

struct SquaredError {
  template <class A>
  __device__ A operator()(A x, A y) const { return (x - y) * (x - y); }
};
struct AbsoluteError {
  template <class A>
  __device__ A operator()(A x, A y) const { return ::fabs(x - y); }
};
struct MseGrad {
  double scale;
  template <class A>
  __device__ A operator()(A x, A y, A g) const { return static_cast<A>(scale) * (x - y) * g; }
};
// 1 where x is outside [0, 1] (NaN too).
struct OutsideUnit {
  template <class A>
  __device__ bool operator()(A x) const { return !(x >= A(0) && x <= A(1)); }
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
  __device__ A operator()(A x, A y, A w, A p) const { return -(p * y * log_sigmoid(x) + (A(1) - y) * log_sigmoid(-x)) * w; }
};
struct LogitsGrad {
  double scale;
  template <class A>
  __device__ A operator()(A x, A y, A w, A p, A g) const {
    const A sig = A(1) / (A(1) + ::exp(-x));
    return static_cast<A>(scale) * g * (sig * (A(1) - y + p * y) - p * y) * w;
  }
};

// binary_cross_entropy's inputs must be probabilities: the first one that is not, named as the CPU does.
void check_probabilities(const Tensor& self, ScalarType dtype) {
  Tensor bad;
  TensorIteratorConfig config("binary_cross_entropy");
  config.add_output(&bad).compute_dtype(dtype).output_dtype(ScalarType::Bool).add_input(self);
  TensorIterator it = config.build();
  visit_float_device_type(dtype, [&]<class T>() { launch_elementwise<bool, T>(it, OutsideUnit{}); });
  if (bad.numel() == 0 || !glassbox::amax(bad).to(Device(DeviceType::CPU)).data<bool>()[0]) return;
  const Tensor host = self.to(Device(DeviceType::CPU)).to(dtype).to(ScalarType::Float64).contiguous();
  for (int64_t i = 0; i < host.numel(); ++i) {
    const double x = host.data<double>()[i];
    if (!(x >= 0 && x <= 1))
      throw Error("binary_cross_entropy: every element of self must be in [0, 1], got " + std::to_string(x) +
                       " (self of shape " + shape_to_string(self.sizes()) + ")");
  }
}
}  // namespace

Tensor mse_loss_cuda(const Tensor& self, const Tensor& target, int64_t reduction) {
  const LossShape r = pointwise_loss_shape("mse_loss", self, target, reduction);
  return reduce_loss(pointwise("mse_loss", {&self, &target}, r.dtype,
                               [&]<class T>(const TensorIterator& it) { launch_elementwise<T, T, T>(it, SquaredError{}); }),
                     reduction);
}

Tensor l1_loss_cuda(const Tensor& self, const Tensor& target, int64_t reduction) {
  const LossShape r = pointwise_loss_shape("l1_loss", self, target, reduction);
  return reduce_loss(pointwise("l1_loss", {&self, &target}, r.dtype,
                               [&]<class T>(const TensorIterator& it) { launch_elementwise<T, T, T>(it, AbsoluteError{}); }),
                     reduction);
}

Tensor mse_loss_backward_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction) {
  const LossShape fwd = pointwise_loss_shape("mse_loss_backward", self, target, reduction);
  const DimVector full = broadcast_shapes(self.sizes(), target.sizes(), "mse_loss_backward");
  loss_backward_shape("mse_loss_backward", grad_output, fwd, self, full);
  int64_t n = 1;
  for (int64_t s : full) n *= s;
  const MseGrad f{2.0 * mean_scale(reduction, n)};
  return pointwise("mse_loss_backward", {&self, &target, &grad_output}, fwd.dtype,
                   [&]<class T>(const TensorIterator& it) { launch_elementwise<T, T, T, T>(it, f); });
}

Tensor binary_cross_entropy_cuda(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                 int64_t reduction) {
  const LossShape r = bce_shape("binary_cross_entropy", self, target, weight, std::nullopt, reduction);
  DeviceGuard guard(self.device().index);
  check_probabilities(self, r.dtype);
  const Tensor w = weight_or_one(weight, r.dtype, self.device());
  return reduce_loss(pointwise("binary_cross_entropy", {&self, &target, &w}, r.dtype,
                               [&]<class T>(const TensorIterator& it) { launch_elementwise<T, T, T, T>(it, BceLoss{}); }),
                     reduction);
}

Tensor binary_cross_entropy_backward_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                          const std::optional<Tensor>& weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_backward";
  const LossShape fwd = bce_shape(op, self, target, weight, std::nullopt, reduction);
  loss_backward_shape(op, grad_output, fwd, self, self.sizes());
  DeviceGuard guard(self.device().index);
  const Tensor w = weight_or_one(weight, fwd.dtype, self.device());
  const BceGrad f{mean_scale(reduction, self.numel())};
  return pointwise(op, {&self, &target, &grad_output, &w}, fwd.dtype,
                   [&]<class T>(const TensorIterator& it) { launch_elementwise<T, T, T, T, T>(it, f); });
}

Tensor binary_cross_entropy_with_logits_cuda(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                             const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_with_logits";
  const LossShape r = bce_shape(op, self, target, weight, pos_weight, reduction);
  DeviceGuard guard(self.device().index);
  const Tensor w = weight_or_one(weight, r.dtype, self.device()), p = weight_or_one(pos_weight, r.dtype, self.device());
  return reduce_loss(pointwise(op, {&self, &target, &w, &p}, r.dtype,
                               [&]<class T>(const TensorIterator& it) { launch_elementwise<T, T, T, T, T>(it, LogitsLoss{}); }),
                     reduction);
}

Tensor binary_cross_entropy_with_logits_backward_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                                      const std::optional<Tensor>& weight,
                                                      const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_with_logits_backward";
  const LossShape fwd = bce_shape(op, self, target, weight, pos_weight, reduction);
  loss_backward_shape(op, grad_output, fwd, self, self.sizes());
  DeviceGuard guard(self.device().index);
  const Tensor w = weight_or_one(weight, fwd.dtype, self.device()), p = weight_or_one(pos_weight, fwd.dtype, self.device());
  const LogitsGrad f{mean_scale(reduction, self.numel())};
  return pointwise(op, {&self, &target, &w, &p, &grad_output}, fwd.dtype,
                   [&]<class T>(const TensorIterator& it) { launch_elementwise<T, T, T, T, T, T>(it, f); });
}

namespace {
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

// Per-sample losses and weights (in the compute dtype: float32 for float16/bfloat16), with the
// targets checked as the CPU checks them.
struct NllSamples {
  Tensor self, target, weight, loss, weights;
  int64_t n, classes;
};
NllSamples nll_samples(const char* op, const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                       int64_t ignore_index) {
  NllSamples s;
  const Device device = self.device();
  s.self = self.contiguous();
  s.target = target.to(ScalarType::Int64).contiguous();
  s.classes = self.sizes()[self.dim() - 1];
  s.n = self.dim() == 2 ? self.sizes()[0] : 1;
  if (weight && weight->defined()) s.weight = weight->to(self.dtype()).contiguous();
  const ScalarType acc = self.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  const int64_t sizes[] = {s.n};
  s.loss = empty_tensor(sizes, acc, device);
  s.weights = empty_tensor(sizes, acc, device);
  Tensor bad = glassbox::full({}, Scalar(s.n), ScalarType::Int64, device);
  const cudaStream_t stream = current_stream(device.index).handle();
  if (s.n > 0) visit_float_device_type(self.dtype(), [&]<class T>() {
    using A = opmath_t<T>;
    nll_samples_kernel<T, A><<<static_cast<unsigned>((s.n + 255) / 256), 256, 0, stream>>>(
        s.self.template data<T>(), s.target.data<int64_t>(), s.weight.defined() ? s.weight.template data<T>() : nullptr,
        s.loss.template data<A>(), s.weights.template data<A>(), s.n, s.classes, ignore_index,
        reinterpret_cast<unsigned long long*>(bad.data<int64_t>()));
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
  const int64_t first_bad = bad.to(Device(DeviceType::CPU)).data<int64_t>()[0];
  if (first_bad < s.n) {
    const int64_t t = glassbox::select(s.target, 0, first_bad).to(Device(DeviceType::CPU)).data<int64_t>()[0];
    throw IndexError(std::string(op) + ": target " + std::to_string(t) + " is out of bounds for " +
                     std::to_string(s.classes) + " classes (self of shape " + shape_to_string(self.sizes()) + ")");
  }
  return s;
}
}  // namespace

Tensor nll_loss_cuda(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                     int64_t ignore_index) {
  const LossShape r = nll_loss_shape(self, target, weight, reduction);
  DeviceGuard guard(self.device().index);
  const NllSamples s = nll_samples("nll_loss", self, target, weight, ignore_index);
  Tensor result = empty_tensor(r.shape, r.dtype, self.device());
  if (reduction == Reduction::None) copy_between(result, glassbox::reshape(s.loss, r.shape));
  else if (reduction == Reduction::Sum) copy_between(result, glassbox::sum(s.loss));
  else copy_between(result, glassbox::div(glassbox::sum(s.loss), glassbox::sum(s.weights)));
  return result;
}

Tensor nll_loss_backward_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                              const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index) {
  const LossShape fwd = nll_loss_shape(self, target, weight, reduction);
  const LossShape r = loss_backward_shape("nll_loss_backward", grad_output, fwd, self, self.sizes());
  DeviceGuard guard(self.device().index);
  const NllSamples s = nll_samples("nll_loss_backward", self, target, weight, ignore_index);
  const Tensor g = grad_output.to(r.dtype).contiguous();
  const Tensor total_weight = glassbox::sum(s.weights);
  Tensor result = glassbox::zeros(r.shape, r.dtype, self.device());
  const cudaStream_t stream = current_stream(self.device().index).handle();
  if (s.n > 0) visit_float_device_type(r.dtype, [&]<class T>() {
    using A = opmath_t<T>;
    nll_backward_kernel<T, A><<<static_cast<unsigned>((s.n + 255) / 256), 256, 0, stream>>>(
        s.target.data<int64_t>(), s.weight.defined() ? s.weight.template data<T>() : nullptr, g.template data<T>(),
        total_weight.template data<A>(), result.template data<T>(), s.n, s.classes, ignore_index, reduction);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return result;
}

}  // namespace glassbox::native
