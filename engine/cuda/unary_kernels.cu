// Unary math and activations on CUDA: neg, abs, sign, sqrt, rsqrt, exp, log, log1p, expm1, sin,
// cos, tanh, sigmoid, silu, gelu, relu and logical_not, each functional, in-place and out=. The
// dtype rules are the front end's (unary_kinds in engine/ops/pointwise_iterator.h); one functor
// per dtype serves every operator through a run-time switch.
#include <string>

#include "engine/core/error.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/elementwise_shape.h"
#include "engine/ops/pointwise_iterator.h"
#include "glassbox/ops/NativeFunctions.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

enum class Unary : int {
  Neg, Abs, Sign, Relu,  // every numeric dtype
  Sqrt, Rsqrt, Exp, Log, Log1p, Expm1, Sin, Cos, Tanh, Sigmoid, Silu, Gelu, GeluTanh,  // floating point
};

constexpr double kSqrtHalf = 0.70710678118654752440;    // 1/sqrt(2)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2/pi)
constexpr double kGeluTanhCubic = 0.044715;

// The formulas of engine/cpu/unary_kernels.cpp and activation_kernels.cpp, in the compute type.
template <class C>
__device__ __forceinline__ C float_math(Unary op, C x) {
  switch (op) {
    case Unary::Sqrt: return ::sqrt(x);
    case Unary::Rsqrt: return C(1) / ::sqrt(x);
    case Unary::Exp: return ::exp(x);
    case Unary::Log: return ::log(x);
    case Unary::Log1p: return ::log1p(x);
    case Unary::Expm1: return ::expm1(x);
    case Unary::Sin: return ::sin(x);
    case Unary::Cos: return ::cos(x);
    case Unary::Tanh: return ::tanh(x);
    case Unary::Sigmoid: return C(1) / (C(1) + ::exp(-x));
    case Unary::Silu: return x / (C(1) + ::exp(-x));
    case Unary::Gelu: return C(0.5) * x * (C(1) + ::erf(x * C(kSqrtHalf)));
    default: {
      const C inner = C(kSqrt2OverPi) * (x + C(kGeluTanhCubic) * x * x * x);
      return C(0.5) * x * (C(1) + ::tanh(inner));
    }
  }
}

template <class C>
struct UnaryFn {
  Unary op;
  __device__ C operator()(C x) const {
    if constexpr (std::is_same_v<C, bool>) {
      return x;  // only sign reaches bool, and keeps the value
    } else {
      switch (op) {
        case Unary::Neg: return static_cast<C>(-x);
        case Unary::Abs:
          if constexpr (std::is_floating_point_v<C>) return ::fabs(x);
          else if constexpr (std::is_unsigned_v<C>) return x;
          else return static_cast<C>(x < 0 ? -x : x);
        case Unary::Sign:
          // NaN gives 0, as in PyTorch (both comparisons are false).
          if constexpr (std::is_unsigned_v<C>) return static_cast<C>(x != 0);
          else return static_cast<C>((C(0) < x) - (x < C(0)));
        case Unary::Relu:
          if constexpr (std::is_unsigned_v<C>) return x;
          else return x < C(0) ? C(0) : x;  // NaN passes through
        default:
          if constexpr (std::is_floating_point_v<C>) return float_math(op, x);
          else return x;  // the front end sends integers to float math as float
      }
    }
  }
};

// Zero is false, everything else (NaN included) true.
struct LogicalNot {
  template <class C>
  __device__ bool operator()(C x) const { return x == C(0); }
};

Tensor& run_unary(const char* name, UnaryKind kind, Unary op, const Tensor& self, Tensor& out) {
  DeviceGuard guard(self.device().index);
  TensorIterator it = unary_iterator(name, kind, self, out);
  auto body = [&]<class T>() { launch_elementwise<T, T>(it, UnaryFn<opmath_t<T>>{op}); };
  switch (kind) {
    case UnaryKind::Logical:
      visit_device_type(it.compute_dtype(), [&]<class T>() { launch_elementwise<bool, T>(it, LogicalNot{}); });
      break;
    case UnaryKind::IntToFloat:
    case UnaryKind::FloatOnly: visit_float_device_type(it.compute_dtype(), body); break;
    case UnaryKind::Keep: visit_numeric_device_type(it.compute_dtype(), body); break;
    case UnaryKind::KeepWithBool: visit_device_type(it.compute_dtype(), body); break;
  }
  it.finish();
  mark_written(out);
  return out;
}
}  // namespace

#define GB_UNARY_CUDA(name, op)                                                                              \
  Tensor name##_cuda(const Tensor& self) {                                                                   \
    Tensor out;                                                                                              \
    run_unary(#name, unary_kinds::name, op, self, out);                                                      \
    return out;                                                                                              \
  }                                                                                                          \
  Tensor& name##_cuda_(Tensor& self) { return run_unary(#name "_", unary_kinds::name, op, self, self); }     \
  Tensor& name##_out_cuda(const Tensor& self, Tensor& out) {                                                 \
    return run_unary(#name ".out", unary_kinds::name, op, self, out);                                        \
  }
GB_UNARY_CUDA(abs, Unary::Abs)
GB_UNARY_CUDA(sign, Unary::Sign)
GB_UNARY_CUDA(sqrt, Unary::Sqrt)
GB_UNARY_CUDA(rsqrt, Unary::Rsqrt)
GB_UNARY_CUDA(exp, Unary::Exp)
GB_UNARY_CUDA(log, Unary::Log)
GB_UNARY_CUDA(log1p, Unary::Log1p)
GB_UNARY_CUDA(expm1, Unary::Expm1)
GB_UNARY_CUDA(sin, Unary::Sin)
GB_UNARY_CUDA(cos, Unary::Cos)
GB_UNARY_CUDA(tanh, Unary::Tanh)
GB_UNARY_CUDA(sigmoid, Unary::Sigmoid)
GB_UNARY_CUDA(silu, Unary::Silu)
GB_UNARY_CUDA(logical_not, Unary::Neg)  // the Logical kind never reads op
#undef GB_UNARY_CUDA

Tensor neg_cuda(const Tensor& self) {
  check_not_bool("neg", self, "use logical_not or ~ instead");
  Tensor out;
  run_unary("neg", unary_kinds::neg, Unary::Neg, self, out);
  return out;
}
Tensor& neg_cuda_(Tensor& self) {
  check_not_bool("neg_", self, "use logical_not_ instead");
  return run_unary("neg_", unary_kinds::neg, Unary::Neg, self, self);
}
Tensor& neg_out_cuda(const Tensor& self, Tensor& out) {
  check_not_bool("neg.out", self, "use logical_not instead");
  return run_unary("neg.out", unary_kinds::neg, Unary::Neg, self, out);
}

Tensor relu_cuda(const Tensor& self) {
  Tensor out;
  run_unary("relu", unary_kinds::relu, Unary::Relu, self, out);
  return out;
}
Tensor& relu_cuda_(Tensor& self) { return run_unary("relu_", unary_kinds::relu, Unary::Relu, self, self); }

Tensor gelu_cuda(const Tensor& self, std::string_view approximate) {
  Tensor out;
  run_unary("gelu", unary_kinds::gelu, gelu_uses_tanh("gelu", approximate) ? Unary::GeluTanh : Unary::Gelu, self, out);
  return out;
}
Tensor& gelu_cuda_(Tensor& self, std::string_view approximate) {
  return run_unary("gelu_", unary_kinds::gelu, gelu_uses_tanh("gelu_", approximate) ? Unary::GeluTanh : Unary::Gelu, self,
                   self);
}
Tensor& gelu_out_cuda(const Tensor& self, std::string_view approximate, Tensor& out) {
  return run_unary("gelu.out", unary_kinds::gelu,
                   gelu_uses_tanh("gelu.out", approximate) ? Unary::GeluTanh : Unary::Gelu, self, out);
}

}  // namespace glassbox::native
