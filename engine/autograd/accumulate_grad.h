#pragma once
// AccumulateGrad: the node at a leaf. It runs the leaf's hooks and adds the incoming gradient
// into the leaf's .grad.
#include "engine/autograd/node.h"

namespace glassbox::autograd {

class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {}
  std::string name() const override { return "AccumulateGrad"; }
  variable_list apply(variable_list&& grads) override;
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

}  // namespace glassbox::autograd
