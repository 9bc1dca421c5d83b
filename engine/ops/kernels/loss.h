#pragma once
// The loss family's arithmetic (engine/ops/losses.h), written once for both backends: the
// element-wise formulas as functors of the values in the loss's compute type A (float for
// float16/bfloat16), and nll_loss per sample as functors of the sample index, which the CPU runs
// in a loop and CUDA one thread per sample (engine/cuda/for_each_launch.cuh).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "engine/core/host_device.h"
#include "engine/ops/losses.h"
#include "glassbox/ops/Types.h"

namespace glassbox::kernels {

// std::max's answer (a unless a < b, so a NaN `a` stays), on the device too.
template <class A>
GLASSBOX_HOST_DEVICE A at_least(A a, A b) {
  return a < b ? b : a;
}
template <class A>
GLASSBOX_HOST_DEVICE A log_sigmoid(A x) {
  return (x < A(0) ? x : A(0)) - std::log1p(std::exp(-std::fabs(x)));
}

// The formulas of LossFormula on the values v of their operands (losses.h's order) in A; `scale`
// is the gradients' factor.
template <LossFormula kF, class A>
GLASSBOX_HOST_DEVICE A loss_formula(const A* v, A scale) {
  using F = LossFormula;
  const A x = v[0], y = v[1];
  if constexpr (kF == F::SquaredError) return (x - y) * (x - y);
  else if constexpr (kF == F::AbsoluteError) return std::fabs(x - y);
  else if constexpr (kF == F::SquaredErrorGrad) return scale * (x - y) * v[2];
  // Each log is clamped at -100, as PyTorch does, so that a confident wrong answer costs 100, not inf.
  else if constexpr (kF == F::Bce)
    return -(y * at_least(std::log(x), A(-100)) + (A(1) - y) * at_least(std::log1p(-x), A(-100))) * v[2];
  else if constexpr (kF == F::BceGrad) return scale * v[2] * (x - y) / at_least(x * (A(1) - x), A(1e-12)) * v[3];
  else if constexpr (kF == F::Logits) return -(v[3] * y * log_sigmoid(x) + (A(1) - y) * log_sigmoid(-x)) * v[2];
  else return scale * v[4] * (A(1) / (A(1) + std::exp(-x)) * (A(1) - y + v[3] * y) - v[3] * y) * v[2];
}

// A formula as a functor of its operands, for the element-wise loops.
template <LossFormula kF>
struct Loss {
  double scale;
  template <class A, class... More>
  GLASSBOX_HOST_DEVICE A operator()(A x, More... more) const {
    const A v[] = {x, more...};
    return loss_formula<kF>(v, static_cast<A>(scale));
  }
};

// run(Loss<formula>{scale}, std::integral_constant<int, its operand count>{}).
template <class Run>
void with_loss_formula(LossFormula formula, double scale, Run&& run) {
  using F = LossFormula;
  using std::integral_constant;
  switch (formula) {
    case F::SquaredError: return run(Loss<F::SquaredError>{scale}, integral_constant<int, 2>{});
    case F::AbsoluteError: return run(Loss<F::AbsoluteError>{scale}, integral_constant<int, 2>{});
    case F::SquaredErrorGrad: return run(Loss<F::SquaredErrorGrad>{scale}, integral_constant<int, 3>{});
    case F::Bce: return run(Loss<F::Bce>{scale}, integral_constant<int, 3>{});
    case F::BceGrad: return run(Loss<F::BceGrad>{scale}, integral_constant<int, 4>{});
    case F::Logits: return run(Loss<F::Logits>{scale}, integral_constant<int, 4>{});
    case F::LogitsGrad: return run(Loss<F::LogitsGrad>{scale}, integral_constant<int, 5>{});
  }
}

// Sample i of log-probabilities x [n, classes]: loss[i] = -w[t] x[i, t] and weight[i] = w[t] (w
// null: 1), both 0 where t = target[i] is ignore_index; a target outside [0, classes) goes to
// Bad::report(first_bad, i).
template <class T, class A, class Bad>
struct NllSample {
  const T* x;
  const int64_t* target;
  const T* w;
  A* loss;
  A* weight;
  int64_t classes, ignore_index;
  unsigned long long* first_bad;
  GLASSBOX_HOST_DEVICE void operator()(int64_t i) const {
    const int64_t t = target[i];
    if (t == ignore_index || t < 0 || t >= classes) {
      if (t != ignore_index) Bad::report(first_bad, i);
      loss[i] = A(0), weight[i] = A(0);
      return;
    }
    const A wt = w ? static_cast<A>(w[t]) : A(1);
    loss[i] = -wt * static_cast<A>(x[i * classes + t]);
    weight[i] = wt;
  }
};

// grad[i, t] = -w[t] g (g[i] for Reduction::None, else g[0]), divided by the total weight for the mean.
template <class T, class A>
struct NllInputGrad {
  const int64_t* target;
  const T* w;
  const T* g;
  const A* total_weight;
  T* grad;
  int64_t classes, ignore_index, reduction;
  GLASSBOX_HOST_DEVICE void operator()(int64_t i) const {
    const int64_t t = target[i];
    if (t == ignore_index || t < 0 || t >= classes) return;
    A scale = static_cast<A>(g[reduction == Reduction::None ? i : 0]);
    if (reduction == Reduction::Mean) scale /= *total_weight;
    grad[i * classes + t] = static_cast<T>(-(w ? static_cast<A>(w[t]) : A(1)) * scale);
  }
};

}  // namespace glassbox::kernels
