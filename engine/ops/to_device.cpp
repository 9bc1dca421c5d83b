// to(device, dtype): a fresh tensor on the target device, filled by copy_. Every backend joins
// by providing empty and copy_ kernels; a device without an allocator fails here, by name.
#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/to.h"

namespace glassbox::native {

namespace {
// "cpu" and "cpu:0" (or "cuda" and the current "cuda:N") name the same device.
bool same_device(Device a, Device b) { return a.type == b.type && (a.index == b.index || a.index < 0 || b.index < 0); }
}  // namespace

Tensor to(const Tensor& self, Device device, std::optional<ScalarType> dtype, bool non_blocking, bool copy) {
  const ScalarType target = dtype.value_or(self.dtype());
  if (same_device(self.device(), device) && target == self.dtype() && !copy) return self;
  if (self.device().type == DeviceType::Meta && device.type != DeviceType::Meta) {
    throw Error(detail::str_cat("to: cannot copy out of a meta tensor (shape ", shape_to_string(self.sizes()), ", ",
                                to_string(self.dtype()), "): it has no data; make the tensor on ", device.to_string(),
                                " instead"));
  }
  if (device.type != DeviceType::Meta) {
    try {
      allocator_for(device.type);
    } catch (const Error& e) {
      throw Error(detail::str_cat("to: cannot move a tensor of shape ", shape_to_string(self.sizes()), " (",
                                  to_string(self.dtype()), ") to ", device.to_string(), ": ", e.what()));
    }
  }
  Tensor out = glassbox::empty(self.sizes(), target, device);
  return glassbox::copy_(out, self, non_blocking);
}

}  // namespace glassbox::native
