#pragma once
// Shape and dtype inference of the loss functions and their backward helpers, for their front end
// (losses.cpp, every device's kernel). Every check names the operator and the arguments' shapes.
#include <optional>

#include "engine/core/tensor.h"

namespace glassbox {

struct LossShape {
  DimVector shape;   // of the result
  ScalarType dtype;  // of the result
};

// reduction must be Reduction::None, Mean or Sum.
void check_reduction_arg(const char* op, int64_t reduction);

// mse_loss, l1_loss: self and target broadcast together (floating point); the loss has the
// broadcast shape with Reduction::None, else it is 0-d.
LossShape pointwise_loss_shape(const char* op, const Tensor& self, const Tensor& target, int64_t reduction);

// nll_loss: self (N, C) or (C) of log-probabilities, target (N) or () of class indices, weight (C).
LossShape nll_loss_shape(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                         int64_t reduction);

// binary_cross_entropy(_with_logits): self and target of one shape; weight (and pos_weight)
// broadcast to it.
LossShape bce_shape(const char* op, const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                    const std::optional<Tensor>& pos_weight, int64_t reduction);

// The backward helpers: grad_output must have the loss's shape (`forward`); the gradient has
// `grad_shape` (self's, or for mse_loss the broadcast of self and target) and the loss's dtype.
LossShape loss_backward_shape(const char* op, const Tensor& grad_output, const LossShape& forward, const Tensor& self,
                              const DimVector& grad_shape);

}  // namespace glassbox
