#pragma once
// TensorImpl: what a tensor is underneath — a strided view (sizes, strides, offset) into a
// Storage, its element type and device, the dispatch keys its operations go through, and a slot
// for autograd metadata (filled by the autograd layer above).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/core/device.h"
#include "engine/core/dim_vector.h"
#include "engine/core/dispatch_key_set.h"
#include "engine/core/intrusive_ptr.h"
#include "engine/core/object_cache.h"
#include "engine/core/scalar_type.h"
#include "engine/core/storage.h"

namespace glassbox {

// Implemented by the autograd layer (requires_grad, grad, grad_fn, ...). The core only owns it.
class AutogradMetaInterface {
 public:
  virtual ~AutogradMetaInterface() = default;
  virtual bool requires_grad() const = 0;
};

class TensorImpl : public RefCounted {
 public:
  // A tensor over `storage` (null for the meta device), contiguous, offset 0.
  TensorImpl(Storage storage, DispatchKeySet keys, ScalarType dtype, Device device, std::span<const int64_t> sizes);
  // No storage: shape, dtype and keys only (meta tensors, and tests of the dispatcher).
  TensorImpl(DispatchKeySet keys, ScalarType dtype, Device device, std::vector<int64_t> sizes);
  ~TensorImpl() override;

  // From the per-thread object cache (engine/core/object_cache.h): every operator call makes one.
  static void* operator new(size_t size) { return detail::object_allocate(size); }
  static void operator delete(void* p, size_t size) { detail::object_deallocate(p, size); }

  DispatchKeySet key_set() const { return key_set_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return device_; }
  size_t itemsize() const { return element_size(dtype_); }

  const DimVector& sizes() const { return sizes_; }
  const DimVector& strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  bool is_contiguous() const { return is_contiguous_; }

  const Storage& storage() const { return storage_; }
  bool has_storage() const { return static_cast<bool>(storage_); }
  // First element (storage data + offset * itemsize); null without storage.
  void* data() const {
    return storage_ ? static_cast<char*>(storage_->data()) + storage_offset_ * static_cast<int64_t>(itemsize())
                    : nullptr;
  }

  void set_key_set(DispatchKeySet keys) { key_set_ = keys; }
  // Views: a new geometry over the same storage. Throws if it would reach outside the storage.
  void set_geometry(std::span<const int64_t> sizes, std::span<const int64_t> strides, int64_t storage_offset);
  void set_contiguous_sizes(std::span<const int64_t> sizes);

  // A 0-d tensor made from a Python/C++ number: it takes part in type promotion as a weak type.
  bool is_wrapped_number() const { return is_wrapped_number_; }
  void set_wrapped_number(bool v) { is_wrapped_number_ = v; }

  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) { autograd_meta_ = std::move(m); }

 private:
  void refresh();  // numel and contiguity after a geometry change

  Storage storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  DispatchKeySet key_set_;
  ScalarType dtype_;
  Device device_;
  bool is_contiguous_ = true;
  bool is_wrapped_number_ = false;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
};

// The dispatch keys of a plain tensor on this device: its backend key and, where the backend
// has one, its autograd key (so autograd kernels see every call first).
DispatchKeySet default_key_set(DeviceType device);

// Row-major strides of a contiguous tensor of these sizes.
DimVector contiguous_strides(std::span<const int64_t> sizes);
// "[2, 3]": how errors and dumps spell a shape (or strides).
std::string shape_to_string(std::span<const int64_t> sizes);
// The product of sizes; throws Error on a negative size or on overflow past int64.
int64_t checked_numel(std::span<const int64_t> sizes, const char* what);

}  // namespace glassbox
