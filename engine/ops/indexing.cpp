// The indexing family's front end: each operator's kernel on CPU, CUDA and Meta (see indexing.h).
// Every check and error text lives here (or in index_shape.cpp), so they read the same everywhere.
#include "engine/ops/indexing.h"

#include <limits>

#include "engine/core/error.h"
#include "engine/ops/fill_value.h"
#include "engine/ops/index_masks.h"
#include "engine/ops/out_arguments.h"
#include "engine/ops/view_geometry.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/embedding_dense_backward.h"
#include "glassbox/ops/native/gather.h"
#include "glassbox/ops/native/index.h"
#include "glassbox/ops/native/index_add.h"
#include "glassbox/ops/native/index_put.h"
#include "glassbox/ops/native/index_select.h"
#include "glassbox/ops/native/masked_fill.h"
#include "glassbox/ops/native/one_hot.h"
#include "glassbox/ops/native/scatter.h"
#include "glassbox/ops/native/scatter_add.h"

namespace glassbox::native {

namespace {
const IndexBackend* backend_of(const Tensor& t) { return IndexBackends::of(t.device()); }

// Autograd's version counter notices an in-place write.
void bump_version(const Tensor& t) {
  if (t.unsafe_impl()->storage()) t.unsafe_impl()->storage()->bump_version();
}

IndexedAlong along(const Tensor& t, int64_t dim, const Tensor& index) {
  return {t.strides()[dim] * static_cast<int64_t>(element_size(t.dtype())), t.sizes()[dim], dim, t.dtype(),
          index.dtype()};
}
// index / index_put_ address self through byte offsets already checked: a stride of one byte.
IndexedAlong byte_offsets(const Tensor& self) {
  return {1, std::numeric_limits<int64_t>::max(), 0, self.dtype(), ScalarType::Int64};
}

// out[...] = self[..., index[...], ...]: operands out, self and index share `index`'s shape.
// `index_values` holds the same values as index without its repetitions (what is range-checked).
void gather_along(const char* op, const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index,
                  const Tensor& index_values) {
  const IndexBackend* backend = backend_of(self);
  if (!backend) return;
  Tensor dst = out;
  const Tensor src = zero_stride_along(self, index.sizes(), dim);
  TensorIterator it = TensorIteratorConfig(op).add_output(&dst).add_input(src).add_input(index).keep_dtypes().build();
  backend->gather(op, it, index_values, along(self, dim, index));
}

// self[..., index[...], ...] = src[...] (or += alpha * src[...]); src and index share a shape.
void scatter_along(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& index_values,
                   const Tensor& src, bool accumulate, const Scalar& alpha) {
  if (accumulate && !is_floating_point(self.dtype()) && alpha.is_floating_point()) {
    throw Error(detail::str_cat(op, ": alpha must be an integer for ", to_string(self.dtype()), " tensors, got ",
                                alpha.to_string()));
  }
  const IndexBackend* backend = backend_of(self);
  if (!backend) return;
  Tensor dst = zero_stride_along(self, index.sizes(), dim);
  TensorIterator it = TensorIteratorConfig(op).add_output(&dst).add_input(src).add_input(index).keep_dtypes().build();
  backend->scatter(op, it, index_values, along(self, dim, index), accumulate, alpha);
  bump_version(self);
}

Tensor& scatter_src(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool add) {
  const int64_t d = check_scatter(op, self, dim, index, &src);
  const Tensor index1 = at_least_1d(index);
  scatter_along(op, at_least_1d(self), d, index1, index1, leading_block(at_least_1d(src), index1), add,
                Scalar(int64_t{1}));
  return self;
}

Tensor& scatter_value(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  const int64_t d = check_scatter(op, self, dim, index, nullptr);
  if (!backend_of(self)) return self;
  const Tensor index1 = at_least_1d(index);
  const DimVector zeros(index1.dim(), 0);
  // The value as one element on self's device, read at every position.
  Tensor v = empty_tensor(DimVector{}, self.dtype(), self.device());
  glassbox::fill_(v, value);
  scatter_along(op, at_least_1d(self), d, index1, index1, restrided(v, index1.sizes(), zeros, 0), false,
                Scalar(int64_t{1}));
  return self;
}

Tensor& index_add(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                  const Scalar& alpha) {
  const int64_t d = check_index_add(op, self, dim, index, source);
  const Tensor source1 = at_least_1d(source), index1 = at_least_1d(index);
  scatter_along(op, at_least_1d(self), d, index_along(index1, source1.sizes(), d), index1, source1, true, alpha);
  return self;
}

bool has_mask(OptionalTensorList indices) {
  for (const std::optional<Tensor>& t : indices)
    if (t && t->defined() && is_mask_dtype(t->dtype())) return true;
  return false;
}

// index_put_. Without data (Meta) a mask's result shape is unknown: values is checked for device
// and dtype only, as a 1-d values tensor of any length could fit.
Tensor& put_at_indices(const char* op, Tensor& self, OptionalTensorList indices, const Tensor& values,
                       bool accumulate) {
  const IndexBackend* backend = backend_of(self);
  if (!backend) {
    if (has_mask(indices)) {
      check_indices(op, self, indices, /*allow_masks=*/true);
      check_index_put_values(op, self, values, values.sizes());
    } else {
      check_index_put_values(op, self, values, advanced_indexing(op, self, indices).result_shape);
    }
    return self;
  }
  const std::vector<std::optional<Tensor>> expanded = expand_index_masks(op, self, indices);
  const AdvancedIndexing a = advanced_indexing(op, self, expanded);
  check_index_put_values(op, self, values, a.result_shape);
  Tensor offsets = empty_tensor(a.index_shape, ScalarType::Int64, self.device());
  backend->index_offsets(op, self, a, offsets);
  IndexResultOperands r = index_result_operands(self, a, offsets);
  TensorIterator it =
      TensorIteratorConfig(op).add_output(&r.self).add_input(values).add_input(r.offsets).keep_dtypes().build();
  backend->scatter(op, it, Tensor(), byte_offsets(self), accumulate, Scalar(int64_t{1}));
  bump_version(self);
  return self;
}

// out = value where mask; elsewhere out keeps its own elements (self null: in place) or takes
// self's. False where nothing was computed: no data (Meta), or a Tensor value only data would give.
bool fill_where(const char* op, Tensor& out, const Tensor* self, const Tensor& mask,
                const std::optional<Scalar>& value) {
  if (!value) return false;
  check_fill_value(op, *value, out.dtype());
  const IndexBackend* backend = backend_of(out);
  if (!backend) return false;
  TensorIteratorConfig config(op);
  config.add_output(&out);
  if (self) config.add_input(*self);
  TensorIterator it = config.add_input(mask).keep_dtypes().build();
  backend->fill_masked(it, *value);
  return true;
}
Tensor& fill_masked(const char* op, Tensor& self, const Tensor& mask, const std::optional<Scalar>& value) {
  if (fill_where(op, self, nullptr, mask, value)) bump_version(self);
  return self;
}
// masked_fill out of place: a new tensor of the broadcast shape, in one pass over it.
Tensor select_masked(const char* op, const Tensor& self, const Tensor& mask, std::span<const int64_t> shape,
                     const std::optional<Scalar>& value) {
  Tensor out = empty_tensor(shape, self.dtype(), self.device());
  fill_where(op, out, &self, mask, value);
  return out;
}
// The value of a 0-d tensor with data, read on the host: int64 for integers, so nothing is rounded.
Scalar item(const Tensor& t) {
  const Tensor h = t.device().type == DeviceType::CPU ? t : t.to(Device(DeviceType::CPU));
  return visit_scalar_type(h.dtype(), [&]<class T>() -> Scalar {
    const T v = *h.data<T>();
    if constexpr (std::is_same_v<T, bool>) return Scalar(v);
    else if constexpr (std::is_integral_v<T>) return Scalar(static_cast<int64_t>(v));
    else if constexpr (std::is_same_v<T, double>) return Scalar(v);
    else return Scalar(static_cast<double>(static_cast<float>(v)));
  });
}

std::optional<Scalar> value_of(const Tensor& self, const Tensor& value) {
  return backend_of(value) && backend_of(self) ? std::optional(item(value)) : std::nullopt;
}

}  // namespace

Tensor gather_generic(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = check_gather("gather", self, dim, index);
  Tensor out = empty_tensor(index.sizes(), self.dtype(), self.device());
  const Tensor index1 = at_least_1d(index);
  gather_along("gather", at_least_1d(out), at_least_1d(self), d, index1, index1);
  return out;
}

Tensor& scatter_src_generic_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_no_internal_overlap("scatter_", self);
  return scatter_src("scatter_", self, dim, index, src, false);
}
Tensor& scatter_value_generic_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  check_no_internal_overlap("scatter_", self);
  return scatter_value("scatter_", self, dim, index, value);
}
Tensor& scatter_add_generic_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_no_internal_overlap("scatter_add_", self);
  return scatter_src("scatter_add_", self, dim, index, src, true);
}
// The out-of-place variants check first, so that a bad call costs no copy.
Tensor scatter_src_generic(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter("scatter", self, dim, index, &src);
  Tensor out = glassbox::clone(self);
  return scatter_src("scatter", out, dim, index, src, false);
}
Tensor scatter_value_generic(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  check_scatter("scatter", self, dim, index, nullptr);
  Tensor out = glassbox::clone(self);
  return scatter_value("scatter", out, dim, index, value);
}
Tensor scatter_add_generic(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter("scatter_add", self, dim, index, &src);
  Tensor out = glassbox::clone(self);
  return scatter_src("scatter_add", out, dim, index, src, true);
}

Tensor index_select_generic(const Tensor& self, int64_t dim, const Tensor& index) {
  const DimVector shape = index_select_shape("index_select", self, dim, index);
  const int64_t d = wrap_dim(dim, self.dim(), "index_select");
  Tensor out = empty_tensor(shape, self.dtype(), self.device());
  const Tensor out1 = at_least_1d(out), index1 = at_least_1d(index);
  gather_along("index_select", out1, at_least_1d(self), d, index_along(index1, out1.sizes(), d), index1);
  return out;
}

Tensor& index_add_generic_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  check_no_internal_overlap("index_add_", self);
  return index_add("index_add_", self, dim, index, source, alpha);
}
Tensor index_add_generic(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                         const Scalar& alpha) {
  check_index_add("index_add", self, dim, index, source);
  Tensor out = glassbox::clone(self);
  return index_add("index_add", out, dim, index, source, alpha);
}

Tensor index_generic(const Tensor& self, OptionalTensorList indices) {
  const IndexBackend* backend = backend_of(self);
  // Without data (Meta), advanced_indexing refuses masks: their true count decides the shape.
  const AdvancedIndexing a = backend ? advanced_indexing("index", self, expand_index_masks("index", self, indices))
                                     : advanced_indexing("index", self, indices);
  Tensor out = empty_tensor(a.result_shape, self.dtype(), self.device());
  if (!backend) return out;
  Tensor offsets = empty_tensor(a.index_shape, ScalarType::Int64, self.device());
  backend->index_offsets("index", self, a, offsets);
  const IndexResultOperands r = index_result_operands(self, a, offsets);
  TensorIterator it =
      TensorIteratorConfig("index").add_output(&out).add_input(r.self).add_input(r.offsets).keep_dtypes().build();
  backend->gather("index", it, Tensor(), byte_offsets(self));
  return out;
}

Tensor& index_put_generic_(Tensor& self, OptionalTensorList indices, const Tensor& values, bool accumulate) {
  return put_at_indices("index_put_", self, indices, values, accumulate);
}
Tensor index_put_generic(const Tensor& self, OptionalTensorList indices, const Tensor& values, bool accumulate) {
  Tensor out = glassbox::clone(self);
  return put_at_indices("index_put", out, indices, values, accumulate);
}

Tensor& masked_fill_scalar_generic_(Tensor& self, const Tensor& mask, const Scalar& value) {
  masked_fill_shape("masked_fill_", self, mask, nullptr, /*in_place=*/true);
  return fill_masked("masked_fill_", self, mask, value);
}
Tensor& masked_fill_tensor_generic_(Tensor& self, const Tensor& mask, const Tensor& value) {
  masked_fill_shape("masked_fill_", self, mask, &value, /*in_place=*/true);
  return fill_masked("masked_fill_", self, mask, value_of(self, value));
}
Tensor masked_fill_scalar_generic(const Tensor& self, const Tensor& mask, const Scalar& value) {
  const DimVector shape = masked_fill_shape("masked_fill", self, mask, nullptr, /*in_place=*/false);
  return select_masked("masked_fill", self, mask, shape, value);
}
Tensor masked_fill_tensor_generic(const Tensor& self, const Tensor& mask, const Tensor& value) {
  const DimVector shape = masked_fill_shape("masked_fill", self, mask, &value, /*in_place=*/false);
  return select_masked("masked_fill", self, mask, shape, value_of(self, value));
}

// Written with other operators, so every backend runs it: the largest class (when inferred) and the
// first class out of range (row-major) are read back, then a 1 is scattered into zeros per class.
Tensor one_hot_generic(const Tensor& self, int64_t num_classes) {
  one_hot_shape(self, num_classes == -1 ? 0 : num_classes);  // dtype and num_classes checks
  if (num_classes == -1 && self.numel() == 0) throw_one_hot_no_classes(self);
  const IndexBackend* backend = backend_of(self);
  if (!backend && num_classes == -1)
    throw Error("one_hot: on the meta device num_classes must be given (inferring it reads the values)");
  if (!backend) return empty_tensor(one_hot_shape(self, num_classes), ScalarType::Int64, self.device());
  const Tensor classes = self.to(ScalarType::Int64);
  if (num_classes == -1) num_classes = item(glassbox::amax(classes)).to_int() + 1;
  Tensor out = glassbox::zeros(one_hot_shape(self, num_classes), ScalarType::Int64, self.device());
  if (classes.numel() == 0) return out;
  const int64_t flat_shape[] = {-1};
  const Tensor flat = classes.reshape(flat_shape);
  const Tensor bad =
      glassbox::logical_or(glassbox::lt(flat, Scalar(int64_t{0})), glassbox::ge(flat, Scalar(num_classes)));
  const int64_t first = item(flat.select(0, item(glassbox::argmax(bad)).to_int())).to_int();
  if (first < 0 || first >= num_classes) throw_one_hot_class_out_of_range(first, num_classes);
  out.scatter_(-1, classes.unsqueeze(-1), Scalar(int64_t{1}));
  return out;
}

Tensor embedding_dense_backward_generic(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                        int64_t padding_idx, bool scale_grad_by_freq) {
  const DimVector shape = embedding_backward_shape(grad_output, indices, num_weights);
  Tensor out = empty_tensor(shape, grad_output.dtype(), grad_output.device());
  if (const IndexBackend* backend = backend_of(grad_output)) {
    backend->embedding_backward(grad_output.contiguous(), indices.contiguous().to(ScalarType::Int64), padding_idx,
                                scale_grad_by_freq, out);
  }
  return out;
}

}  // namespace glassbox::native
