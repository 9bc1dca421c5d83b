#include "engine/autograd/saved_variable.h"

#include "engine/autograd/autograd_meta.h"
#include "engine/core/error.h"

namespace glassbox::autograd {

namespace {
uint64_t version_of(const Tensor& t) {
  return t.defined() && t.unsafe_impl()->has_storage() ? t.unsafe_impl()->storage()->version() : 0;
}
}  // namespace

SavedVariable::SavedVariable(const Tensor& tensor, bool is_output) : is_output_(is_output) {
  if (!tensor.defined()) return;
  saved_version_ = version_of(tensor);
  if (is_output) {
    // Keeping the output itself would keep its grad_fn — this node — alive from inside itself.
    data_ = detach(tensor);
    if (AutogradMeta* m = autograd_meta(tensor)) output_nr_ = m->output_nr_;
  } else {
    data_ = tensor;
  }
}

void SavedVariable::reset() {
  data_ = Tensor();
  released_ = true;
}

Tensor SavedVariable::unpack(const Node& by) const {
  if (released_)
    throw Error(
        "Trying to backward through the graph a second time (or directly access saved tensors after they "
        "have already been freed). Saved intermediate values of the graph are freed when you call "
        ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph "
        "a second time or if you need to access saved tensors after calling backward. (node: " +
        by.name() + ")");
  if (!data_.defined()) return data_;
  const uint64_t now = version_of(data_);
  if (now != saved_version_)
    throw Error("one of the variables needed for gradient computation has been modified by an inplace operation: [" +
                std::string(to_string(data_.dtype())) + " " + shape_to_string(data_.sizes()) + "], which is output " +
                std::to_string(output_nr_) + " of " + by.name() + ", is at version " + std::to_string(now) +
                "; expected version " + std::to_string(saved_version_) + " instead.");
  if (!is_output_) return data_;
  // An output comes back with this node as its history, so double backward can go through it.
  Tensor out = detach(data_);
  AutogradMeta& m = materialize_autograd_meta(out);
  m.grad_fn_ = std::const_pointer_cast<Node>(by.shared_from_this());
  m.output_nr_ = output_nr_;
  return out;
}

}  // namespace glassbox::autograd
