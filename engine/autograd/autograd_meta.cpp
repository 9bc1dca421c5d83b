#include "engine/autograd/autograd_meta.h"

#include "engine/autograd/accumulate_grad.h"
#include "engine/autograd/grad_mode.h"
#include "engine/autograd/view_history.h"
#include "engine/core/error.h"

namespace glassbox::autograd {

bool AutogradMeta::requires_grad() const {
  if (requires_grad_) return true;
  // Refreshing a stale view's grad_fn is not a visible change of the tensor.
  refresh_view_history(const_cast<AutogradMeta&>(*this));
  return grad_fn_ != nullptr;
}

AutogradMeta* autograd_meta(const Tensor& t) {
  return t.defined() ? static_cast<AutogradMeta*>(t.unsafe_impl()->autograd_meta()) : nullptr;
}

AutogradMeta& materialize_autograd_meta(const Tensor& t) {
  if (!t.defined()) throw Error("autograd: an undefined tensor has no autograd metadata");
  if (AutogradMeta* m = autograd_meta(t)) return *m;
  auto fresh = std::make_unique<AutogradMeta>();
  AutogradMeta* raw = fresh.get();
  t.unsafe_impl()->set_autograd_meta(std::move(fresh));
  return *raw;
}

void set_requires_grad(const Tensor& t, bool requires_grad) {
  if (!t.defined()) throw Error("requires_grad_: undefined tensor");
  AutogradMeta* m = autograd_meta(t);
  if (m && m->grad_fn_) {
    if (requires_grad) return;
    throw Error(
        "requires_grad_: you can only change requires_grad flags of leaf variables. If you want to use a "
        "computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  }
  if (requires_grad && !is_floating_point(t.dtype()))
    throw Error(std::string("requires_grad_: only Tensors of floating point dtype can require gradients, got ") +
                std::string(to_string(t.dtype())));
  if (!requires_grad && !m) return;
  materialize_autograd_meta(t).requires_grad_ = requires_grad;
}

std::shared_ptr<Node> grad_fn(const Tensor& t) {
  AutogradMeta* m = autograd_meta(t);
  if (!m) return nullptr;
  refresh_view_history(*m);
  return m->grad_fn_;
}

bool is_leaf(const Tensor& t) { return grad_fn(t) == nullptr; }

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta* m = autograd_meta(t);
  if (!m || !m->requires_grad_) return nullptr;
  if (auto existing = m->grad_accumulator_.lock()) return existing;
  auto acc = std::make_shared<AccumulateGrad>(t);
  acc->add_input_metadata(t);
  m->grad_accumulator_ = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = autograd_meta(t);
  if (!m) return Edge();
  refresh_view_history(*m);
  if (m->grad_fn_) return Edge(m->grad_fn_, m->output_nr_);
  if (m->requires_grad_) return Edge(grad_accumulator(t), 0);
  return Edge();
}

void set_history(const Tensor& result, const std::shared_ptr<Node>& node) {
  if (!result.defined()) return;
  // Integer and bool results (argmax, comparisons) carry no gradient.
  if (!is_floating_point(result.dtype())) {
    node->add_input_metadata(result);
    return;
  }
  AutogradMeta& m = materialize_autograd_meta(result);
  m.grad_fn_ = node;
  m.output_nr_ = node->add_input_metadata(result);
}

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& node) {
  AutogradMeta& m = materialize_autograd_meta(self);
  if (m.view_) return rebase_view_history(self, m, node);
  m.grad_fn_ = node;
  m.requires_grad_ = false;
  m.grad_accumulator_.reset();
  m.output_nr_ = node->add_input_metadata(self);
}

void check_inplace(const Tensor& self, const char* op_name) {
  AutogradMeta* m = autograd_meta(self);
  if (!m || !is_grad_enabled()) return;
  if (m->requires_grad_ && !m->grad_fn_)
    throw Error(std::string(op_name) + ": a leaf Variable that requires grad is being used in an in-place operation.");
  if (is_view_of_leaf_requiring_grad(*m))
    throw Error(std::string(op_name) +
                ": a view of a leaf Variable that requires grad is being used in an in-place operation.");
}

Tensor detach(const Tensor& t) {
  if (!t.defined()) return t;
  const TensorImpl& src = *t.unsafe_impl();
  auto impl = src.has_storage()
                  ? intrusive_ptr<TensorImpl>::make(src.storage(), src.key_set(), src.dtype(), src.device(),
                                                    std::span<const int64_t>())
                  : intrusive_ptr<TensorImpl>::make(src.key_set(), src.dtype(), src.device(), std::vector<int64_t>());
  impl->set_geometry(src.sizes(), src.strides(), src.storage_offset());
  impl->set_wrapped_number(src.is_wrapped_number());
  return Tensor(std::move(impl));
}

}  // namespace glassbox::autograd
