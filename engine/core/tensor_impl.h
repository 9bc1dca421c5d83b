#pragma once
// TensorImpl: what a tensor is underneath — shape, element type, device and the dispatch keys
// its operations go through. Storage, strides and autograd metadata join it with the engine.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/device.h"
#include "engine/core/intrusive_ptr.h"
#include "engine/core/scalar_type.h"
#include "registry/dispatch_key_set.h"

namespace glassbox {

class TensorImpl : public RefCounted {
 public:
  TensorImpl(DispatchKeySet keys, ScalarType dtype, Device device, std::vector<int64_t> sizes);

  DispatchKeySet key_set() const { return key_set_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return device_; }
  const std::vector<int64_t>& sizes() const { return sizes_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const;

  void set_key_set(DispatchKeySet keys) { key_set_ = keys; }

 private:
  DispatchKeySet key_set_;
  ScalarType dtype_;
  Device device_;
  std::vector<int64_t> sizes_;
};

// The dispatch keys a plain tensor on this device carries: its backend key and, where the
// backend has one, its autograd key (so autograd kernels see every call first).
DispatchKeySet default_key_set(DeviceType device);

}  // namespace glassbox
