// view(dtype): the same storage read as another dtype. Same-size dtypes keep the geometry; a
// smaller or larger element rescales the last dim (which must have stride 1), the other strides
// and the storage offset, as PyTorch defines it. One kernel for every backend: nothing is read.
#include "engine/core/error.h"
#include "engine/ops/pointwise_iterator.h"
#include "glassbox/ops/native/view.h"

namespace glassbox::native {

Tensor view_dtype(const Tensor& self, ScalarType dtype) {
  const TensorImpl& base = *self.unsafe_impl();
  const int64_t from = static_cast<int64_t>(element_size(self.dtype())), to = static_cast<int64_t>(element_size(dtype));
  DimVector sizes = self.sizes(), strides = self.strides();
  int64_t offset = self.storage_offset();
  if (from != to) {
    const std::string what = detail::str_cat("view: cannot view ", describe(self), " as ", to_string(dtype), ": ");
    if (self.dim() == 0) throw Error(what + "a 0-d tensor can only be viewed as a dtype of the same element size");
    if (strides.back() != 1) throw Error(what + "the last dimension must have stride 1");
    if (from > to) {
      const int64_t ratio = from / to;
      for (size_t d = 0; d + 1 < sizes.size(); ++d) strides[d] *= ratio;
      sizes[sizes.size() - 1] *= ratio;
      offset *= ratio;
    } else {
      const int64_t ratio = to / from;
      if (sizes.back() % ratio != 0)
        throw Error(what + detail::str_cat("the size of the last dimension must be a multiple of ", ratio));
      for (size_t d = 0; d + 1 < sizes.size(); ++d) {
        if (strides[d] % ratio != 0)
          throw Error(what +
                      detail::str_cat("the stride of every dimension but the last must be a multiple of ", ratio));
        strides[d] /= ratio;
      }
      if (offset % ratio != 0) throw Error(what + detail::str_cat("the storage offset must be a multiple of ", ratio));
      sizes[sizes.size() - 1] /= ratio;
      offset /= ratio;
    }
  }
  auto impl = intrusive_ptr<TensorImpl>::make(base.storage(), base.key_set(), dtype, base.device(), sizes);
  impl->set_geometry(sizes, strides, offset);
  return Tensor(std::move(impl));
}

}  // namespace glassbox::native
