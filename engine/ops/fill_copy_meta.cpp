// The Meta kernels of empty, fill_ and copy_: shapes and dtypes with no data.
#include "engine/core/empty.h"
#include "engine/ops/factory_options.h"
#include "engine/ops/tensor_iterator.h"
#include "glassbox/ops/native/copy.h"
#include "glassbox/ops/native/empty.h"
#include "glassbox/ops/native/fill.h"

namespace glassbox::native {

Tensor empty_meta(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return empty_tensor(size, dtype_or_default(dtype), Device(DeviceType::Meta));
}
Tensor& fill_meta_(Tensor& self, const Scalar&) { return self; }
Tensor& copy_meta_(Tensor& self, const Tensor& src, bool) {
  broadcast_shapes(self.sizes(), src.sizes(), "copy_");
  return self;
}

}  // namespace glassbox::native
