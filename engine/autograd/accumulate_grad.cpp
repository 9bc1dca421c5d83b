#include "engine/autograd/accumulate_grad.h"

#include "engine/autograd/autograd_meta.h"
#include "engine/autograd/grad_mode.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::autograd {

namespace {

// Whether `g` may become .grad as it is: nothing else holds it or its memory (no view, no saved
// copy, no caller's tensor), it has no history, and it is laid out as the variable is. Most
// gradients a backward pass makes are such fresh tensors; copying each, one kernel per parameter
// per step, bought nothing.
bool can_take(const Tensor& g, const Tensor& variable) {
  const TensorImpl& impl = *g.impl();
  return g.impl().use_count() == 1 && impl.has_storage() && impl.storage().use_count() == 1 && !g.requires_grad() &&
         g.storage_offset() == 0 && g.is_contiguous() && variable.is_contiguous() && g.sizes() == variable.sizes() &&
         g.dtype() == variable.dtype() && g.device() == variable.device();
}

}  // namespace

variable_list AccumulateGrad::apply(variable_list&& grads) {
  AutogradMeta& meta = materialize_autograd_meta(variable_);
  Tensor g = std::move(grads.at(0));
  for (const TensorHook& hook : meta.leaf_hooks_) {
    Tensor replaced = hook(g);
    if (replaced.defined()) g = std::move(replaced);
  }
  if (!g.defined()) return {};
  if (!meta.grad_.defined()) {
    // create_graph keeps the gradient's own history (double backward); otherwise .grad is a tensor
    // nobody else holds (`g` itself when it is such), so later in-place updates of .grad never
    // reach a tensor someone else holds.
    meta.grad_ = is_grad_enabled() || can_take(g, variable_) ? std::move(g) : glassbox::clone(g);
  } else {
    meta.grad_ = glassbox::add(meta.grad_, g);
  }
  return {};
}

}  // namespace glassbox::autograd
