// Loss functions and their backward helpers on the CPU. The element-wise losses run through
// TensorIterator (broadcasting, dtype conversion) and then the shared reduction loop.
#include <cmath>

#include "engine/core/error.h"
#include "engine/cpu/reduce_ops.h"
#include "engine/ops/loss_shape.h"
#include "glassbox/ops/native/binary_cross_entropy.h"
#include "glassbox/ops/native/binary_cross_entropy_backward.h"
#include "glassbox/ops/native/binary_cross_entropy_with_logits.h"
#include "glassbox/ops/native/binary_cross_entropy_with_logits_backward.h"
#include "glassbox/ops/native/l1_loss.h"
#include "glassbox/ops/native/mse_loss.h"
#include "glassbox/ops/native/mse_loss_backward.h"
#include "glassbox/ops/native/nll_loss.h"
#include "glassbox/ops/native/nll_loss_backward.h"

namespace glassbox::native {

namespace {
constexpr int kMaxInputs = 5;

// out = f(v) element-wise over the inputs (broadcast, converted to dtype); v[k] is input k's value.
template <class F>
Tensor pointwise(const char* op, std::initializer_list<const Tensor*> inputs, ScalarType dtype, F f) {
  Tensor out;
  TensorIteratorConfig config(op);
  config.add_output(&out).compute_dtype(dtype);
  for (const Tensor* in : inputs) config.add_input(*in);
  TensorIterator it = config.build();
  const int nin = static_cast<int>(inputs.size());
  visit_scalar_type(dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<cpu::compute_t<T>>) {
      using A = cpu::compute_t<T>;
      it.for_each([&](char** data, const int64_t* s, int64_t n) {
        A v[kMaxInputs];
        for (int64_t i = 0; i < n; ++i) {
          for (int k = 0; k < nin; ++k) v[k] = cpu::load<T>(data[k + 1] + i * s[k + 1]);
          cpu::store<T>(data[0] + i * s[0], f(v));
        }
      });
    }
  });
  it.finish();
  return out;
}

// The 0-d sum or mean of a loss computed element-wise (or the loss itself for Reduction::None).
Tensor reduce_loss(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::None) return loss;
  Tensor result = empty_tensor({}, loss.dtype(), loss.device());
  cpu::ReduceGeometry g;
  g.data = loss;
  g.reduced = loss.numel();
  const double n = static_cast<double>(loss.numel());
  visit_scalar_type(loss.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<cpu::compute_t<T>>) {
      using A = cpu::compute_t<T>;
      cpu::write_values(result, cpu::reduce_values<T>(g, cpu::SumOp<A>{}), [&](A s, size_t) {
        return reduction == Reduction::Mean ? static_cast<A>(s / n) : s;
      });
    }
  });
  return result;
}

// The factor a Mean reduction divides by.
double mean_scale(int64_t reduction, int64_t numel) {
  return reduction == Reduction::Mean ? 1.0 / static_cast<double>(numel) : 1.0;
}

template <class A>
A log_sigmoid(A x) {
  return std::min(x, A(0)) - std::log1p(std::exp(-std::abs(x)));
}

int64_t numel_of(const DimVector& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}
}  // namespace

Tensor mse_loss_cpu(const Tensor& self, const Tensor& target, int64_t reduction) {
  const LossShape r = pointwise_loss_shape("mse_loss", self, target, reduction);
  return reduce_loss(pointwise("mse_loss", {&self, &target}, r.dtype, [](auto* v) { return (v[0] - v[1]) * (v[0] - v[1]); }),
                     reduction);
}

Tensor l1_loss_cpu(const Tensor& self, const Tensor& target, int64_t reduction) {
  const LossShape r = pointwise_loss_shape("l1_loss", self, target, reduction);
  return reduce_loss(pointwise("l1_loss", {&self, &target}, r.dtype, [](auto* v) { return std::abs(v[0] - v[1]); }),
                     reduction);
}

// d/dself of mean((self - target)^2) = 2 (self - target) grad / N; the gradient has the broadcast shape.
Tensor mse_loss_backward_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction) {
  const LossShape fwd = pointwise_loss_shape("mse_loss_backward", self, target, reduction);
  const DimVector full = broadcast_shapes(self.sizes(), target.sizes(), "mse_loss_backward");
  loss_backward_shape("mse_loss_backward", grad_output, fwd, self, full);
  const double scale = 2.0 * mean_scale(reduction, numel_of(full));
  return pointwise("mse_loss_backward", {&self, &target, &grad_output}, fwd.dtype, [scale](auto* v) {
    using A = std::remove_cvref_t<decltype(v[0])>;
    return static_cast<A>(scale) * (v[0] - v[1]) * v[2];
  });
}

// -w (y log x + (1 - y) log(1 - x)), each log clamped at -100 so that x = 0 or 1 stays finite.
Tensor binary_cross_entropy_cpu(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                int64_t reduction) {
  const LossShape r = bce_shape("binary_cross_entropy", self, target, weight, std::nullopt, reduction);
  const bool weighted = weight && weight->defined();
  auto loss = [&](auto* v) {
    using A = std::remove_cvref_t<decltype(v[0])>;
    const A x = v[0], y = v[1];
    if (!(x >= A(0) && x <= A(1)))
      throw Error("binary_cross_entropy: every element of self must be in [0, 1], got " + std::to_string(static_cast<double>(x)) +
                       " (self of shape " + shape_to_string(self.sizes()) + ")");
    const A l = -(y * std::max(std::log(x), A(-100)) + (A(1) - y) * std::max(std::log1p(-x), A(-100)));
    return weighted ? l * v[2] : l;
  };
  const Tensor l = weighted ? pointwise("binary_cross_entropy", {&self, &target, &*weight}, r.dtype, loss)
                            : pointwise("binary_cross_entropy", {&self, &target}, r.dtype, loss);
  return reduce_loss(l, reduction);
}

// grad w (x - y) / max(x (1 - x), 1e-12), divided by N for the mean.
Tensor binary_cross_entropy_backward_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                         const std::optional<Tensor>& weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_backward";
  const LossShape fwd = bce_shape(op, self, target, weight, std::nullopt, reduction);
  loss_backward_shape(op, grad_output, fwd, self, self.sizes());
  const double scale = mean_scale(reduction, self.numel());
  const bool weighted = weight && weight->defined();
  auto grad = [&](auto* v) {
    using A = std::remove_cvref_t<decltype(v[0])>;
    const A x = v[0], y = v[1];
    const A g = static_cast<A>(scale) * v[2] * (x - y) / std::max(x * (A(1) - x), A(1e-12));
    return weighted ? g * v[3] : g;
  };
  return weighted ? pointwise(op, {&self, &target, &grad_output, &*weight}, fwd.dtype, grad)
                  : pointwise(op, {&self, &target, &grad_output}, fwd.dtype, grad);
}

namespace {
// The inputs of the logits losses in a fixed order: self, target, then what is given.
struct LogitsInputs {
  std::vector<const Tensor*> list;
  int weight = -1, pos_weight = -1;
};
Tensor logits_pointwise(const char* op, LogitsInputs in, ScalarType dtype, const Tensor* grad, bool backward,
                        double scale) {
  if (grad) in.list.push_back(grad);
  const int w = in.weight, p = in.pos_weight, gi = grad ? static_cast<int>(in.list.size()) - 1 : -1;
  auto f = [=](auto* v) {
    using A = std::remove_cvref_t<decltype(v[0])>;
    const A x = v[0], y = v[1];
    const A pw = p >= 0 ? v[p] : A(1);
    A r;
    if (backward) {
      // d/dx = sigmoid(x) (1 - y + p y) - p y
      const A sig = A(1) / (A(1) + std::exp(-x));
      r = static_cast<A>(scale) * v[gi] * (sig * (A(1) - y + pw * y) - pw * y);
    } else {
      r = -(pw * y * log_sigmoid(x) + (A(1) - y) * log_sigmoid(-x));
    }
    return w >= 0 ? r * v[w] : r;
  };
  switch (in.list.size()) {
    case 2: return pointwise(op, {in.list[0], in.list[1]}, dtype, f);
    case 3: return pointwise(op, {in.list[0], in.list[1], in.list[2]}, dtype, f);
    case 4: return pointwise(op, {in.list[0], in.list[1], in.list[2], in.list[3]}, dtype, f);
    default: return pointwise(op, {in.list[0], in.list[1], in.list[2], in.list[3], in.list[4]}, dtype, f);
  }
}
LogitsInputs logits_inputs(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                           const std::optional<Tensor>& pos_weight) {
  LogitsInputs in;
  in.list = {&self, &target};
  if (weight && weight->defined()) in.weight = static_cast<int>(in.list.size()), in.list.push_back(&*weight);
  if (pos_weight && pos_weight->defined()) in.pos_weight = static_cast<int>(in.list.size()), in.list.push_back(&*pos_weight);
  return in;
}
}  // namespace

// -w (p y log sigmoid(x) + (1 - y) log sigmoid(-x)), with log sigmoid written to never overflow.
Tensor binary_cross_entropy_with_logits_cpu(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                            const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_with_logits";
  const LossShape r = bce_shape(op, self, target, weight, pos_weight, reduction);
  return reduce_loss(logits_pointwise(op, logits_inputs(self, target, weight, pos_weight), r.dtype, nullptr, false, 1.0),
                     reduction);
}

Tensor binary_cross_entropy_with_logits_backward_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const char* op = "binary_cross_entropy_with_logits_backward";
  const LossShape fwd = bce_shape(op, self, target, weight, pos_weight, reduction);
  loss_backward_shape(op, grad_output, fwd, self, self.sizes());
  return logits_pointwise(op, logits_inputs(self, target, weight, pos_weight), fwd.dtype, &grad_output, true,
                          mean_scale(reduction, self.numel()));
}

namespace {
// nll_loss's inputs as contiguous rows: log-probabilities [N, C], targets [N] (int64), weights [C].
struct NllInputs {
  Tensor self, target, weight;
  int64_t n, classes;
};
NllInputs nll_inputs(const char* op, const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                     int64_t ignore_index) {
  NllInputs in;
  in.self = self.contiguous();
  in.target = cpu::converted(target, ScalarType::Int64).contiguous();
  in.classes = self.sizes()[self.dim() - 1];
  in.n = self.dim() == 2 ? self.sizes()[0] : 1;
  if (weight && weight->defined()) in.weight = cpu::converted(*weight, self.dtype()).contiguous();
  const int64_t* t = in.target.data<int64_t>();
  for (int64_t i = 0; i < in.n; ++i)
    if (t[i] != ignore_index && (t[i] < 0 || t[i] >= in.classes))
      throw IndexError(std::string(op) + ": target " + std::to_string(t[i]) + " is out of bounds for " +
                       std::to_string(in.classes) + " classes (self of shape " + shape_to_string(self.sizes()) + ")");
  return in;
}
}  // namespace

// Per sample -w[t] self[i, t] (0 where t == ignore_index); the mean divides by the total weight
// of the samples that count.
Tensor nll_loss_cpu(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                    int64_t ignore_index) {
  const LossShape r = nll_loss_shape(self, target, weight, reduction);
  const NllInputs in = nll_inputs("nll_loss", self, target, weight, ignore_index);
  Tensor result = empty_tensor(r.shape, r.dtype, self.device());
  visit_scalar_type(r.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<cpu::compute_t<T>>) {
      using A = cpu::compute_t<T>;
      const T* x = in.self.data<T>();
      const int64_t* t = in.target.data<int64_t>();
      const T* w = in.weight.defined() ? in.weight.data<T>() : nullptr;
      std::vector<A> per(static_cast<size_t>(in.n)), weights(static_cast<size_t>(in.n));
      for (int64_t i = 0; i < in.n; ++i) {
        const bool counts = t[i] != ignore_index;
        weights[i] = counts ? (w ? static_cast<A>(w[t[i]]) : A(1)) : A(0);
        per[i] = counts ? -weights[i] * static_cast<A>(x[i * in.classes + t[i]]) : A(0);
      }
      T* out = result.data<T>();
      if (reduction == Reduction::None) {
        for (int64_t i = 0; i < in.n; ++i) out[i] = static_cast<T>(per[i]);
      } else {
        const A total = cpu::reduce_run<cpu::SumOp<A>>(per.data(), in.n, cpu::SumOp<A>{});
        const A total_weight = cpu::reduce_run<cpu::SumOp<A>>(weights.data(), in.n, cpu::SumOp<A>{});
        out[0] = static_cast<T>(reduction == Reduction::Mean ? total / total_weight : total);
      }
    }
  });
  return result;
}

// grad[i, t] = -w[t] grad_output (per sample for Reduction::None), over the total weight for the mean.
Tensor nll_loss_backward_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                             const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index) {
  const LossShape fwd = nll_loss_shape(self, target, weight, reduction);
  const LossShape r = loss_backward_shape("nll_loss_backward", grad_output, fwd, self, self.sizes());
  const NllInputs in = nll_inputs("nll_loss_backward", self, target, weight, ignore_index);
  const Tensor g = cpu::converted(grad_output, r.dtype).contiguous();
  Tensor result = empty_tensor(r.shape, r.dtype, self.device());
  visit_scalar_type(r.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<cpu::compute_t<T>>) {
      using A = cpu::compute_t<T>;
      const int64_t* t = in.target.data<int64_t>();
      const T* w = in.weight.defined() ? in.weight.data<T>() : nullptr;
      const T* gv = g.data<T>();
      T* out = result.data<T>();
      std::fill(out, out + result.numel(), T(0.0f));
      A total_weight = 0;
      for (int64_t i = 0; i < in.n; ++i)
        if (t[i] != ignore_index) total_weight += w ? static_cast<A>(w[t[i]]) : A(1);
      for (int64_t i = 0; i < in.n; ++i) {
        if (t[i] == ignore_index) continue;
        A scale = static_cast<A>(reduction == Reduction::None ? gv[i] : gv[0]);
        if (reduction == Reduction::Mean) scale /= total_weight;
        out[i * in.classes + t[i]] = static_cast<T>(-(w ? static_cast<A>(w[t[i]]) : A(1)) * scale);
      }
    }
  });
  return result;
}

}  // namespace glassbox::native
