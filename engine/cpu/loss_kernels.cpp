// The loss family's CPU loops (the front end, with every check, is engine/ops/losses.cpp; the
// arithmetic is engine/ops/kernels/loss.h).
#include <utility>

#include "engine/core/error.h"
#include "engine/cpu/for_each_index.h"
#include "engine/cpu/loops.h"
#include "engine/ops/kernels/loss.h"

namespace glassbox::cpu {

namespace {
using namespace kernels;

// out[i] = f(in_0[i], ..., in_k[i]) over the iterator, in A.
template <class T, class F, size_t... K>
void run(TensorIterator& it, const F& f, std::index_sequence<K...>) {
  it.for_each([&](char** data, const int64_t* st, int64_t n) {
    for (int64_t i = 0; i < n; ++i) store<T>(data[0] + i * st[0], f(load<T>(data[K + 1] + i * st[K + 1])...));
  });
}

void pointwise(LossFormula formula, TensorIterator& it, double scale) {
  visit_scalar_type(it.operand(0).dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      with_loss_formula(formula, scale, [&](const auto& f, auto arity) {
        run<T>(it, f, std::make_index_sequence<decltype(arity)::value>{});
      });
    }
  });
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

// The samples run in order on this thread, so the first bad one is the smallest index seen.
struct FirstBad {
  static void report(unsigned long long* first, int64_t i) {
    if (static_cast<unsigned long long>(i) < *first) *first = static_cast<unsigned long long>(i);
  }
};

void nll_samples(const Tensor& x, const Tensor& target, const Tensor& weight, int64_t ignore_index, Tensor& loss,
                 Tensor& weights, const std::function<void(int64_t)>& raise) {
  const int64_t n = loss.numel();
  unsigned long long first_bad = n;
  visit_scalar_type(x.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      using A = opmath_t<T>;
      const NllSample<T, A, FirstBad> f{x.data<T>(),
                                        target.data<int64_t>(),
                                        weight.defined() ? weight.data<T>() : nullptr,
                                        loss.data<A>(),
                                        weights.data<A>(),
                                        x.sizes()[x.dim() - 1],
                                        ignore_index,
                                        &first_bad};
      for (int64_t i = 0; i < n; ++i) f(i);
    }
  });
  if (first_bad < static_cast<unsigned long long>(n)) raise(target.data<int64_t>()[first_bad]);
}

void nll_backward(const Tensor& target, const Tensor& weight, const Tensor& g, const Tensor& total_weight,
                  int64_t ignore_index, int64_t reduction, Tensor& grad) {
  visit_scalar_type(grad.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      using A = opmath_t<T>;
      for_each_index(target.numel(), kDefaultGrain,
                     NllInputGrad<T, A>{target.data<int64_t>(), weight.defined() ? weight.data<T>() : nullptr,
                                        g.data<T>(), total_weight.data<A>(), grad.data<T>(),
                                        grad.sizes()[grad.dim() - 1], ignore_index, reduction});
    }
  });
}

const LossBackend kLosses{pointwise, first_non_probability, nll_samples, nll_backward};
const LossBackends::Registration kRegistered(DeviceType::CPU, kLosses);
}  // namespace

}  // namespace glassbox::cpu
