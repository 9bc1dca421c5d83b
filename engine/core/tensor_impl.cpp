#include "engine/core/tensor_impl.h"

namespace glassbox {

TensorImpl::TensorImpl(DispatchKeySet keys, ScalarType dtype, Device device, std::vector<int64_t> sizes)
    : key_set_(keys), dtype_(dtype), device_(device), sizes_(std::move(sizes)) {}

int64_t TensorImpl::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes_) n *= s;
  return n;
}

DispatchKeySet default_key_set(DeviceType device) {
  const DispatchKey backend = backend_key(device);
  const DispatchKey autograd = autograd_key_of_backend(backend);
  return DispatchKeySet(backend) | DispatchKeySet(autograd);
}

}  // namespace glassbox
