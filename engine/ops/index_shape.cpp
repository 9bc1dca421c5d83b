#include "engine/ops/index_shape.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/ops/tensor_iterator.h"
#include "engine/ops/view_geometry.h"

namespace glassbox {

namespace {
// "[2, 3] float32": how errors show an argument.
std::string describe(const Tensor& t) { return detail::str_cat(shape_to_string(t.sizes()), ' ', to_string(t.dtype())); }

bool same_shape(std::span<const int64_t> a, std::span<const int64_t> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

void check_device(const char* op, const char* arg, const Tensor& self, const Tensor& t) {
  if (!(t.device() == self.device())) {
    throw Error(detail::str_cat(op, ": expected ", arg, " on self's device ", self.device().to_string(), ", got ", arg,
                                " on ", t.device().to_string()));
  }
}

void check_same_dtype(const char* op, const char* arg, const Tensor& self, const Tensor& t) {
  if (t.dtype() != self.dtype()) {
    throw Error(detail::str_cat(op, ": expected ", arg, " of self's dtype ", to_string(self.dtype()), ", got ", arg,
                                ' ', describe(t), " (self is ", describe(self), ")"));
  }
}

// The size of dim d, where a 0-d tensor counts as one dimension of size 1.
int64_t size_at(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }
}  // namespace

void throw_index_out_of_range(const char* op, int64_t index, int64_t dim, int64_t size) {
  throw IndexError(
      detail::str_cat(op, ": index ", index, " is out of bounds for dimension ", dim, " with size ", size));
}

bool is_mask_dtype(ScalarType t) { return t == ScalarType::Bool || t == ScalarType::UInt8; }

void check_index_tensor(const char* op, const char* arg, const Tensor& self, const Tensor& index, bool allow_int32) {
  GB_CHECK(index.defined(), op, ": ", arg, " is an undefined tensor");
  const ScalarType t = index.dtype();
  if (t != ScalarType::Int64 && !(allow_int32 && t == ScalarType::Int32)) {
    std::string message = detail::str_cat(op, ": expected ", arg, " of dtype int64", allow_int32 ? " or int32" : "",
                                          ", got ", arg, ' ', describe(index), " (self is ", describe(self), ")");
    if (allow_int32) throw IndexError(std::move(message));  // index_select, index_add: IndexError, as in PyTorch
    throw Error(std::move(message));
  }
  check_device(op, arg, self, index);
}

void check_indices(const char* op, const Tensor& self, OptionalTensorList indices, bool allow_masks) {
  int64_t consumed = 0;  // dims of self the entries so far stand for
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!indices[i] || !indices[i]->defined()) {
      ++consumed;
      continue;
    }
    const Tensor& t = *indices[i];
    check_device(op, "indices", self, t);
    if (is_mask_dtype(t.dtype())) {
      if (!allow_masks) {
        throw Error(detail::str_cat(op, ": a bool mask (indices[", i, "], ", describe(t),
                                    ") picks a number of elements only its values tell; the meta device "
                                    "cannot infer the result's shape"));
      }
      if (t.dim() == 0) {
        throw Error(detail::str_cat(op, ": indices[", i,
                                    "] is a 0-d mask; index with t[None][mask[None]] or "
                                    "through Tensor indexing, which handles it"));
      }
      for (int64_t j = 0; j < t.dim() && consumed + j < self.dim(); ++j) {
        if (t.sizes()[j] != self.sizes()[consumed + j]) {
          throw IndexError(detail::str_cat(op, ": the shape of the mask ", shape_to_string(t.sizes()), " at index ", j,
                                           " does not match the shape of the indexed tensor ",
                                           shape_to_string(self.sizes()), " at index ", consumed + j));
        }
      }
      consumed += t.dim();
    } else if (t.dtype() == ScalarType::Int64 || t.dtype() == ScalarType::Int32) {
      ++consumed;
    } else {
      throw IndexError(detail::str_cat(
          op, ": tensors used as indices must be int64, int32, bool or uint8, but indices[", i, "] is ", describe(t)));
    }
  }
  if (consumed > self.dim()) {
    throw IndexError(detail::str_cat(op, ": too many indices for tensor of dimension ", self.dim(), " (self is ",
                                     describe(self), ", the indices cover ", consumed, " dimensions)"));
  }
}

AdvancedIndexing advanced_indexing(const char* op, const Tensor& self, OptionalTensorList indices) {
  check_indices(op, self, indices, /*allow_masks=*/false);
  AdvancedIndexing r;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!indices[i] || !indices[i]->defined()) continue;
    r.indexed_dims.push_back(static_cast<int64_t>(i));
    r.indices.push_back(*indices[i]);
  }
  if (r.indices.empty()) throw Error(detail::str_cat(op, ": expected at least one index tensor, got only None"));
  r.index_shape = r.indices[0].sizes();
  for (size_t k = 1; k < r.indices.size(); ++k) {
    const DimVector& s = r.indices[k].sizes();
    try {
      r.index_shape = broadcast_shapes(r.index_shape, s, op);
    } catch (const Error&) {
      std::string shapes;
      for (const Tensor& t : r.indices) shapes += (shapes.empty() ? "" : ", ") + shape_to_string(t.sizes());
      throw IndexError(detail::str_cat(op,
                                       ": shape mismatch: indexing tensors could not be broadcast together with "
                                       "shapes ",
                                       shapes));
    }
  }
  const int64_t first = r.indexed_dims.front(), last = r.indexed_dims.back();
  const bool adjacent = last - first + 1 == static_cast<int64_t>(r.indexed_dims.size());
  // Adjacent index dims are replaced in place; separated ones move to the front (as in NumPy).
  r.result_dim = adjacent ? first : 0;
  if (adjacent) {
    for (int64_t d = 0; d < first; ++d) r.result_shape.push_back(self.sizes()[d]);
    for (int64_t s : r.index_shape) r.result_shape.push_back(s);
    for (int64_t d = last + 1; d < self.dim(); ++d) r.result_shape.push_back(self.sizes()[d]);
  } else {
    r.result_shape = r.index_shape;
    for (int64_t d = 0; d < self.dim(); ++d)
      if (std::find(r.indexed_dims.begin(), r.indexed_dims.end(), d) == r.indexed_dims.end())
        r.result_shape.push_back(self.sizes()[d]);
  }
  checked_numel(r.result_shape, op);
  return r;
}

void check_index_put_values(const char* op, const Tensor& self, const Tensor& values,
                            std::span<const int64_t> result_shape) {
  GB_CHECK(values.defined(), op, ": values is an undefined tensor");
  check_device(op, "values", self, values);
  check_same_dtype(op, "values", self, values);
  bool fits = values.dim() <= static_cast<int64_t>(result_shape.size());
  for (int64_t i = 1; fits && i <= values.dim(); ++i) {
    const int64_t v = values.sizes()[values.dim() - i], r = result_shape[result_shape.size() - i];
    fits = v == r || v == 1;
  }
  if (!fits) {
    throw Error(detail::str_cat(op, ": shape mismatch: values of shape ", shape_to_string(values.sizes()),
                                " cannot be broadcast to the indexing result of shape ",
                                shape_to_string(result_shape)));
  }
}

int64_t check_gather(const char* op, const Tensor& self, int64_t dim, const Tensor& index) {
  check_index_tensor(op, "index", self, index, /*allow_int32=*/false);
  const int64_t d = wrap_dim(dim, self.dim(), op);
  if (std::max<int64_t>(index.dim(), 1) != std::max<int64_t>(self.dim(), 1)) {
    throw Error(detail::str_cat(op, ": index must have as many dimensions as self, got index ", describe(index),
                                " and self ", describe(self)));
  }
  for (int64_t k = 0; k < std::max<int64_t>(self.dim(), 1); ++k) {
    if (k != d && size_at(index, k) > size_at(self, k)) {
      throw Error(detail::str_cat(op, ": index ", describe(index), " is larger than self ", describe(self),
                                  " at dimension ", k, " (only dimension ", d, " may be larger)"));
    }
  }
  return d;
}

int64_t check_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  const int64_t d = check_gather(op, self, dim, index);
  if (!src) return d;
  GB_CHECK(src->defined(), op, ": src is an undefined tensor");
  check_device(op, "src", self, *src);
  check_same_dtype(op, "src", self, *src);
  if (std::max<int64_t>(src->dim(), 1) != std::max<int64_t>(index.dim(), 1)) {
    throw Error(detail::str_cat(op, ": src must have as many dimensions as index, got src ", describe(*src),
                                " and index ", describe(index)));
  }
  for (int64_t k = 0; k < std::max<int64_t>(index.dim(), 1); ++k) {
    if (size_at(index, k) > size_at(*src, k)) {
      throw Error(detail::str_cat(op, ": index ", describe(index), " is larger than src ", describe(*src),
                                  " at dimension ", k));
    }
  }
  return d;
}

DimVector index_select_shape(const char* op, const Tensor& self, int64_t dim, const Tensor& index) {
  check_index_tensor(op, "index", self, index);
  const int64_t d = wrap_dim(dim, self.dim(), op);
  if (index.dim() > 1) {
    throw Error(detail::str_cat(op, ": index must be 0-d or 1-d, got index ", describe(index)));
  }
  DimVector shape = self.sizes();
  if (self.dim() == 0) {
    if (index.numel() != 1)
      throw Error(detail::str_cat(op, ": a 0-d self takes exactly one index, got index ", describe(index)));
    return shape;
  }
  shape[d] = index.numel();
  return shape;
}

int64_t check_index_add(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  GB_CHECK(source.defined(), op, ": source is an undefined tensor");
  const DimVector want = index_select_shape(op, self, dim, index);
  check_device(op, "source", self, source);
  check_same_dtype(op, "source", self, source);
  const bool fits = self.dim() == 0 ? source.numel() == 1 && source.dim() <= 1 : same_shape(source.sizes(), want);
  if (!fits) {
    throw Error(detail::str_cat(op, ": source ", describe(source), " must have self's shape with dimension ", dim,
                                " of index's length, i.e. ", shape_to_string(want), " (self is ", describe(self),
                                ", index is ", describe(index), ")"));
  }
  return wrap_dim(dim, self.dim(), op);
}

DimVector masked_fill_shape(const char* op, const Tensor& self, const Tensor& mask, const Tensor* value,
                            bool in_place) {
  GB_CHECK(mask.defined(), op, ": mask is an undefined tensor");
  if (mask.dtype() != ScalarType::Bool) {
    throw Error(detail::str_cat(op, ": expected a bool mask, got mask ", describe(mask)));
  }
  check_device(op, "mask", self, mask);
  if (value) {
    GB_CHECK(value->defined(), op, ": value is an undefined tensor");
    if (value->dim() != 0) {
      throw Error(detail::str_cat(op, ": only a 0-d value tensor is supported, got value ", describe(*value)));
    }
    if (!value->unsafe_impl()->is_wrapped_number() && !(value->device() == self.device()) &&
        value->device().type != DeviceType::CPU) {
      throw Error(detail::str_cat(op, ": expected value on self's device ", self.device().to_string(), " or cpu, got ",
                                  value->device().to_string()));
    }
  }
  DimVector shape = broadcast_shapes(self.sizes(), mask.sizes(), op);
  if (in_place && !same_shape(shape, self.sizes())) {
    throw Error(detail::str_cat(op, ": mask ", describe(mask), " does not broadcast to self's shape ",
                                shape_to_string(self.sizes()), " (in place, self cannot grow)"));
  }
  return shape;
}

DimVector one_hot_shape(const Tensor& self, int64_t num_classes) {
  if (!is_integral(self.dtype(), /*include_bool=*/false)) {
    throw Error(detail::str_cat("one_hot: expected an integer tensor of class indices, got self ", describe(self)));
  }
  if (num_classes < 0) {
    throw Error(detail::str_cat("one_hot: num_classes must be non-negative (or -1 to infer it), got ", num_classes));
  }
  DimVector shape = self.sizes();
  shape.push_back(num_classes);
  checked_numel(shape, "one_hot");
  return shape;
}

void throw_one_hot_no_classes(const Tensor& self) {
  throw Error("one_hot: cannot infer num_classes from an empty tensor (self is " + shape_to_string(self.sizes()) +
              "); pass num_classes");
}

void throw_one_hot_class_out_of_range(int64_t value, int64_t num_classes) {
  throw Error(detail::str_cat("one_hot: class value ", value, " is out of range for num_classes ", num_classes,
                              " (expected 0 <= value < ", num_classes, ")"));
}

DimVector embedding_backward_shape(const Tensor& grad_output, const Tensor& indices, int64_t num_weights) {
  const char* op = "embedding_dense_backward";
  if (!is_floating_point(grad_output.dtype())) {
    throw Error(
        detail::str_cat(op, ": expected a floating-point grad_output, got grad_output ", describe(grad_output)));
  }
  check_index_tensor(op, "indices", grad_output, indices);
  const bool fits = grad_output.dim() == indices.dim() + 1 &&
                    same_shape(std::span<const int64_t>(grad_output.sizes().data(), indices.dim()), indices.sizes());
  if (!fits) {
    throw Error(detail::str_cat(op,
                                ": grad_output must have indices' shape plus one embedding dimension, got "
                                "grad_output ",
                                describe(grad_output), " and indices ", describe(indices)));
  }
  if (num_weights < 0) throw Error(detail::str_cat(op, ": num_weights must be non-negative, got ", num_weights));
  return DimVector{num_weights, grad_output.sizes()[grad_output.dim() - 1]};
}

}  // namespace glassbox
