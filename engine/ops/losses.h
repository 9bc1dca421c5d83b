#pragma once
// The loss family (mse_loss, l1_loss, binary_cross_entropy, binary_cross_entropy_with_logits,
// nll_loss and their backward helpers): one front end (losses.cpp) is each operator's kernel on CPU,
// CUDA and Meta. It checks the arguments (loss_shape.h), lines the inputs up in a TensorIterator
// (broadcast, converted to the loss's dtype) and reduces the element-wise loss; a backend supplies
// only the loops (LossBackend). Meta has none: its kernel is the front end without compute.
#include <functional>
#include <optional>

#include "engine/ops/backend_table.h"
#include "engine/ops/tensor_iterator.h"

namespace glassbox {

// The element-wise formulas, each named with its operands after the output (x: self, y: target,
// w: weight, p: pos_weight, g: grad_output); `scale` is the gradients' factor (1 / N for a mean).
enum class LossFormula {
  SquaredError,      // (x, y): (x - y)^2
  AbsoluteError,     // (x, y): |x - y|
  SquaredErrorGrad,  // (x, y, g): 2 scale (x - y) g
  Bce,               // (x, y, w): -w (y log x + (1 - y) log(1 - x)), each log clamped at -100
  BceGrad,           // (x, y, g, w): scale g w (x - y) / max(x (1 - x), 1e-12)
  Logits,            // (x, y, w, p): -w (p y log sigmoid(x) + (1 - y) log sigmoid(-x))
  LogitsGrad,        // (x, y, w, p, g): scale g w (sigmoid(x) (1 - y + p y) - p y)
};

struct LossBackend {
  // The iterator's output = formula(inputs) element-wise, every operand in the loss's dtype.
  void (*pointwise)(LossFormula formula, TensorIterator& it, double scale);
  // The first element of self (row-major, as `dtype`) outside [0, 1], NaN included, if any.
  std::optional<double> (*first_non_probability)(const Tensor& self, ScalarType dtype);
  // nll_loss per sample of x [n, classes] (contiguous): loss[i] = -w[t] x[i, t] and weights[i] = w[t],
  // both 0 where t = target[i] (Int64) is ignore_index; weight undefined: 1. loss and weights are
  // contiguous [n] of the compute dtype. The first target outside [0, classes) that is not
  // ignore_index, if any, goes to `raise` (which throws): before returning on the CPU, at the next
  // synchronisation on CUDA (engine/cuda/deferred_checks.h). Such a target adds nothing.
  void (*nll_samples)(const Tensor& x, const Tensor& target, const Tensor& weight, int64_t ignore_index, Tensor& loss,
                      Tensor& weights, const std::function<void(int64_t)>& raise);
  // grad (zeroed, [n, classes] contiguous): grad[i, t] = -w[t] g[i] (g[0] unless Reduction::None),
  // divided by total_weight (a 0-d tensor of the compute dtype) for Reduction::Mean. Targets outside
  // [0, classes) are skipped (nll_samples reports them).
  void (*nll_backward)(const Tensor& target, const Tensor& weight, const Tensor& g, const Tensor& total_weight,
                       int64_t ignore_index, int64_t reduction, Tensor& grad);
};
using LossBackends = BackendTable<LossBackend>;

}  // namespace glassbox
