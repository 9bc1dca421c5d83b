// The indexing family's CUDA computes (the front end is engine/ops/indexing.cpp), laid out as the
// CPU's (engine/cpu/index_kernels.cpp): the operand read or written along the indexed dim gets
// stride 0 there, TensorIterator walks (destination, source, index) over one shape, and each thread
// adds index * dim_stride bytes itself. Indices are range-checked on the device first, so a bad one
// throws the CPU's IndexError before anything is written; adds are atomic. Reads (gather,
// index_select) and embedding_dense_backward check without waiting (engine/cuda/deferred_checks.h)
// and raise at the next synchronisation.
#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/cuda/index_launch.cuh"
#include "engine/ops/indexing.h"
#include "engine/ops/kernels/index.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::cuda {

namespace {

// (dst, src, index): dst at index += alpha * src.
template <class T, class I>
struct ScatterAddFn {
  IndexStep d;
  opmath_t<T> alpha;
  __device__ void operator()(char* const* p) const {
    const int64_t off = d.offset(static_cast<int64_t>(load_element<I>(p[2])));
    const opmath_t<T> v = to_opmath(*reinterpret_cast<const T*>(p[1]));
    if constexpr (std::is_same_v<T, bool>) atomic_add(reinterpret_cast<T*>(p[0] + off), alpha && v);
    else atomic_add(reinterpret_cast<T*>(p[0] + off), static_cast<opmath_t<T>>(alpha * v));
  }
};

void gather(const char* op, TensorIterator& it, const Tensor& index_values, const IndexedAlong& d) {
  // Deferred (reads only: a bad index reads element 0 until the check reports): index_select
  // starts every embedding, and waiting there would hold the host until all queued work has run.
  if (index_values.defined()) defer_index_range_check(op, index_values, -d.size, d.size, d.dim, d.size);
  visit_element_size(d.dtype, [&]<size_t B>() {
    visit_index_type(d.index_dtype, [&]<class I>() {
      launch_with_operands<3>(it, GatherElement<B, I>{{d.stride_bytes, d.size}});
    });
  });
}

void scatter(const char* op, TensorIterator& it, const Tensor& index_values, const IndexedAlong& d, bool accumulate,
             const Scalar& alpha) {
  if (index_values.defined()) check_index_range(op, index_values, d.dim, d.size);
  const IndexStep a{d.stride_bytes, d.size};
  if (accumulate) {
    visit_scalar_device_type(d.dtype, [&]<class T>() {
      visit_index_type(d.index_dtype, [&]<class I>() {
        launch_with_operands<3>(it, ScatterAddFn<T, I>{a, scalar_in<opmath_t<T>>(alpha)});
      });
    });
  } else {
    visit_element_size(d.dtype, [&]<size_t B>() {
      visit_index_type(d.index_dtype, [&]<class I>() { launch_with_operands<3>(it, ScatterElement<B, I>{a}); });
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

void fill_masked(TensorIterator& it, const Scalar& value) {
  visit_scalar_device_type(it.operand(0).dtype(), [&]<class T>() {
    const T v = scalar_to_device<T>(value);
    using W = element_word_t<sizeof(T)>;
    W bits;
    memcpy(&bits, &v, sizeof(T));
    if (it.num_operands() == 3) launch_with_operands<3>(it, SelectWhereElement<W>{bits});
    else launch_with_operands<2>(it, FillWhereElement<W>{bits});
  });
}

// Adds row i of grad (width wide) into row ids[i] of sum, scaled by 1 / count when counts is given.
template <class T, class C>
__global__ void embedding_backward_kernel(const T* grad, const int64_t* ids, const int64_t* counts, int64_t n,
                                          int64_t width, int64_t rows, int64_t padding_idx, C* sum) {
  const int64_t total = n * width;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t i = e / width, c = e % width, id = ids[i];
    if (id == padding_idx || id < 0 || id >= rows) continue;
    const C scale = counts ? C(1) / static_cast<C>(counts[id]) : C(1);
    atomicAdd(sum + id * width + c, static_cast<C>(to_opmath(grad[e])) * scale);
  }
}

// (An id outside [0, rows) is skipped: its check is deferred, see embedding_backward.)
__global__ void count_ids_kernel(const int64_t* ids, int64_t n, int64_t rows, int64_t* counts) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    if (ids[i] >= 0 && ids[i] < rows) atomicAdd(reinterpret_cast<unsigned long long*>(counts + ids[i]), 1ull);
}

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + kElementwiseThreads - 1) / kElementwiseThreads, 1, 65536));
}

void embedding_backward(const Tensor& grad, const Tensor& ids, int64_t padding_idx, bool scale_grad_by_freq,
                        Tensor& out) {
  const int64_t n = ids.numel(), num_weights = out.sizes()[0], width = out.sizes()[1];
  // Deferred: waiting here for the verdict would hold the host until the whole backward queued
  // before it has run. The ids are usually the forward's, checked there already.
  defer_index_range_check("embedding_dense_backward", ids, 0, num_weights, 0, num_weights);
  const int device = grad.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  Tensor counts;
  if (scale_grad_by_freq) {
    counts = empty_tensor(DimVector{num_weights}, ScalarType::Int64, ids.device());
    glassbox::fill_(counts, Scalar(int64_t{0}));
    if (n > 0) {
      count_ids_kernel<<<grid_for(n), kElementwiseThreads, 0, stream>>>(ids.data<int64_t>(), n, num_weights,
                                                                        counts.data<int64_t>());
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
          counts.defined() ? counts.data<int64_t>() : nullptr, n, width, num_weights, padding_idx,
          static_cast<C*>(sum.data_ptr()));
      GB_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
  if (!sum.is_same(out)) copy_between(out, sum);
}

const IndexBackend kIndexing{gather, scatter, index_offsets, fill_masked, embedding_backward};
const IndexBackends::Registration kRegistered(DeviceType::CUDA, kIndexing);
}  // namespace

}  // namespace glassbox::cuda
