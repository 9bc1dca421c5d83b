// Advanced indexing on CUDA: index (self[indices]), index_put_ (self[indices] = values, or +=),
// masked_fill, one_hot and embedding_dense_backward, laid out as the CPU kernels are
// (engine/cpu/index_kernels.cpp). The index tensors become one int64 byte offset per position of
// their broadcast shape, range-checked on the device first so that a bad index throws the CPU's
// IndexError before anything is written. A bool mask becomes integer indices on the host
// (engine/ops/index_masks.h): how many elements it picks decides the result's shape.
#include <algorithm>
#include <vector>

#include "engine/cuda/index_launch.cuh"
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
using namespace glassbox::cuda;

const Device kHost(DeviceType::CPU);

// offset + (index, wrapped) * stride_bytes.
template <class I>
struct AddIndexOffset {
  int64_t size, stride_bytes;
  __device__ int64_t operator()(int64_t offset, I raw) const {
    const int64_t v = raw < 0 ? static_cast<int64_t>(raw) + size : static_cast<int64_t>(raw);
    return offset + v * stride_bytes;
  }
};

// For each position of the broadcast index shape, the byte offset into self that the index tensors
// pick (the sum of index * stride over the indexed dims). Every index is range-checked first.
Tensor index_offsets(const char* op, const Tensor& self, const AdvancedIndexing& a) {
  const int64_t item = static_cast<int64_t>(element_size(self.dtype()));
  for (size_t j = 0; j < a.indices.size(); ++j) {
    const int64_t d = a.indexed_dims[j];
    check_index_range(op, a.indices[j], d, self.sizes()[d]);
  }
  Tensor offsets = empty_tensor(a.index_shape, ScalarType::Int64, self.device());
  glassbox::fill_(offsets, Scalar(int64_t{0}));
  for (size_t j = 0; j < a.indices.size(); ++j) {
    const int64_t d = a.indexed_dims[j];
    Tensor target = offsets;
    TensorIterator it =
        TensorIteratorConfig(op).add_output(&target).add_input(offsets).add_input(a.indices[j]).keep_dtypes().build();
    visit_index_type(a.indices[j].dtype(), [&]<class I>() {
      launch_elementwise<int64_t, int64_t, I>(it, AddIndexOffset<I>{self.sizes()[d], self.strides()[d] * item});
    });
  }
  return offsets;
}

// (out, self, offset): out = self at offset.
template <size_t B>
struct ReadAtOffset {
  __device__ void operator()(char* (&p)[3]) const {
    *reinterpret_cast<word_t<B>*>(p[0]) = *reinterpret_cast<const word_t<B>*>(p[1] + *reinterpret_cast<const int64_t*>(p[2]));
  }
};
// (self, values, offset): self at offset = values.
template <size_t B>
struct WriteAtOffset {
  __device__ void operator()(char* (&p)[3]) const {
    *reinterpret_cast<word_t<B>*>(p[0] + *reinterpret_cast<const int64_t*>(p[2])) = *reinterpret_cast<const word_t<B>*>(p[1]);
  }
};
// (self, values, offset): self at offset += values.
template <class T>
struct AddAtOffset {
  __device__ void operator()(char* (&p)[3]) const {
    atomic_add(reinterpret_cast<T*>(p[0] + *reinterpret_cast<const int64_t*>(p[2])), to_opmath(*reinterpret_cast<const T*>(p[1])));
  }
};

Tensor& put_at_indices(const char* op, Tensor& self, OptionalTensorList indices, const Tensor& values, bool accumulate) {
  const std::vector<std::optional<Tensor>> expanded = expand_index_masks(op, self, indices);
  const AdvancedIndexing a = advanced_indexing(op, self, expanded);
  check_index_put_values(op, self, values, a.result_shape);
  IndexResultOperands r = index_result_operands(self, a, index_offsets(op, self, a));
  TensorIterator it =
      TensorIteratorConfig(op).add_output(&r.self).add_input(values).add_input(r.offsets).keep_dtypes().build();
  if (accumulate) {
    visit_device_type(self.dtype(), [&]<class T>() { launch_with_operands<3>(it, AddAtOffset<T>{}); });
  } else {
    visit_element_size(self.dtype(), [&]<size_t B>() { launch_with_operands<3>(it, WriteAtOffset<B>{}); });
  }
  mark_written(self);
  return self;
}

// (self, mask): self = value where mask.
template <class T>
struct FillWhere {
  T value;
  __device__ void operator()(char* (&p)[2]) const {
    if (*reinterpret_cast<const bool*>(p[1])) *reinterpret_cast<T*>(p[0]) = value;
  }
};

Tensor& fill_masked(const char* op, Tensor& self, const Tensor& mask, const Scalar& value) {
  check_fill_value(op, value, self.dtype());
  TensorIterator it = TensorIteratorConfig(op).add_output(&self).add_input(mask).keep_dtypes().build();
  visit_device_type(self.dtype(), [&]<class T>() { launch_with_operands<2>(it, FillWhere<T>{scalar_to_device<T>(value)}); });
  mark_written(self);
  return self;
}

// The value of a 0-d tensor (on either device) as a Scalar: int64 for integers, so nothing is rounded.
Scalar tensor_item(const Tensor& t) {
  const Tensor h = t.to(kHost);
  return visit_scalar_type(h.dtype(), [&]<class H>() -> Scalar {
    const H v = *h.data<H>();
    if constexpr (std::is_same_v<H, bool>) return Scalar(v);
    else if constexpr (std::is_integral_v<H>) return Scalar(static_cast<int64_t>(v));
    else if constexpr (std::is_same_v<H, Half> || std::is_same_v<H, BFloat16>) return Scalar(static_cast<double>(static_cast<float>(v)));
    else return Scalar(static_cast<double>(v));
  });
}

Tensor broadcast_copy(const Tensor& self, std::span<const int64_t> shape) {
  Tensor out = empty_tensor(shape, self.dtype(), self.device());
  return glassbox::copy_(out, self);
}

// out[i, classes[i]] = 1 (out zeroed, classes range-checked).
__global__ void one_hot_kernel(const int64_t* classes, int64_t n, int64_t num_classes, int64_t* out) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i * num_classes + classes[i]] = 1;
}

// Adds row i of grad (width wide) into row ids[i] of sum, scaled by 1 / count when counts is given.
template <class T, class C>
__global__ void embedding_backward_kernel(const T* grad, const int64_t* ids, const int64_t* counts, int64_t n,
                                          int64_t width, int64_t padding_idx, C* sum) {
  const int64_t total = n * width;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t i = e / width, c = e % width, id = ids[i];
    if (id == padding_idx) continue;
    const C scale = counts ? C(1) / static_cast<C>(counts[id]) : C(1);
    atomicAdd(sum + id * width + c, static_cast<C>(to_opmath(grad[e])) * scale);
  }
}

__global__ void count_ids_kernel(const int64_t* ids, int64_t n, int64_t* counts) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    atomicAdd(reinterpret_cast<unsigned long long*>(counts + ids[i]), 1ull);
}

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + kElementwiseThreads - 1) / kElementwiseThreads, 1, 65536));
}
}  // namespace

Tensor index_cuda(const Tensor& self, OptionalTensorList indices) {
  const std::vector<std::optional<Tensor>> expanded = expand_index_masks("index", self, indices);
  const AdvancedIndexing a = advanced_indexing("index", self, expanded);
  Tensor out = empty_tensor(a.result_shape, self.dtype(), self.device());
  const IndexResultOperands r = index_result_operands(self, a, index_offsets("index", self, a));
  TensorIterator it =
      TensorIteratorConfig("index").add_output(&out).add_input(r.self).add_input(r.offsets).keep_dtypes().build();
  visit_element_size(self.dtype(), [&]<size_t B>() { launch_with_operands<3>(it, ReadAtOffset<B>{}); });
  return out;
}

Tensor& index_put_cuda_(Tensor& self, OptionalTensorList indices, const Tensor& values, bool accumulate) {
  return put_at_indices("index_put_", self, indices, values, accumulate);
}
Tensor index_put_cuda(const Tensor& self, OptionalTensorList indices, const Tensor& values, bool accumulate) {
  Tensor out = glassbox::clone(self);
  return put_at_indices("index_put", out, indices, values, accumulate);
}

Tensor& masked_fill_scalar_cuda_(Tensor& self, const Tensor& mask, const Scalar& value) {
  masked_fill_shape("masked_fill_", self, mask, nullptr, /*in_place=*/true);
  return fill_masked("masked_fill_", self, mask, value);
}
Tensor& masked_fill_tensor_cuda_(Tensor& self, const Tensor& mask, const Tensor& value) {
  masked_fill_shape("masked_fill_", self, mask, &value, /*in_place=*/true);
  return fill_masked("masked_fill_", self, mask, tensor_item(value));
}
Tensor masked_fill_scalar_cuda(const Tensor& self, const Tensor& mask, const Scalar& value) {
  Tensor out = broadcast_copy(self, masked_fill_shape("masked_fill", self, mask, nullptr, /*in_place=*/false));
  return fill_masked("masked_fill", out, mask, value);
}
Tensor masked_fill_tensor_cuda(const Tensor& self, const Tensor& mask, const Tensor& value) {
  Tensor out = broadcast_copy(self, masked_fill_shape("masked_fill", self, mask, &value, /*in_place=*/false));
  return fill_masked("masked_fill", out, mask, tensor_item(value));
}

Tensor one_hot_cuda(const Tensor& self, int64_t num_classes) {
  one_hot_shape(self, num_classes == -1 ? 0 : num_classes);  // dtype and num_classes checks
  const Tensor classes = self.contiguous().to(ScalarType::Int64);
  const int64_t n = classes.numel();
  if (num_classes == -1) {
    if (n == 0) throw_one_hot_no_classes(self);
    // The largest class, read back; a negative one is reported below as out of range.
    num_classes = glassbox::amax(classes).to(kHost).data<int64_t>()[0] + 1;
  }
  if (const std::optional<int64_t> bad = first_out_of_range(classes, 0, num_classes))
    throw_one_hot_class_out_of_range(*bad, num_classes);
  Tensor out = empty_tensor(one_hot_shape(self, num_classes), ScalarType::Int64, self.device());
  glassbox::fill_(out, Scalar(int64_t{0}));
  if (n > 0 && num_classes > 0) {
    DeviceGuard guard(self.device().index);
    one_hot_kernel<<<grid_for(n), kElementwiseThreads, 0, current_stream(self.device().index).handle()>>>(
        classes.data<int64_t>(), n, num_classes, out.data<int64_t>());
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  }
  return out;
}

Tensor embedding_dense_backward_cuda(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                     int64_t padding_idx, bool scale_grad_by_freq) {
  const char* op = "embedding_dense_backward";
  const DimVector shape = embedding_backward_shape(grad_output, indices, num_weights);
  const Tensor ids = indices.contiguous().to(ScalarType::Int64);
  const int64_t n = ids.numel(), width = shape[1];
  if (const std::optional<int64_t> bad = first_out_of_range(ids, 0, num_weights)) throw_index_out_of_range(op, *bad, 0, num_weights);
  const int device = grad_output.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  Tensor counts;
  if (scale_grad_by_freq) {
    counts = empty_tensor(DimVector{num_weights}, ScalarType::Int64, ids.device());
    glassbox::fill_(counts, Scalar(int64_t{0}));
    if (n > 0) {
      count_ids_kernel<<<grid_for(n), kElementwiseThreads, 0, stream>>>(ids.data<int64_t>(), n, counts.data<int64_t>());
      GB_CUDA_KERNEL_LAUNCH_CHECK();
    }
  }
  const Tensor grad = grad_output.contiguous();
  // Half types accumulate in float32, as on the CPU, and are rounded once at the end.
  const ScalarType acc_dtype = grad.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  Tensor sum = empty_tensor(shape, acc_dtype, grad.device());
  glassbox::fill_(sum, Scalar(int64_t{0}));
  visit_float_device_type(grad.dtype(), [&]<class T>() {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    if (n * width > 0) {
      embedding_backward_kernel<T, C><<<grid_for(n * width), kElementwiseThreads, 0, stream>>>(
          static_cast<const T*>(grad.data_ptr()), ids.data<int64_t>(),
          counts.defined() ? counts.data<int64_t>() : nullptr, n, width, padding_idx, static_cast<C*>(sum.data_ptr()));
      GB_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
  return acc_dtype == grad.dtype() ? sum : sum.to(grad.dtype());
}

}  // namespace glassbox::native
