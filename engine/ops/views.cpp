// View operators: each computes new geometry (sizes, strides, storage offset) over its input's
// storage and copies nothing, so one CompositeExplicitAutograd kernel serves CPU, CUDA and Meta.
// reshape, narrow, contiguous and flatten are CompositeImplicitAutograd: written with the others.
#include <algorithm>
#include <limits>

#include "engine/core/error.h"
#include "engine/ops/view_geometry.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/as_strided.h"
#include "glassbox/ops/native/contiguous.h"
#include "glassbox/ops/native/expand.h"
#include "glassbox/ops/native/flatten.h"
#include "glassbox/ops/native/narrow.h"
#include "glassbox/ops/native/permute.h"
#include "glassbox/ops/native/reshape.h"
#include "glassbox/ops/native/select.h"
#include "glassbox/ops/native/slice.h"
#include "glassbox/ops/native/squeeze.h"
#include "glassbox/ops/native/t.h"
#include "glassbox/ops/native/transpose.h"
#include "glassbox/ops/native/unfold.h"
#include "glassbox/ops/native/unsqueeze.h"
#include "glassbox/ops/native/view.h"

namespace glassbox::native {

namespace {

// A new tensor over self's storage: same dtype, device and dispatch keys; nothing is copied and
// the storage's version counter is left alone.
Tensor make_view(const Tensor& self, std::span<const int64_t> sizes, std::span<const int64_t> strides,
                 int64_t storage_offset) {
  const TensorImpl& base = *self.unsafe_impl();
  auto impl = intrusive_ptr<TensorImpl>::make(base.storage(), base.key_set(), base.dtype(), base.device(), sizes);
  impl->set_geometry(sizes, strides, storage_offset);
  return Tensor(std::move(impl));
}

std::string geometry_string(const Tensor& t) {
  return detail::str_cat("shape ", shape_to_string(t.sizes()), " and strides ", shape_to_string(t.strides()));
}

}  // namespace

Tensor view(const Tensor& self, IntArrayRef size) {
  const DimVector sizes = infer_view_size(size, self.numel(), "view");
  const std::optional<DimVector> strides = view_strides(self.sizes(), self.strides(), sizes);
  if (!strides) {
    throw Error(detail::str_cat(
        "view: shape ", shape_to_string(sizes), " is not compatible with the input's ", geometry_string(self),
        " (at least one dimension spans across two contiguous subspaces); use .reshape(...) instead"));
  }
  return make_view(self, sizes, *strides, self.storage_offset());
}

Tensor reshape(const Tensor& self, IntArrayRef shape) {
  const DimVector sizes = infer_view_size(shape, self.numel(), "reshape");
  if (view_strides(self.sizes(), self.strides(), sizes)) return self.view(sizes);
  return glassbox::clone(self).view(sizes);
}

Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  const int64_t d0 = wrap_dim(dim0, self.dim(), "transpose"), d1 = wrap_dim(dim1, self.dim(), "transpose");
  DimVector sizes = self.sizes(), strides = self.strides();
  if (self.dim() > 0) {
    std::swap(sizes[d0], sizes[d1]);
    std::swap(strides[d0], strides[d1]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor t(const Tensor& self) {
  if (self.dim() > 2) {
    throw Error(detail::str_cat("t: expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D"));
  }
  return glassbox::transpose(self, 0, self.dim() < 2 ? 0 : 1);
}

Tensor permute(const Tensor& self, IntArrayRef dims) {
  const int64_t n = self.dim();
  if (static_cast<int64_t>(dims.size()) != n) {
    throw Error(detail::str_cat("permute: the number of dims (", dims.size(), ", ", shape_to_string(dims),
                                ") does not match the tensor's number of dimensions (", n, ")"));
  }
  DimVector sizes(n), strides(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = wrap_dim(dims[i], n, "permute");
    if (seen[d]) throw Error(detail::str_cat("permute: duplicate dims are not allowed: ", shape_to_string(dims)));
    seen[d] = true;
    sizes[i] = self.sizes()[d];
    strides[i] = self.strides()[d];
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor expand(const Tensor& self, IntArrayRef size, bool /*implicit*/) {
  const int64_t n = static_cast<int64_t>(size.size()), old = self.dim();
  if (n < old) {
    throw Error(detail::str_cat("expand: the number of sizes provided (", n,
                                ") must be greater or equal to the number of dimensions in the tensor (", old, ")"));
  }
  DimVector sizes(n), strides(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t d = i - (n - old);  // the matching input dim, negative for a new leading dim
    const int64_t have = d >= 0 ? self.sizes()[d] : 1;
    int64_t stride = d >= 0 ? self.strides()[d] : (i + 1 < n ? sizes[i + 1] * strides[i + 1] : 1);
    int64_t want = size[i];
    if (want == -1) {
      if (d < 0) {
        throw Error(
            detail::str_cat("expand: the expanded size of the tensor (-1) isn't allowed in a leading, "
                            "non-existing dimension ",
                            i));
      }
      want = have;
    } else if (want < 0) {
      throw Error(detail::str_cat("expand: invalid size ", want, " in ", shape_to_string(size)));
    }
    if (want != have) {
      if (have != 1) {
        throw Error(detail::str_cat("expand: the expanded size of the tensor (", want,
                                    ") must match the existing size (", have, ") at non-singleton dimension ", i,
                                    ".  Target sizes: ", shape_to_string(size),
                                    ".  Tensor sizes: ", shape_to_string(self.sizes())));
      }
      stride = 0;  // every index along this dim reads the one element
    }
    sizes[i] = want;
    strides[i] = stride;
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze(const Tensor& self) {
  DimVector sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.sizes()[d] == 1) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze(const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim(), "squeeze");
  DimVector sizes = self.sizes(), strides = self.strides();
  if (self.dim() > 0 && sizes[d] == 1) {
    sizes.erase(d);
    strides.erase(d);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim() + 1, "unsqueeze");
  DimVector sizes = self.sizes(), strides = self.strides();
  const int64_t stride = d < self.dim() ? sizes[d] * strides[d] : 1;
  sizes.insert(d, 1);
  strides.insert(d, stride);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  if (self.dim() == 0) throw Error("slice: cannot be applied to a 0-dim tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "slice");
  if (step <= 0) throw Error(detail::str_cat("slice: step must be positive, got ", step));
  const int64_t len = self.sizes()[d];
  // Python slice semantics: negative bounds count from the end, and bounds are clamped.
  int64_t lo = start.value_or(0), hi = end.value_or(std::numeric_limits<int64_t>::max());
  if (lo < 0) lo += len;
  if (hi < 0) hi += len;
  lo = std::clamp<int64_t>(lo, 0, len);
  hi = std::clamp<int64_t>(hi, lo, len);
  DimVector sizes = self.sizes(), strides = self.strides();
  sizes[d] = hi == lo ? 0 : (hi - lo - 1) / step + 1;  // no overflow for huge steps
  // A step past the end leaves one element, whose stride is never used: keep it when step overflows.
  int64_t stepped = 0;
  if (!__builtin_mul_overflow(strides[d], step, &stepped)) strides[d] = stepped;
  return make_view(self, sizes, strides, self.storage_offset() + lo * self.strides()[d]);
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  if (self.dim() == 0) throw Error("select: cannot be applied to a 0-dim tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "select");
  const int64_t len = self.sizes()[d];
  if (index < -len || index >= len) {
    throw IndexError(detail::str_cat("select: index ", index, " out of range for tensor of size ",
                                     shape_to_string(self.sizes()), " at dimension ", d));
  }
  const int64_t i = index < 0 ? index + len : index;
  DimVector sizes = self.sizes(), strides = self.strides();
  sizes.erase(d);
  strides.erase(d);
  return make_view(self, sizes, strides, self.storage_offset() + i * self.strides()[d]);
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  if (self.dim() == 0) throw Error("narrow: cannot be applied to a 0-dim tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "narrow");
  const int64_t len = self.sizes()[d];
  if (start < -len || start > len) {
    throw IndexError(detail::str_cat("narrow: start (", start, ") out of range for dimension ", d, " of size ", len));
  }
  const int64_t s = start < 0 ? start + len : start;
  if (length < 0 || length > len - s) {
    throw Error(detail::str_cat("narrow: start (", s, ") + length (", length, ") exceeds dimension size (", len, ")"));
  }
  return glassbox::slice(self, d, s, s + length, 1);
}

Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  const int64_t d = wrap_dim(dimension, self.dim(), "unfold");
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[d];
  if (size < 0 || size > len) {
    throw Error(
        detail::str_cat("unfold: maximum size for tensor at dimension ", d, " is ", len, " but size is ", size));
  }
  if (step <= 0) throw Error(detail::str_cat("unfold: step is ", step, " but must be > 0"));
  DimVector sizes = self.sizes(), strides = self.strides();
  if (self.dim() == 0) return make_view(self, DimVector{size}, DimVector{1}, self.storage_offset());
  // Dim d now counts windows; a new last dim walks inside one window.
  const int64_t inner = strides[d];
  sizes[d] = (len - size) / step + 1;
  strides[d] = inner * step;
  sizes.push_back(size);
  strides.push_back(inner);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  if (size.size() != stride.size()) {
    throw Error(detail::str_cat("as_strided: mismatch in length of strides and shape: ", shape_to_string(size), " and ",
                                shape_to_string(stride)));
  }
  for (int64_t s : size)
    if (s < 0) throw Error(detail::str_cat("as_strided: negative size in ", shape_to_string(size)));
  for (int64_t s : stride)
    if (s < 0)
      throw Error(detail::str_cat("as_strided: negative strides are not supported, got ", shape_to_string(stride)));
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  if (offset < 0) throw Error(detail::str_cat("as_strided: negative storage offset ", offset));
  return make_view(self, size, stride, offset);
}

Tensor contiguous(const Tensor& self) { return self.is_contiguous() ? self : glassbox::clone(self); }

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  if (self.dim() == 0) {
    const int64_t one[] = {1};
    return glassbox::reshape(self, one);
  }
  const int64_t s = wrap_dim(start_dim, self.dim(), "flatten"), e = wrap_dim(end_dim, self.dim(), "flatten");
  if (s > e) throw Error("flatten: start_dim cannot come after end_dim");
  if (s == e) return self;
  DimVector shape;
  int64_t merged = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d < s || d > e) {
      shape.push_back(self.sizes()[d]);
    } else {
      merged *= self.sizes()[d];
      if (d == e) shape.push_back(merged);
    }
  }
  return glassbox::reshape(self, shape);
}

}  // namespace glassbox::native
