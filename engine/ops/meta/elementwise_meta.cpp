// Meta kernels: shapes and dtypes with no data. The meta device runs a model's shape logic alone.
#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/ops/elementwise_shape.h"
#include "engine/ops/tensor_iterator.h"
#include "engine/ops/factory_options.h"
#include "glassbox/ops/native/add.h"
#include "glassbox/ops/native/copy.h"
#include "glassbox/ops/native/div.h"
#include "glassbox/ops/native/empty.h"
#include "glassbox/ops/native/fill.h"
#include "glassbox/ops/native/mul.h"
#include "glassbox/ops/native/neg.h"
#include "glassbox/ops/native/sub.h"

namespace glassbox::native {

namespace {
Tensor meta_like(const ElementwiseResult& r) { return empty_tensor(r.shape, r.dtype, Device(DeviceType::Meta)); }
}  // namespace

Tensor empty_meta(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return empty_tensor(size, dtype_or_default(dtype), Device(DeviceType::Meta));
}
Tensor& fill_meta_(Tensor& self, const Scalar&) { return self; }
Tensor& copy_meta_(Tensor& self, const Tensor& src, bool) {
  broadcast_shapes(self.sizes(), src.sizes(), "copy_");
  return self;
}

Tensor add_meta(const Tensor& self, const Tensor& other, const Scalar&) { return meta_like(binary_result("add", self, other)); }
Tensor sub_meta(const Tensor& self, const Tensor& other, const Scalar&) {
  check_not_bool("sub", self, "use logical_xor or ~ instead");
  return meta_like(binary_result("sub", self, other));
}
Tensor mul_meta(const Tensor& self, const Tensor& other) { return meta_like(binary_result("mul", self, other)); }
Tensor div_meta(const Tensor& self, const Tensor& other) { return meta_like(binary_result("div", self, other, true)); }
Tensor neg_meta(const Tensor& self) {
  check_not_bool("neg", self, "use logical_not or ~ instead");
  return empty_tensor(self.sizes(), self.dtype(), Device(DeviceType::Meta));
}

}  // namespace glassbox::native
