// Meta kernels of the indexing operators: the shape and dtype checks of engine/ops/index_shape.cpp
// (the same the CPU kernels run), and an empty meta tensor of the result's shape. What only data
// can tell (the number of true elements of a bool mask, an inferred num_classes) is refused.
#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/ops/index_shape.h"
#include "engine/ops/view_geometry.h"
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
Tensor meta_tensor(std::span<const int64_t> shape, ScalarType dtype) {
  return empty_tensor(shape, dtype, Device(DeviceType::Meta));
}

bool has_mask(OptionalTensorList indices) {
  for (const std::optional<Tensor>& t : indices)
    if (t && t->defined() && is_mask_dtype(t->dtype())) return true;
  return false;
}

// index_put_'s checks. With a mask the result's shape is unknown: values is checked for device
// and dtype only, as a 1-d values tensor of any length could fit.
void check_index_put(const char* op, const Tensor& self, OptionalTensorList indices, const Tensor& values) {
  if (has_mask(indices)) {
    check_indices(op, self, indices, /*allow_masks=*/true);
    check_index_put_values(op, self, values, values.sizes());
    return;
  }
  const AdvancedIndexing a = advanced_indexing(op, self, indices);
  check_index_put_values(op, self, values, a.result_shape);
}
}  // namespace

Tensor index_meta(const Tensor& self, OptionalTensorList indices) {
  return meta_tensor(advanced_indexing("index", self, indices).result_shape, self.dtype());
}
Tensor& index_put_meta_(Tensor& self, OptionalTensorList indices, const Tensor& values, bool) {
  check_index_put("index_put_", self, indices, values);
  return self;
}
Tensor index_put_meta(const Tensor& self, OptionalTensorList indices, const Tensor& values, bool) {
  check_index_put("index_put", self, indices, values);
  return meta_tensor(self.sizes(), self.dtype());
}

Tensor index_select_meta(const Tensor& self, int64_t dim, const Tensor& index) {
  return meta_tensor(index_select_shape("index_select", self, dim, index), self.dtype());
}
Tensor& index_add_meta_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar&) {
  check_index_add("index_add_", self, dim, index, source);
  return self;
}
Tensor index_add_meta(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar&) {
  check_index_add("index_add", self, dim, index, source);
  return meta_tensor(self.sizes(), self.dtype());
}

Tensor gather_meta(const Tensor& self, int64_t dim, const Tensor& index) {
  check_gather("gather", self, dim, index);
  return meta_tensor(index.sizes(), self.dtype());
}
Tensor scatter_src_meta(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter("scatter", self, dim, index, &src);
  return meta_tensor(self.sizes(), self.dtype());
}
Tensor scatter_value_meta(const Tensor& self, int64_t dim, const Tensor& index, const Scalar&) {
  check_scatter("scatter", self, dim, index, nullptr);
  return meta_tensor(self.sizes(), self.dtype());
}
Tensor& scatter_src_meta_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter("scatter_", self, dim, index, &src);
  return self;
}
Tensor& scatter_value_meta_(Tensor& self, int64_t dim, const Tensor& index, const Scalar&) {
  check_scatter("scatter_", self, dim, index, nullptr);
  return self;
}
Tensor scatter_add_meta(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter("scatter_add", self, dim, index, &src);
  return meta_tensor(self.sizes(), self.dtype());
}
Tensor& scatter_add_meta_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter("scatter_add_", self, dim, index, &src);
  return self;
}

Tensor masked_fill_scalar_meta(const Tensor& self, const Tensor& mask, const Scalar&) {
  return meta_tensor(masked_fill_shape("masked_fill", self, mask, nullptr, false), self.dtype());
}
Tensor masked_fill_tensor_meta(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return meta_tensor(masked_fill_shape("masked_fill", self, mask, &value, false), self.dtype());
}
Tensor& masked_fill_scalar_meta_(Tensor& self, const Tensor& mask, const Scalar&) {
  masked_fill_shape("masked_fill_", self, mask, nullptr, true);
  return self;
}
Tensor& masked_fill_tensor_meta_(Tensor& self, const Tensor& mask, const Tensor& value) {
  masked_fill_shape("masked_fill_", self, mask, &value, true);
  return self;
}

Tensor one_hot_meta(const Tensor& self, int64_t num_classes) {
  if (num_classes == -1) {
    one_hot_shape(self, 0);  // the dtype check first
    throw Error("one_hot: on the meta device num_classes must be given (inferring it reads the values)");
  }
  return meta_tensor(one_hot_shape(self, num_classes), ScalarType::Int64);
}

Tensor embedding_dense_backward_meta(const Tensor& grad_output, const Tensor& indices, int64_t num_weights, int64_t,
                                     bool) {
  return meta_tensor(embedding_backward_shape(grad_output, indices, num_weights), grad_output.dtype());
}

}  // namespace glassbox::native
