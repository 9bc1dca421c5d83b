// Activations on the CPU: sigmoid, relu, gelu (erf or tanh approximation) and silu, and the
// element-wise gradients the autograd formulas call (sigmoid_backward, tanh_backward,
// threshold_backward, gelu_backward, silu_backward).
#include <cmath>

#include "engine/cpu/pointwise_kernel.h"
#include "engine/cpu/vec_math.h"
#include "glassbox/ops/native/gelu.h"
#include "glassbox/ops/native/gelu_backward.h"
#include "glassbox/ops/native/relu.h"
#include "glassbox/ops/native/sigmoid.h"
#include "glassbox/ops/native/sigmoid_backward.h"
#include "glassbox/ops/native/silu.h"
#include "glassbox/ops/native/silu_backward.h"
#include "glassbox/ops/native/tanh_backward.h"
#include "glassbox/ops/native/threshold_backward.h"

namespace glassbox::native {

namespace {
using cpu::kTranscendentalGrain;

constexpr double kSqrtHalf = 0.70710678118654752440;       // 1/sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;     // 1/sqrt(2 pi)
constexpr double kSqrt2OverPi = 0.79788456080286535588;    // sqrt(2/pi)
constexpr double kGeluTanhCubic = 0.044715;

// float (float32, and float16/bfloat16 computed in float) takes the vectorisable forms of
// engine/cpu/vec_math.h; double the C library's.
struct Sigmoid {
  static constexpr UnaryKind kind = unary_kinds::sigmoid;
  static constexpr int64_t grain = kTranscendentalGrain;
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_same_v<T, float>) return cpu::sigmoid_f32(x);
    else return T(1) / (T(1) + std::exp(-x));
  }
};
// x < 0 rather than x > 0 so that NaN passes through.
struct Relu {
  static constexpr UnaryKind kind = unary_kinds::relu;
  static constexpr int64_t grain = kDefaultGrain;
  template <class T>
  T operator()(T x) const { return x < T(0) ? T(0) : x; }
};
struct Silu {
  static constexpr UnaryKind kind = unary_kinds::silu;
  static constexpr int64_t grain = kTranscendentalGrain;
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_same_v<T, float>) return x * cpu::sigmoid_f32(x);
    else return x / (T(1) + std::exp(-x));
  }
};
// The approximation is a type, not a flag: a run-time choice inside the element function would
// keep the loop from vectorising.
template <bool kTanh>
struct Gelu {
  static constexpr UnaryKind kind = unary_kinds::gelu;
  static constexpr int64_t grain = kTranscendentalGrain;
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_same_v<T, float>) {
      // (1 + tanh(u)) / 2 = sigmoid(2u), which does not cancel for x << 0.
      if constexpr (kTanh) return x * cpu::sigmoid_f32(2.0f * float(kSqrt2OverPi) * (x + float(kGeluTanhCubic) * x * x * x));
      else return x * cpu::normal_cdf_f32(x);
    } else {
      if constexpr (kTanh) {
        const T inner = T(kSqrt2OverPi) * (x + T(kGeluTanhCubic) * x * x * x);
        return T(0.5) * x * (T(1) + std::tanh(inner));
      } else {
        return T(0.5) * x * (T(1) + std::erf(x * T(kSqrtHalf)));
      }
    }
  }
};

// gelu in either form into out.
Tensor& run_gelu(const char* op, std::string_view approximate, const Tensor& self, Tensor& out) {
  if (gelu_uses_tanh(op, approximate)) return cpu::run_unary<Gelu<true>>(op, self, out);
  return cpu::run_unary<Gelu<false>>(op, self, out);
}

// d gelu / dx.
template <class T>
T gelu_derivative(T x, bool tanh_approximation) {
  if (tanh_approximation) {
    const T x2 = x * x;
    const T t = std::tanh(T(kSqrt2OverPi) * (x + T(kGeluTanhCubic) * x2 * x));
    const T dinner = T(kSqrt2OverPi) * (T(1) + T(3 * kGeluTanhCubic) * x2);
    return T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * dinner;
  }
  const T cdf = T(0.5) * (T(1) + std::erf(x * T(kSqrtHalf)));
  const T pdf = T(kInvSqrt2Pi) * std::exp(T(-0.5) * x * x);
  return cdf + x * pdf;
}

// A gradient helper: out = f(grad_output, second) over float dtypes only.
template <class F>
Tensor float_backward(const char* op, const Tensor& grad_output, const Tensor& second, F f) {
  Tensor out;
  TensorIterator it = binary_iterator(op, BinaryKind::FloatOnly, grad_output, second, out);
  cpu::visit_floating_type(it.compute_dtype(), [&]<class T>() {
    cpu::binary_loop_grain<T, T>(it, [f](auto g, auto y) { return f(g, y); }, kTranscendentalGrain);
  });
  return out;
}
}  // namespace

GB_UNARY_CPU_KERNELS(sigmoid, Sigmoid)
GB_UNARY_CPU_KERNELS(silu, Silu)

Tensor relu_cpu(const Tensor& self) {
  Tensor out;
  cpu::run_unary<Relu>("relu", self, out);
  return out;
}
Tensor& relu_cpu_(Tensor& self) { return cpu::run_unary<Relu>("relu_", self, self); }

Tensor gelu_cpu(const Tensor& self, std::string_view approximate) {
  Tensor out;
  run_gelu("gelu", approximate, self, out);
  return out;
}
Tensor& gelu_cpu_(Tensor& self, std::string_view approximate) { return run_gelu("gelu_", approximate, self, self); }
Tensor& gelu_out_cpu(const Tensor& self, std::string_view approximate, Tensor& out) {
  return run_gelu("gelu.out", approximate, self, out);
}

// sigmoid' = y (1 - y) and tanh' = 1 - y^2, written in terms of the forward output y.
Tensor sigmoid_backward_cpu(const Tensor& grad_output, const Tensor& output) {
  return float_backward("sigmoid_backward", grad_output, output, [](auto g, auto y) { return g * y * (decltype(y)(1) - y); });
}
Tensor tanh_backward_cpu(const Tensor& grad_output, const Tensor& output) {
  return float_backward("tanh_backward", grad_output, output, [](auto g, auto y) { return g * (decltype(y)(1) - y * y); });
}
Tensor silu_backward_cpu(const Tensor& grad_output, const Tensor& self) {
  return float_backward("silu_backward", grad_output, self, [](auto g, auto x) {
    using T = decltype(x);
    const T s = T(1) / (T(1) + std::exp(-x));
    return g * s * (T(1) + x * (T(1) - s));
  });
}
Tensor gelu_backward_cpu(const Tensor& grad_output, const Tensor& self, std::string_view approximate) {
  const bool use_tanh = gelu_uses_tanh("gelu_backward", approximate);
  return float_backward("gelu_backward", grad_output, self,
                        [use_tanh](auto g, auto x) { return g * gelu_derivative(x, use_tanh); });
}

// relu's gradient: grad where self > threshold, else 0 (any numeric dtype).
Tensor threshold_backward_cpu(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  Tensor out;
  TensorIterator it = binary_iterator("threshold_backward", BinaryKind::Numeric, grad_output, self, out);
  cpu::visit_numeric_type(it.compute_dtype(), [&]<class T>() {
    using C = cpu::compute_t<T>;
    const C th = static_cast<C>(threshold.to_double());
    cpu::binary_loop<T, T>(it, [th](C g, C x) { return x <= th ? C(0) : g; });
  });
  return out;
}

}  // namespace glassbox::native
