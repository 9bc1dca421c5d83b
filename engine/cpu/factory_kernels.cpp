// CPU factories: fresh memory from the CPU allocator, and fill_.
#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cpu/loops.h"
#include "engine/ops/copy.h"
#include "engine/ops/factory_options.h"
#include "engine/ops/fill_value.h"
#include "engine/ops/out_arguments.h"
#include "glassbox/ops/native/copy.h"
#include "glassbox/ops/native/empty.h"
#include "glassbox/ops/native/fill.h"

namespace glassbox::native {

Tensor empty_cpu(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const Device d = device_or_default(device);
  GB_CHECK(d.type == DeviceType::CPU, "empty: the CPU kernel was asked for a tensor on ", d.to_string());
  return empty_tensor(size, dtype_or_default(dtype), d);
}

Tensor& fill_cpu_(Tensor& self, const Scalar& value) {
  check_fill_value("fill_", value, self.dtype());
  visit_scalar_type(self.dtype(), [&]<class T>() {
    const T v = value.is_floating_point() ? convert_value<T>(value.to_double())
                : value.is_bool()         ? convert_value<T>(value.to_bool())
                                          : convert_value<T>(value.to_int());
    Tensor target = self;
    TensorIterator it = TensorIteratorConfig("fill_").add_output(&target).keep_dtypes().build();
    it.for_each([v](char** data, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(T)) {
        T* out = reinterpret_cast<T*>(data[0]);
        for (int64_t i = 0; i < n; ++i) out[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) std::memcpy(data[0] + i * s[0], &v, sizeof(T));
      }
    });
  });
  if (self.unsafe_impl()->storage()) self.unsafe_impl()->storage()->bump_version();
  return self;
}

// The operator checks what the user writes into; glassbox::copy_ (also the kernels' own plumbing) does not.
Tensor& copy_cpu_(Tensor& self, const Tensor& src, bool) {
  if (self.defined() && !self.is_same(src)) check_no_internal_overlap("copy_", self);
  return glassbox::copy_(self, src);
}

}  // namespace glassbox::native
