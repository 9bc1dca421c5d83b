#pragma once
// The backward engine: from the roots (outputs and their gradients) through the graph of Nodes,
// in dependency order — a node runs once every gradient flowing into it has arrived, and among
// ready nodes the most recently created runs first.
#include <optional>
#include <vector>

#include "engine/core/tensor.h"

namespace glassbox::autograd {

// Accumulates d(sum of tensors * grad_tensors)/d(leaf) into each leaf's .grad. A scalar output
// may leave its gradient undefined (it means 1).
void backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false);

// The gradients of outputs with respect to inputs, returned instead of accumulated. An input the
// outputs do not depend on is an error unless allow_unused (then its gradient is undefined).
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, std::optional<bool> retain_graph = std::nullopt,
                         bool create_graph = false, bool allow_unused = false);

}  // namespace glassbox::autograd
