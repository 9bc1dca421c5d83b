#pragma once
// Tensor: a reference-counted handle to a TensorImpl (null for an undefined tensor).
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engine/core/tensor_impl.h"
#include "glassbox/ops/Types.h"  // generated from engine/ops/ops.yaml

namespace glassbox {

namespace autograd {
class Node;
}

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* unsafe_impl() const { return impl_.get(); }
  const intrusive_ptr<TensorImpl>& impl() const { return impl_; }

  DispatchKeySet key_set() const { return impl_ ? impl_->key_set() : DispatchKeySet(); }
  ScalarType dtype() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  const DimVector& sizes() const { return impl_->sizes(); }
  const DimVector& strides() const { return impl_->strides(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  void* data_ptr() const { return impl_->data(); }
  template <class T>
  T* data() const {
    return static_cast<T*>(impl_->data());
  }
  int64_t dim() const { return impl_->dim(); }
  int64_t numel() const { return impl_->numel(); }

  // Same underlying tensor (not value equality).
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  // Autograd (engine/autograd, defined in glassbox_cpu). requires_grad is inline: every
  // autograd kernel asks it of every input.
  bool requires_grad() const {
    const AutogradMetaInterface* m = impl_ ? impl_->autograd_meta() : nullptr;
    return m && m->requires_grad();
  }
  const Tensor& requires_grad_(bool requires_grad = true) const;
  const Tensor& set_requires_grad(bool requires_grad) const { return requires_grad_(requires_grad); }
  Tensor grad() const;  // undefined until a backward pass reaches this tensor
  void set_grad(const Tensor& grad) const;
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const;
  int64_t output_nr() const;
  // Gradients of this (scalar, unless gradient is given) tensor into the leaves' .grad.
  void backward(const Tensor& gradient = Tensor(), std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  Tensor detach() const;     // same data, no history
  void retain_grad() const;  // keep .grad of a non-leaf after backward
  bool retains_grad() const;
  // hook(grad) runs when this tensor's gradient is computed; a defined result replaces it.
  void register_hook(std::function<Tensor(const Tensor&)> hook) const;

  // The method variants of ops.yaml (t.add(u), t.fill_(1), ...), defined in glassbox_cpu.
#include "glassbox/ops/TensorMethods.inc"

 private:
  intrusive_ptr<TensorImpl> impl_;
};

}  // namespace glassbox
