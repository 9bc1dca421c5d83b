// The element-wise gradients autograd's formulas call, on CUDA: sigmoid_backward, tanh_backward,
// silu_backward, gelu_backward (floating point, one functor with a run-time switch) and
// threshold_backward (relu's gradient, every numeric dtype).
#include <string>

#include "engine/core/error.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/pointwise_iterator.h"
#include "glassbox/ops/NativeFunctions.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

enum class Grad : int { Sigmoid, Tanh, Silu, Gelu, GeluTanh };

constexpr double kSqrtHalf = 0.70710678118654752440;       // 1/sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;     // 1/sqrt(2 pi)
constexpr double kSqrt2OverPi = 0.79788456080286535588;    // sqrt(2/pi)
constexpr double kGeluTanhCubic = 0.044715;

// g times the derivative, written as engine/cpu/activation_kernels.cpp writes it; `v` is the
// forward's output (sigmoid, tanh) or its input (silu, gelu).
template <class C>
struct GradFn {
  Grad op;
  __device__ C operator()(C g, C v) const {
    switch (op) {
      case Grad::Sigmoid: return g * v * (C(1) - v);
      case Grad::Tanh: return g * (C(1) - v * v);
      case Grad::Silu: {
        const C s = C(1) / (C(1) + ::exp(-v));
        return g * s * (C(1) + v * (C(1) - s));
      }
      case Grad::Gelu: {
        const C cdf = C(0.5) * (C(1) + ::erf(v * C(kSqrtHalf)));
        const C pdf = C(kInvSqrt2Pi) * ::exp(C(-0.5) * v * v);
        return g * (cdf + v * pdf);
      }
      default: {
        const C v2 = v * v;
        const C t = ::tanh(C(kSqrt2OverPi) * (v + C(kGeluTanhCubic) * v2 * v));
        const C dinner = C(kSqrt2OverPi) * (C(1) + C(3 * kGeluTanhCubic) * v2);
        return g * (C(0.5) * (C(1) + t) + C(0.5) * v * (C(1) - t * t) * dinner);
      }
    }
  }
};

Tensor float_backward(const char* name, Grad op, const Tensor& grad_output, const Tensor& second) {
  DeviceGuard guard(grad_output.device().index);
  Tensor out;
  TensorIterator it = binary_iterator(name, BinaryKind::FloatOnly, grad_output, second, out);
  visit_float_device_type(it.compute_dtype(), [&]<class T>() { launch_elementwise<T, T, T>(it, GradFn<opmath_t<T>>{op}); });
  return out;
}

template <class C>
struct ThresholdGrad {
  C threshold;
  __device__ C operator()(C g, C x) const { return x <= threshold ? C(0) : g; }
};
}  // namespace

Tensor sigmoid_backward_cuda(const Tensor& grad_output, const Tensor& output) {
  return float_backward("sigmoid_backward", Grad::Sigmoid, grad_output, output);
}
Tensor tanh_backward_cuda(const Tensor& grad_output, const Tensor& output) {
  return float_backward("tanh_backward", Grad::Tanh, grad_output, output);
}
Tensor silu_backward_cuda(const Tensor& grad_output, const Tensor& self) {
  return float_backward("silu_backward", Grad::Silu, grad_output, self);
}
Tensor gelu_backward_cuda(const Tensor& grad_output, const Tensor& self, std::string_view approximate) {
  return float_backward("gelu_backward", gelu_uses_tanh("gelu_backward", approximate) ? Grad::GeluTanh : Grad::Gelu,
                        grad_output, self);
}

Tensor threshold_backward_cuda(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  DeviceGuard guard(grad_output.device().index);
  Tensor out;
  TensorIterator it = binary_iterator("threshold_backward", BinaryKind::Numeric, grad_output, self, out);
  visit_numeric_device_type(it.compute_dtype(), [&]<class T>() {
    using C = opmath_t<T>;
    launch_elementwise<T, T, T>(it, ThresholdGrad<C>{static_cast<C>(threshold.to_double())});
  });
  return out;
}

}  // namespace glassbox::native
