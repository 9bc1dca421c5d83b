// The autograd members of Tensor (declared in engine/core/tensor.h, which cannot depend on this layer).
#include "engine/autograd/autograd_meta.h"
#include "engine/autograd/engine.h"
#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"

namespace glassbox {

const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  autograd::set_requires_grad(*this, requires_grad);
  return *this;
}

Tensor Tensor::grad() const {
  autograd::AutogradMeta* m = autograd::autograd_meta(*this);
  if (!m) return Tensor();
  return m->retained_grad_ ? *m->retained_grad_ : m->grad_;
}

void Tensor::set_grad(const Tensor& grad) const {
  if (grad.defined() && grad.sizes() != sizes())
    throw Error("assigned grad has shape " + shape_to_string(grad.sizes()) + " but the tensor has shape " +
                shape_to_string(sizes()));
  autograd::materialize_autograd_meta(*this).grad_ = grad;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const { return autograd::grad_fn(*this); }
bool Tensor::is_leaf() const { return autograd::is_leaf(*this); }

int64_t Tensor::output_nr() const {
  autograd::AutogradMeta* m = autograd::autograd_meta(*this);
  return m ? m->output_nr_ : 0;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph, create_graph);
}

Tensor Tensor::detach() const { return autograd::detach(*this); }

void Tensor::retain_grad() const {
  if (!requires_grad()) throw Error("retain_grad: can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf()) return;  // leaves keep .grad anyway
  autograd::AutogradMeta& m = autograd::materialize_autograd_meta(*this);
  if (m.retains_grad_) return;
  m.retains_grad_ = true;
  m.retained_grad_ = std::make_shared<Tensor>();
  autograd::grad_fn(*this)->add_tensor_hook(m.output_nr_, [slot = m.retained_grad_](const Tensor& g) -> Tensor {
    *slot = slot->defined() ? glassbox::add(*slot, g) : g.detach();
    return Tensor();
  });
}

bool Tensor::retains_grad() const {
  autograd::AutogradMeta* m = autograd::autograd_meta(*this);
  return m && m->retains_grad_;
}

void Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  if (!requires_grad()) throw Error("register_hook: cannot register a hook on a tensor that doesn't require gradient");
  autograd::AutogradMeta& m = autograd::materialize_autograd_meta(*this);
  if (autograd::grad_fn(*this)) m.grad_fn_->add_tensor_hook(m.output_nr_, std::move(hook));
  else m.leaf_hooks_.push_back(std::move(hook));
}

}  // namespace glassbox
