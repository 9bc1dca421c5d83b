// copy_ on the CPU: a broadcast, casting element-wise loop over every pair of dtypes.
#include "engine/ops/copy.h"

#include <cstring>

#include "engine/core/error.h"
#include "engine/ops/tensor_iterator.h"

namespace glassbox {

Tensor& copy_(Tensor& dst, const Tensor& src) {
  GB_CHECK(dst.defined() && src.defined(), "copy_: undefined tensor");
  if (dst.is_same(src)) return dst;
  GB_CHECK(dst.device().type == DeviceType::CPU && src.device().type == DeviceType::CPU,
           "copy_: the CPU kernel got tensors on ", dst.device().to_string(), " and ", src.device().to_string());
  TensorIterator it = TensorIteratorConfig("copy_").add_output(&dst).add_input(src).keep_dtypes().build();
  visit_scalar_type(dst.dtype(), [&]<class To>() {
    visit_scalar_type(src.dtype(), [&]<class From>() {
      it.for_each([](char** data, const int64_t* strides, int64_t n) {
        char* out = data[0];
        const char* in = data[1];
        if constexpr (std::is_same_v<To, From>) {
          if (strides[0] == sizeof(To) && strides[1] == sizeof(From)) {
            std::memcpy(out, in, static_cast<size_t>(n) * sizeof(To));
            return;
          }
        }
        for (int64_t i = 0; i < n; ++i) {
          From v;
          std::memcpy(&v, in + i * strides[1], sizeof(From));
          const To r = convert_value<To>(v);
          std::memcpy(out + i * strides[0], &r, sizeof(To));
        }
      });
    });
  });
  if (dst.unsafe_impl()->storage()) dst.unsafe_impl()->storage()->bump_version();
  return dst;
}

}  // namespace glassbox
