// The indexing family's CUDA computes (the front end is engine/ops/indexing.cpp), laid out as the
// CPU's (engine/cpu/index_kernels.cpp): the operand read or written along the indexed dim gets
// stride 0 there, TensorIterator walks (destination, source, index) over one shape, and each thread
// adds index * dim_stride bytes itself. Indices are range-checked on the device first, so a bad one
// throws the CPU's IndexError before anything is written; adds are atomic.
#include <algorithm>
#include <vector>

#include "engine/cuda/index_launch.cuh"
#include "engine/ops/indexing.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::cuda {

namespace {
const Device kHost(DeviceType::CPU);

// The indexed dim: its byte stride and size (the index is known to be within [-size, size)).
struct Along {
  int64_t stride_bytes;
  int64_t size;
  __device__ int64_t offset(int64_t raw) const { return (raw < 0 ? raw + size : raw) * stride_bytes; }
};

// (out, src, index): out = src at index.
template <size_t B, class I>
struct GatherFn {
  Along d;
  __device__ void operator()(char* (&p)[3]) const {
    const int64_t off = d.offset(static_cast<int64_t>(*reinterpret_cast<const I*>(p[2])));
    *reinterpret_cast<word_t<B>*>(p[0]) = *reinterpret_cast<const word_t<B>*>(p[1] + off);
  }
};
// (dst, src, index): dst at index = src.
template <size_t B, class I>
struct ScatterFn {
  Along d;
  __device__ void operator()(char* (&p)[3]) const {
    const int64_t off = d.offset(static_cast<int64_t>(*reinterpret_cast<const I*>(p[2])));
    *reinterpret_cast<word_t<B>*>(p[0] + off) = *reinterpret_cast<const word_t<B>*>(p[1]);
  }
};
// (dst, src, index): dst at index += alpha * src.
template <class T, class I>
struct ScatterAddFn {
  Along d;
  opmath_t<T> alpha;
  __device__ void operator()(char* (&p)[3]) const {
    const int64_t off = d.offset(static_cast<int64_t>(*reinterpret_cast<const I*>(p[2])));
    const opmath_t<T> v = to_opmath(*reinterpret_cast<const T*>(p[1]));
    if constexpr (std::is_same_v<T, bool>) atomic_add(reinterpret_cast<T*>(p[0] + off), alpha && v);
    else atomic_add(reinterpret_cast<T*>(p[0] + off), static_cast<opmath_t<T>>(alpha * v));
  }
};

void gather(const char* op, TensorIterator& it, const Tensor& index_values, const IndexedAlong& d) {
  if (index_values.defined()) check_index_range(op, index_values, d.dim, d.size);
  visit_element_size(d.dtype, [&]<size_t B>() {
    visit_index_type(d.index_dtype, [&]<class I>() {
      launch_with_operands<3>(it, GatherFn<B, I>{{d.stride_bytes, d.size}});
    });
  });
}

void scatter(const char* op, TensorIterator& it, const Tensor& index_values, const IndexedAlong& d, bool accumulate,
             const Scalar& alpha) {
  if (index_values.defined()) check_index_range(op, index_values, d.dim, d.size);
  const Along a{d.stride_bytes, d.size};
  if (accumulate) {
    visit_scalar_device_type(d.dtype, [&]<class T>() {
      visit_index_type(d.index_dtype, [&]<class I>() {
        launch_with_operands<3>(it, ScatterAddFn<T, I>{a, scalar_as<T>(alpha)});
      });
    });
  } else {
    visit_element_size(d.dtype, [&]<size_t B>() {
      visit_index_type(d.index_dtype, [&]<class I>() { launch_with_operands<3>(it, ScatterFn<B, I>{a}); });
    });
  }
}

// offset + (index, wrapped) * stride_bytes.
template <class I>
struct AddIndexOffset {
  int64_t size, stride_bytes;
  __device__ int64_t operator()(int64_t offset, I raw) const {
    const int64_t v = raw < 0 ? static_cast<int64_t>(raw) + size : static_cast<int64_t>(raw);
    return offset + v * stride_bytes;
  }
};

// Every index is range-checked first, then the offsets summed one index tensor at a time.
void index_offsets(const char* op, const Tensor& self, const AdvancedIndexing& a, Tensor& offsets) {
  const int64_t item = static_cast<int64_t>(element_size(self.dtype()));
  for (size_t j = 0; j < a.indices.size(); ++j) {
    const int64_t d = a.indexed_dims[j];
    check_index_range(op, a.indices[j], d, self.sizes()[d]);
  }
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
}

// (self, mask): self = value where mask.
template <class T>
struct FillWhere {
  T value;
  __device__ void operator()(char* (&p)[2]) const {
    if (*reinterpret_cast<const bool*>(p[1])) *reinterpret_cast<T*>(p[0]) = value;
  }
};

void fill_masked(TensorIterator& it, const Scalar& value) {
  visit_scalar_device_type(it.operand(0).dtype(),
                           [&]<class T>() { launch_with_operands<2>(it, FillWhere<T>{scalar_to_device<T>(value)}); });
}

// The value of a 0-d device tensor, read back: int64 for integers, so nothing is rounded.
Scalar item(const Tensor& t) {
  const Tensor h = t.to(kHost);
  return visit_scalar_type(h.dtype(), [&]<class H>() -> Scalar {
    const H v = *h.data<H>();
    if constexpr (std::is_same_v<H, bool>) return Scalar(v);
    else if constexpr (std::is_integral_v<H>) return Scalar(static_cast<int64_t>(v));
    else if constexpr (std::is_same_v<H, Half> || std::is_same_v<H, BFloat16>)
      return Scalar(static_cast<double>(static_cast<float>(v)));
    else return Scalar(static_cast<double>(v));
  });
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

Tensor one_hot(const Tensor& self, const Tensor& classes, int64_t num_classes) {
  const int64_t n = classes.numel();
  // The largest class, read back; a negative one is reported below as out of range.
  if (num_classes == -1) num_classes = glassbox::amax(classes).to(kHost).data<int64_t>()[0] + 1;
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

void embedding_backward(const Tensor& grad, const Tensor& ids, int64_t padding_idx, bool scale_grad_by_freq,
                        Tensor& out) {
  const int64_t n = ids.numel(), num_weights = out.sizes()[0], width = out.sizes()[1];
  if (const std::optional<int64_t> bad = first_out_of_range(ids, 0, num_weights))
    throw_index_out_of_range("embedding_dense_backward", *bad, 0, num_weights);
  const int device = grad.device().index;
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
  // Half types accumulate in float32, as on the CPU, and are rounded once at the end.
  const ScalarType acc_dtype = grad.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  Tensor sum = acc_dtype == out.dtype() ? out : empty_tensor(out.sizes(), acc_dtype, grad.device());
  glassbox::fill_(sum, Scalar(int64_t{0}));
  visit_floating_device_type(grad.dtype(), [&]<class T>() {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    if (n * width > 0) {
      embedding_backward_kernel<T, C><<<grid_for(n * width), kElementwiseThreads, 0, stream>>>(
          static_cast<const T*>(grad.data_ptr()), ids.data<int64_t>(),
          counts.defined() ? counts.data<int64_t>() : nullptr, n, width, padding_idx, static_cast<C*>(sum.data_ptr()));
      GB_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
  if (!sum.is_same(out)) copy_between(out, sum);
}

const IndexBackend kIndexing{gather, scatter, index_offsets, fill_masked, item, one_hot, embedding_backward};
const IndexBackends::Registration kRegistered(DeviceType::CUDA, kIndexing);
}  // namespace

}  // namespace glassbox::cuda
