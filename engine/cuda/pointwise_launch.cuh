#pragma once
// The CUDA compute of the structured element-wise operators: given the front end's iterator
// (engine/ops/structured_pointwise.h), visit the dtypes the family supports and launch the
// operator's functor (engine/ops/pointwise_functors.h, the same the CPU loops call) through
// launch_elementwise (elementwise.cuh), one kernel per functor and dtype.
#include <type_traits>

#include "engine/cuda/elementwise.cuh"
#include "engine/ops/pointwise_functors.h"

namespace glassbox::cuda {

template <class Fn, class F>
void visit_family_device_types(ScalarType t, F&& f) {
  if constexpr (Fn::arity == 1) {
    if constexpr (Fn::kind == UnaryKind::IntToFloat || Fn::kind == UnaryKind::FloatOnly)
      visit_floating_device_type(t, f);
    else if constexpr (Fn::kind == UnaryKind::Keep) visit_numeric_device_type(t, f);
    else visit_scalar_device_type(t, f);
  } else {
    if constexpr (Fn::kind == BinaryKind::IntToFloat || Fn::kind == BinaryKind::FloatOnly)
      visit_floating_device_type(t, f);
    else if constexpr (Fn::kind == BinaryKind::Numeric) visit_numeric_device_type(t, f);
    else visit_scalar_device_type(t, f);
  }
}

struct PointwiseCompute {
  // The device of the first CUDA tensor argument (a 0-d CPU tensor may come first).
  template <class... Args>
  static DeviceGuard guard(const Args&... args) {
    int device = -1;
    auto consider = [&](const auto& a) {
      if constexpr (std::is_same_v<std::decay_t<decltype(a)>, Tensor>) {
        if (device < 0 && a.defined() && a.device().type == DeviceType::CUDA) device = a.device().index;
      }
    };
    (consider(args), ...);
    return DeviceGuard(device < 0 ? 0 : device);
  }

  template <class Fn, class... Args>
  static bool direct(Tensor&, const Args&...) {
    return false;
  }

  template <class Fn, class... Args>
  static void compute(TensorIterator& it, const Args&... args) {
    visit_family_device_types<Fn>(it.compute_dtype(), [&]<class T>() {
      using Out = std::conditional_t<functors::has_bool_result<Fn>(), bool, T>;
      functors::with_functor<Fn, opmath_t<T>>(
          [&](const auto& f) {
        using F = std::decay_t<decltype(f)>;
        using C = opmath_t<T>;
        if constexpr (std::is_invocable_v<const F&, C>) launch_elementwise<Out, T>(it, f);
        else if constexpr (std::is_invocable_v<const F&, C, C>) launch_elementwise<Out, T, T>(it, f);
        else launch_elementwise<Out, T, T, T>(it, f);
          },
          args...);
    });
    it.finish();
  }

  static void mark_written(const Tensor& out) { cuda::mark_written(out); }
};

}  // namespace glassbox::cuda
