// The loss family's CUDA loops (the front end, with every check, is engine/ops/losses.cpp; the
// arithmetic is engine/ops/kernels/loss.h): the element-wise formulas run through
// launch_elementwise over the front end's TensorIterator, nll_loss one thread per sample.
#include <utility>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/deferred_checks.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/cuda/for_each_launch.cuh"
#include "engine/cuda/index_launch.cuh"
#include "engine/ops/kernels/loss.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::cuda {

namespace {
using namespace kernels;

// T once per input K: the formula's operands all have the loss's dtype.
template <size_t K, class T>
struct Operand {
  using type = T;
};
template <class T, class F, size_t... K>
void launch(TensorIterator& it, const F& f, std::index_sequence<K...>) {
  launch_elementwise<T, typename Operand<K, T>::type...>(it, f);
}

void pointwise(LossFormula formula, TensorIterator& it, double scale) {
  DeviceGuard guard(it.operand(0).device().index);
  visit_floating_device_type(it.operand(0).dtype(), [&]<class T>() {
    with_loss_formula(formula, scale, [&](const auto& f, auto arity) {
      launch<T>(it, f, std::make_index_sequence<decltype(arity)::value>{});
    });
  });
}

// 1 where x is outside [0, 1] (NaN too).
struct OutsideUnit {
  template <class A>
  __device__ bool operator()(A x) const {
    return !(x >= A(0) && x <= A(1));
  }
};

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

struct FirstBad {
  __device__ static void report(unsigned long long* first, int64_t i) {
    atomicMin(first, static_cast<unsigned long long>(i));
  }
};

// The verdict is deferred: nll_loss ends every forward, and waiting there would hold the host until
// the whole forward has run on the device.
void nll_samples(const Tensor& x, const Tensor& target, const Tensor& weight, int64_t ignore_index, Tensor& loss,
                 Tensor& weights, const std::function<void(int64_t)>& raise) {
  const Device device = x.device();
  DeviceGuard guard(device.index);
  const int64_t n = loss.numel();
  Tensor bad = glassbox::full({}, Scalar(n), ScalarType::Int64, device);
  visit_floating_device_type(x.dtype(), [&]<class T>() {
    using A = opmath_t<T>;
    for_each_index(
        device.index, n,
        NllSample<T, A, FirstBad>{x.template data<T>(), target.data<int64_t>(),
                                  weight.defined() ? weight.template data<T>() : nullptr, loss.template data<A>(),
                                  weights.template data<A>(), x.sizes()[x.dim() - 1], ignore_index,
                                  reinterpret_cast<unsigned long long*>(bad.data<int64_t>())});
  });
  // (target is contiguous: the bad sample's position is its index.)
  defer_check(bad, n, [target, raise](int64_t first_bad) { raise(index_value_at(target, first_bad)); });
}

void nll_backward(const Tensor& target, const Tensor& weight, const Tensor& g, const Tensor& total_weight,
                  int64_t ignore_index, int64_t reduction, Tensor& grad) {
  DeviceGuard guard(grad.device().index);
  visit_floating_device_type(grad.dtype(), [&]<class T>() {
    using A = opmath_t<T>;
    for_each_index(grad.device().index, target.numel(),
                   NllInputGrad<T, A>{target.data<int64_t>(), weight.defined() ? weight.template data<T>() : nullptr,
                                      g.template data<T>(), total_weight.template data<A>(), grad.template data<T>(),
                                      grad.sizes()[grad.dim() - 1], ignore_index, reduction});
  });
}

const LossBackend kLosses{pointwise, first_non_probability, nll_samples, nll_backward};
const LossBackends::Registration kRegistered(DeviceType::CUDA, kLosses);
}  // namespace

}  // namespace glassbox::cuda
