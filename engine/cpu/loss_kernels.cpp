// The loss family's CPU loops (the front end, with every check, is engine/ops/losses.cpp).
#include <cmath>

#include "engine/core/error.h"
#include "engine/cpu/loops.h"
#include "engine/ops/losses.h"

namespace glassbox::cpu {

namespace {
using F = LossFormula;

template <class A>
A log_sigmoid(A x) {
  return std::min(x, A(0)) - std::log1p(std::exp(-std::abs(x)));
}

// The formulas of losses.h; v holds the inputs' values in their order.
template <F kF, class A>
A formula(const A* v, A scale) {
  const A x = v[0], y = v[1];
  if constexpr (kF == F::SquaredError) return (x - y) * (x - y);
  else if constexpr (kF == F::AbsoluteError) return std::abs(x - y);
  else if constexpr (kF == F::SquaredErrorGrad) return scale * (x - y) * v[2];
  else if constexpr (kF == F::Bce)
    return -(y * std::max(std::log(x), A(-100)) + (A(1) - y) * std::max(std::log1p(-x), A(-100))) * v[2];
  else if constexpr (kF == F::BceGrad) return scale * v[2] * (x - y) / std::max(x * (A(1) - x), A(1e-12)) * v[3];
  else if constexpr (kF == F::Logits) return -(v[3] * y * log_sigmoid(x) + (A(1) - y) * log_sigmoid(-x)) * v[2];
  else return scale * v[4] * (A(1) / (A(1) + std::exp(-x)) * (A(1) - y + v[3] * y) - v[3] * y) * v[2];
}

template <F kF>
void run(TensorIterator& it, double scale) {
  const int inputs = it.num_operands() - 1;
  visit_scalar_type(it.operand(0).dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      using A = opmath_t<T>;
      const A s = static_cast<A>(scale);
      it.for_each([&](char** data, const int64_t* st, int64_t n) {
        A v[5];
        for (int64_t i = 0; i < n; ++i) {
          for (int k = 0; k < inputs; ++k) v[k] = load<T>(data[k + 1] + i * st[k + 1]);
          store<T>(data[0] + i * st[0], formula<kF, A>(v, s));
        }
      });
    }
  });
}

void pointwise(F formula, TensorIterator& it, double scale) {
  switch (formula) {
    case F::SquaredError: return run<F::SquaredError>(it, scale);
    case F::AbsoluteError: return run<F::AbsoluteError>(it, scale);
    case F::SquaredErrorGrad: return run<F::SquaredErrorGrad>(it, scale);
    case F::Bce: return run<F::Bce>(it, scale);
    case F::BceGrad: return run<F::BceGrad>(it, scale);
    case F::Logits: return run<F::Logits>(it, scale);
    case F::LogitsGrad: return run<F::LogitsGrad>(it, scale);
  }
}

std::optional<double> first_non_probability(const Tensor& self, ScalarType dtype) {
  const Tensor x = (self.dtype() == dtype ? self : self.to(dtype)).contiguous();
  std::optional<double> bad;
  visit_scalar_type(dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      const T* p = x.data<T>();
      for (int64_t i = 0; i < x.numel() && !bad; ++i) {
        const opmath_t<T> v = static_cast<opmath_t<T>>(p[i]);
        if (!(v >= 0 && v <= 1)) bad = static_cast<double>(v);
      }
    }
  });
  return bad;
}

std::optional<int64_t> nll_samples(const Tensor& x, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                                   Tensor& loss, Tensor& weights) {
  const int64_t* t = target.data<int64_t>();
  const int64_t n = loss.numel(), classes = x.sizes()[x.dim() - 1];
  for (int64_t i = 0; i < n; ++i)
    if (t[i] != ignore_index && (t[i] < 0 || t[i] >= classes)) return t[i];
  visit_scalar_type(x.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      using A = opmath_t<T>;
      const T* xv = x.data<T>();
      const T* w = weight.defined() ? weight.data<T>() : nullptr;
      A *l = loss.data<A>(), *ws = weights.data<A>();
      for (int64_t i = 0; i < n; ++i) {
        const bool counts = t[i] != ignore_index;
        ws[i] = counts ? (w ? static_cast<A>(w[t[i]]) : A(1)) : A(0);
        l[i] = counts ? -ws[i] * static_cast<A>(xv[i * classes + t[i]]) : A(0);
      }
    }
  });
  return std::nullopt;
}

void nll_backward(const Tensor& target, const Tensor& weight, const Tensor& g, const Tensor& total_weight,
                  int64_t ignore_index, int64_t reduction, Tensor& grad) {
  const int64_t* t = target.data<int64_t>();
  const int64_t n = target.numel(), classes = grad.sizes()[grad.dim() - 1];
  visit_scalar_type(grad.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      using A = opmath_t<T>;
      const T* w = weight.defined() ? weight.data<T>() : nullptr;
      const T* gv = g.data<T>();
      const A total = *total_weight.data<A>();
      T* out = grad.data<T>();
      for (int64_t i = 0; i < n; ++i) {
        if (t[i] == ignore_index) continue;
        A scale = static_cast<A>(reduction == Reduction::None ? gv[i] : gv[0]);
        if (reduction == Reduction::Mean) scale /= total;
        out[i * classes + t[i]] = static_cast<T>(-(w ? static_cast<A>(w[t[i]]) : A(1)) * scale);
      }
    }
  });
}

const LossBackend kLosses{pointwise, first_non_probability, nll_samples, nll_backward};
const LossBackends::Registration kRegistered(DeviceType::CPU, kLosses);
}  // namespace

}  // namespace glassbox::cpu
