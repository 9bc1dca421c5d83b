#pragma once
// The loss family's arithmetic (engine/ops/losses.h), written once for both backends: the
// element-wise formulas as functors of the values in the loss's compute type A (float for
// float16/bfloat16), and nll_loss per sample as functors of the sample index, which the CPU runs
// in a loop and CUDA one thread per sample (engine/cuda/for_each_launch.cuh).
#include <cmath>
#include <cstdint>

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

// The formulas of LossFormula, each with its operand count; `scale` is the gradients' factor.
struct SquaredError {
  static constexpr int arity = 2;
  template <class A>
  GLASSBOX_HOST_DEVICE A operator()(A x, A y) const {
    return (x - y) * (x - y);
  }
};
struct AbsoluteError {
  static constexpr int arity = 2;
  template <class A>
  GLASSBOX_HOST_DEVICE A operator()(A x, A y) const {
    return std::fabs(x - y);
  }
};
struct SquaredErrorGrad {
  static constexpr int arity = 3;
  double scale;
  template <class A>
  GLASSBOX_HOST_DEVICE A operator()(A x, A y, A g) const {
    return static_cast<A>(scale) * (x - y) * g;
  }
};
// Each log is clamped at -100, as PyTorch does, so that a confident wrong answer costs 100, not inf.
struct Bce {
  static constexpr int arity = 3;
  template <class A>
  GLASSBOX_HOST_DEVICE A operator()(A x, A y, A w) const {
    return -(y * at_least(std::log(x), A(-100)) + (A(1) - y) * at_least(std::log1p(-x), A(-100))) * w;
  }
};
struct BceGrad {
  static constexpr int arity = 4;
  double scale;
  template <class A>
  GLASSBOX_HOST_DEVICE A operator()(A x, A y, A g, A w) const {
    return static_cast<A>(scale) * g * (x - y) / at_least(x * (A(1) - x), A(1e-12)) * w;
  }
};
struct Logits {
  static constexpr int arity = 4;
  template <class A>
  GLASSBOX_HOST_DEVICE A operator()(A x, A y, A w, A p) const {
    return -(p * y * log_sigmoid(x) + (A(1) - y) * log_sigmoid(-x)) * w;
  }
};
struct LogitsGrad {
  static constexpr int arity = 5;
  double scale;
  template <class A>
  GLASSBOX_HOST_DEVICE A operator()(A x, A y, A w, A p, A g) const {
    return static_cast<A>(scale) * g * (A(1) / (A(1) + std::exp(-x)) * (A(1) - y + p * y) - p * y) * w;
  }
};

// run(functor) with the functor of `formula`.
template <class Run>
void with_loss_formula(LossFormula formula, double scale, Run&& run) {
  switch (formula) {
    case LossFormula::SquaredError: return run(SquaredError{});
    case LossFormula::AbsoluteError: return run(AbsoluteError{});
    case LossFormula::SquaredErrorGrad: return run(SquaredErrorGrad{scale});
    case LossFormula::Bce: return run(Bce{});
    case LossFormula::BceGrad: return run(BceGrad{scale});
    case LossFormula::Logits: return run(Logits{});
    case LossFormula::LogitsGrad: return run(LogitsGrad{scale});
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
    if (t == ignore_index) return;
    A scale = static_cast<A>(g[reduction == Reduction::None ? i : 0]);
    if (reduction == Reduction::Mean) scale /= *total_weight;
    grad[i * classes + t] = static_cast<T>(-(w ? static_cast<A>(w[t]) : A(1)) * scale);
  }
};

}  // namespace glassbox::kernels
