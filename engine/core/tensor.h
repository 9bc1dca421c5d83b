#pragma once
// Tensor: a reference-counted handle to a TensorImpl (null for an undefined tensor).
#include <string>

#include "engine/core/tensor_impl.h"
#include "glassbox/ops/Types.h"  // generated from engine/ops/ops.yaml

namespace glassbox {

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
  T* data() const { return static_cast<T*>(impl_->data()); }
  int64_t dim() const { return impl_->dim(); }
  int64_t numel() const { return impl_->numel(); }

  // Same underlying tensor (not value equality).
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  // The method variants of ops.yaml (t.add(u), t.fill_(1), ...), defined in glassbox_cpu.
#include "glassbox/ops/TensorMethods.inc"

 private:
  intrusive_ptr<TensorImpl> impl_;
};

}  // namespace glassbox
