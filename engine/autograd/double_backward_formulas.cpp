// Second derivatives of the activations, softmax and losses: the backward operators' own
// gradients, written with differentiable operators so that higher orders follow too.
#include <algorithm>
#include <cmath>
#include <string_view>

#include "engine/autograd/formulas.h"
#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/Types.h"

namespace glassbox::autograd {

namespace {
Tensor grad_times(const Tensor& grad, const Tensor& grad_output) { return glassbox::mul(grad, grad_output); }
// 1 - c * t
Tensor one_minus(const Tensor& t, double c) { return glassbox::add(glassbox::mul(t, Scalar(-c)), Scalar(1.0)); }
}  // namespace

// d/dy [go * y (1 - y)] = go (1 - 2y)
Tensor sigmoid_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output) {
  return glassbox::mul(grad_times(grad, grad_output), one_minus(output, 2.0));
}

// d/dy [go (1 - y^2)] = -2 go y
Tensor tanh_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output) {
  return glassbox::mul(grad_times(grad, grad_output), glassbox::mul(output, Scalar(-2.0)));
}

// silu'(x) = s (1 + x (1 - s)) with s = sigmoid(x); silu''(x) = s (1 - s) (2 + x (1 - 2s)).
Tensor silu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self) {
  const Tensor s = glassbox::sigmoid(self);
  const Tensor ds = glassbox::mul(s, one_minus(s, 1.0));
  const Tensor second = glassbox::mul(ds, glassbox::add(glassbox::mul(self, one_minus(s, 2.0)), Scalar(2.0)));
  return glassbox::mul(grad_times(grad, grad_output), second);
}

Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                            std::string_view approximate) {
  Tensor second;
  if (approximate == "tanh") {
    // gelu(x) = x/2 (1 + tanh(u)), u = k (x + c x^3):
    // gelu'' = (1 - t^2) u' + x/2 (1 - t^2) (u'' - 2 t u'^2), u' = k (1 + 3c x^2), u'' = 6 k c x.
    const double k = std::sqrt(2.0 / M_PI), c = 0.044715;
    const Tensor x2 = glassbox::mul(self, self);
    const Tensor t = glassbox::tanh(
        glassbox::mul(glassbox::add(self, glassbox::mul(glassbox::mul(x2, self), Scalar(c))), Scalar(k)));
    const Tensor sech2 = one_minus(glassbox::mul(t, t), 1.0);
    const Tensor du = glassbox::mul(glassbox::add(glassbox::mul(x2, Scalar(3 * c)), Scalar(1.0)), Scalar(k));
    const Tensor d2u = glassbox::mul(self, Scalar(6 * k * c));
    const Tensor inner = glassbox::sub(d2u, glassbox::mul(glassbox::mul(t, glassbox::mul(du, du)), Scalar(2.0)));
    second = glassbox::mul(sech2, glassbox::add(du, glassbox::mul(glassbox::mul(self, Scalar(0.5)), inner)));
  } else {
    // gelu(x) = x Phi(x): gelu'' = phi(x) (2 - x^2), phi the standard normal density.
    const Tensor x2 = glassbox::mul(self, self);
    const Tensor phi = glassbox::mul(glassbox::exp(glassbox::mul(x2, Scalar(-0.5))), Scalar(1.0 / std::sqrt(2 * M_PI)));
    second = glassbox::mul(phi, glassbox::add(glassbox::neg(x2), Scalar(2.0)));
  }
  return glassbox::mul(grad_times(grad, grad_output), second);
}

// softmax's backward is y (go - sum(go y)); for output y_k:
// grad_k (go_k - sum(go y)) - go_k sum(grad y).
Tensor softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output, int64_t dim) {
  const Tensor go_dot_y = glassbox::sum(glassbox::mul(grad_output, output), IntArrayRef{dim}, true);
  const Tensor grad_dot_y = glassbox::sum(glassbox::mul(grad, output), IntArrayRef{dim}, true);
  return glassbox::sub(glassbox::mul(grad, glassbox::sub(grad_output, go_dot_y)),
                       glassbox::mul(grad_output, grad_dot_y));
}

// log_softmax's backward is go - p sum(go), p = exp(output): for go, grad - sum(grad p).
Tensor log_softmax_double_backward_grad_output(const Tensor& grad, const Tensor& output, int64_t dim) {
  return glassbox::sub(grad, glassbox::sum(glassbox::mul(grad, glassbox::exp(output)), IntArrayRef{dim}, true));
}

// ... and for output, -grad p sum(go).
Tensor log_softmax_double_backward_output(const Tensor& grad, const Tensor& grad_output, const Tensor& output,
                                          int64_t dim) {
  const Tensor go_sum = glassbox::sum(grad_output, IntArrayRef{dim}, true);
  return glassbox::neg(glassbox::mul(glassbox::mul(grad, glassbox::exp(output)), go_sum));
}

namespace {
// The divisor of mse_loss's mean.
Scalar mse_scale(const Tensor& self, int64_t reduction) {
  return Scalar(reduction == Reduction::Mean ? 2.0 / static_cast<double>(std::max<int64_t>(self.numel(), 1)) : 2.0);
}
}  // namespace

Tensor mse_loss_double_backward_grad_output(const Tensor& grad, const Tensor& self, const Tensor& target,
                                            int64_t reduction) {
  return glassbox::mul(glassbox::mul(grad, glassbox::sub(self, target)), mse_scale(self, reduction));
}

Tensor mse_loss_double_backward_self(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                     int64_t reduction) {
  return glassbox::mul(grad_times(grad, grad_output), mse_scale(self, reduction));
}

}  // namespace glassbox::autograd
