#include "engine/autograd/accumulate_grad.h"

#include "engine/autograd/autograd_meta.h"
#include "engine/autograd/grad_mode.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::autograd {

variable_list AccumulateGrad::apply(variable_list&& grads) {
  AutogradMeta& meta = materialize_autograd_meta(variable_);
  Tensor g = std::move(grads.at(0));
  for (const TensorHook& hook : meta.leaf_hooks_) {
    Tensor replaced = hook(g);
    if (replaced.defined()) g = std::move(replaced);
  }
  if (!g.defined()) return {};
  if (!meta.grad_.defined()) {
    // create_graph keeps the gradient's own history (double backward); otherwise a private copy,
    // so later in-place updates of .grad never reach a tensor someone else holds.
    meta.grad_ = is_grad_enabled() ? g : glassbox::clone(g);
  } else {
    meta.grad_ = glassbox::add(meta.grad_, g);
  }
  return {};
}

}  // namespace glassbox::autograd
