// Advanced indexing on the CPU: index (self[indices]), index_put_ (self[indices] = values),
// masked_fill, one_hot and embedding_dense_backward. Shapes come from engine/ops/index_shape.cpp,
// the functions the Meta kernels use; bool masks become integer indices (engine/ops/index_masks.h:
// their true count is data the Meta key does not have).
#include <vector>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cpu/index_loops.h"
#include "engine/ops/fill_value.h"
#include "engine/ops/index_masks.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/embedding_dense_backward.h"
#include "glassbox/ops/native/index.h"
#include "glassbox/ops/native/index_put.h"
#include "glassbox/ops/native/masked_fill.h"
#include "glassbox/ops/native/one_hot.h"

namespace glassbox::native {

namespace {
// For each position of the broadcast index shape, the byte offset into self that the index tensors
// pick (the sum of index * stride over the indexed dims). Every index is range-checked here.
Tensor index_offsets(const char* op, const Tensor& self, const AdvancedIndexing& a) {
  std::vector<Tensor> idx;
  std::vector<cpu::IndexedDim> dims;
  const int64_t item = static_cast<int64_t>(element_size(self.dtype()));
  for (size_t j = 0; j < a.indices.size(); ++j) {
    idx.push_back(a.indices[j].dtype() == ScalarType::Int64 ? a.indices[j] : a.indices[j].to(ScalarType::Int64));
    const int64_t d = a.indexed_dims[j];
    dims.push_back({self.strides()[d] * item, self.sizes()[d], op, d});
  }
  Tensor offsets = empty_tensor(a.index_shape, ScalarType::Int64, self.device());
  TensorIteratorConfig config(op);
  config.add_output(&offsets).keep_dtypes();
  for (const Tensor& t : idx) config.add_input(t);
  TensorIterator it = config.build();
  it.for_each([&dims](char** data, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t offset = 0;
      for (size_t j = 0; j < dims.size(); ++j)
        offset += cpu::checked_index<int64_t>(data[1 + j] + i * s[1 + j], dims[j]) * dims[j].stride_bytes;
      std::memcpy(data[0] + i * s[0], &offset, sizeof(offset));
    }
  });
  return offsets;
}

// Offsets are byte offsets already checked: the loops add them with a stride of one byte.
constexpr cpu::IndexedDim kByteOffsets{1, std::numeric_limits<int64_t>::max(), "index", 0};

Tensor& put_at_indices(const char* op, Tensor& self, OptionalTensorList indices, const Tensor& values, bool accumulate) {
  const std::vector<std::optional<Tensor>> expanded = expand_index_masks(op, self, indices);
  const AdvancedIndexing a = advanced_indexing(op, self, expanded);
  check_index_put_values(op, self, values, a.result_shape);
  IndexResultOperands r = index_result_operands(self, a, index_offsets(op, self, a));
  TensorIterator it =
      TensorIteratorConfig(op).add_output(&r.self).add_input(values).add_input(r.offsets).keep_dtypes().build();
  if (accumulate) {
    visit_scalar_type(self.dtype(), [&]<class T>() { cpu::scatter_add_values<T, int64_t>(it, kByteOffsets, 1); });
  } else {
    visit_element_size(self.dtype(), [&]<size_t B>() { cpu::scatter_bytes<B, int64_t>(it, kByteOffsets); });
  }
  cpu::bump_version(self);
  return self;
}

Tensor& fill_masked(const char* op, Tensor& self, const Tensor& mask, const Scalar& value) {
  check_fill_value(op, value, self.dtype());
  TensorIterator it = TensorIteratorConfig(op).add_output(&self).add_input(mask).keep_dtypes().build();
  visit_scalar_type(self.dtype(), [&]<class T>() {
    const T v = static_cast<T>(cpu::scalar_as<T>(value));
    it.for_each([v](char** data, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        if (*reinterpret_cast<const bool*>(data[1] + i * s[1])) std::memcpy(data[0] + i * s[0], &v, sizeof(T));
    });
  });
  cpu::bump_version(self);
  return self;
}

Tensor broadcast_copy(const Tensor& self, std::span<const int64_t> shape) {
  Tensor out = empty_tensor(shape, self.dtype(), self.device());
  return glassbox::copy_(out, self);
}
}  // namespace

Tensor index_cpu(const Tensor& self, OptionalTensorList indices) {
  const std::vector<std::optional<Tensor>> expanded = expand_index_masks("index", self, indices);
  const AdvancedIndexing a = advanced_indexing("index", self, expanded);
  Tensor out = empty_tensor(a.result_shape, self.dtype(), self.device());
  const IndexResultOperands r = index_result_operands(self, a, index_offsets("index", self, a));
  TensorIterator it =
      TensorIteratorConfig("index").add_output(&out).add_input(r.self).add_input(r.offsets).keep_dtypes().build();
  visit_element_size(self.dtype(), [&]<size_t B>() { cpu::gather_bytes<B, int64_t>(it, kByteOffsets); });
  return out;
}

Tensor& index_put_cpu_(Tensor& self, OptionalTensorList indices, const Tensor& values, bool accumulate) {
  return put_at_indices("index_put_", self, indices, values, accumulate);
}
Tensor index_put_cpu(const Tensor& self, OptionalTensorList indices, const Tensor& values, bool accumulate) {
  Tensor out = glassbox::clone(self);
  return put_at_indices("index_put", out, indices, values, accumulate);
}

Tensor& masked_fill_scalar_cpu_(Tensor& self, const Tensor& mask, const Scalar& value) {
  masked_fill_shape("masked_fill_", self, mask, nullptr, /*in_place=*/true);
  return fill_masked("masked_fill_", self, mask, value);
}
Tensor& masked_fill_tensor_cpu_(Tensor& self, const Tensor& mask, const Tensor& value) {
  masked_fill_shape("masked_fill_", self, mask, &value, /*in_place=*/true);
  return fill_masked("masked_fill_", self, mask, cpu::tensor_item(value));
}
Tensor masked_fill_scalar_cpu(const Tensor& self, const Tensor& mask, const Scalar& value) {
  Tensor out = broadcast_copy(self, masked_fill_shape("masked_fill", self, mask, nullptr, /*in_place=*/false));
  return fill_masked("masked_fill", out, mask, value);
}
Tensor masked_fill_tensor_cpu(const Tensor& self, const Tensor& mask, const Tensor& value) {
  Tensor out = broadcast_copy(self, masked_fill_shape("masked_fill", self, mask, &value, /*in_place=*/false));
  return fill_masked("masked_fill", out, mask, cpu::tensor_item(value));
}

Tensor one_hot_cpu(const Tensor& self, int64_t num_classes) {
  one_hot_shape(self, num_classes == -1 ? 0 : num_classes);  // dtype and num_classes checks
  const Tensor classes = self.contiguous().to(ScalarType::Int64);
  const int64_t* v = classes.data<int64_t>();
  const int64_t n = classes.numel();
  if (num_classes == -1) {
    if (n == 0) throw_one_hot_no_classes(self);
    num_classes = *std::max_element(v, v + n) + 1;
  }
  Tensor out = empty_tensor(one_hot_shape(self, num_classes), ScalarType::Int64, self.device());
  int64_t* o = out.data<int64_t>();
  parallel_for(0, n, kDefaultGrain / std::max<int64_t>(num_classes, 1) + 1, [&](int64_t lo, int64_t hi) {
    std::fill(o + lo * num_classes, o + hi * num_classes, 0);
    for (int64_t i = lo; i < hi; ++i) {
      if (v[i] < 0 || v[i] >= num_classes) throw_one_hot_class_out_of_range(v[i], num_classes);
      o[i * num_classes + v[i]] = 1;
    }
  });
  return out;
}

Tensor embedding_dense_backward_cpu(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                    int64_t padding_idx, bool scale_grad_by_freq) {
  const char* op = "embedding_dense_backward";
  const DimVector shape = embedding_backward_shape(grad_output, indices, num_weights);
  const Tensor ids = indices.contiguous().to(ScalarType::Int64);
  const int64_t* id = ids.data<int64_t>();
  const int64_t n = ids.numel(), width = shape[1];
  std::vector<int64_t> counts(scale_grad_by_freq ? num_weights : 0);
  for (int64_t i = 0; i < n; ++i) {
    if (id[i] < 0 || id[i] >= num_weights) throw_index_out_of_range(op, id[i], 0, num_weights);
    if (scale_grad_by_freq) ++counts[id[i]];
  }
  const Tensor grad = grad_output.contiguous();
  Tensor out = empty_tensor(shape, grad.dtype(), grad.device());
  visit_scalar_type(grad.dtype(), [&]<class T>() {
    using C = cpu::compute_t<T>;
    if constexpr (std::is_floating_point_v<C>) {  // grad_output's dtype was checked: the others never run
      std::vector<C> sum(static_cast<size_t>(num_weights * width), C(0));  // half types accumulate in float
      const T* g = grad.data<T>();
      // Threads split the embedding dim: rows that repeat an index never race.
      const int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(n, 1));
      parallel_for(0, width, grain, [&](int64_t lo, int64_t hi) {
        for (int64_t i = 0; i < n; ++i) {
          if (id[i] == padding_idx) continue;
          const C scale = scale_grad_by_freq ? C(1) / static_cast<C>(counts[id[i]]) : C(1);
          C* row = sum.data() + id[i] * width;
          for (int64_t c = lo; c < hi; ++c) row[c] += static_cast<C>(g[i * width + c]) * scale;
        }
      });
      T* o = out.data<T>();
      for (size_t k = 0; k < sum.size(); ++k) o[k] = static_cast<T>(sum[k]);
    }
  });
  return out;
}

}  // namespace glassbox::native
