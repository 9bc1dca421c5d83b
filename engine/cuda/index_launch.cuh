#pragma once
// What the CUDA indexing kernels (index_kernels.cu) use, beside the
// "restrided" views of engine/ops/index_layout.h that lay every operand over one shape: a
// launcher that hands a functor each element's operand addresses, a range check of index tensors
// on the device that throws the CPU's error before anything is written, and atomic adds for every
// dtype (two elements may land on one destination).
#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/deferred_checks.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/index_layout.h"
#include "engine/ops/kernels/index.h"

namespace glassbox::cuda {

template <int N>
struct OperandPointers {
  char* p[N];
};

template <int N, class F>
__global__ void __launch_bounds__(kElementwiseThreads)
    operand_offsets_kernel(OperandPointers<N> base, StridedGeometry<N> g, uint32_t n, F f) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t off[N];
  g.offsets(i, off);
  char* p[N];
#pragma unroll
  for (int k = 0; k < N; ++k) p[k] = base.p[k] + off[k];
  f(p);
}

// Runs f(p) (p: char* const*) for every element of the iterator's loop, p[k] the address of operand k's
// element; queued on the current stream of operand 0's device.
template <int N, class F>
void launch_with_operands(const TensorIterator& it, const F& f) {
  if (it.numel() == 0) return;
  GB_CHECK(it.num_operands() == N, "internal: a CUDA indexing kernel for ", N, " operands got ", it.num_operands());
  const int device = it.operand(0).device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  LoopSpace<N> space;
  space.shape.assign(it.shape().begin(), it.shape().end());
  for (int op = 0; op < N; ++op) space.strides[op].assign(it.strides(op).begin(), it.strides(op).end());
  for_each_strided_piece<N>(space,
                            [&](const std::array<int64_t, N>& base, const StridedGeometry<N>& g, uint32_t count) {
    OperandPointers<N> ptrs;
    for (int k = 0; k < N; ++k) ptrs.p[k] = it.data_ptr(k) + base[k];
    const unsigned blocks = (count + kElementwiseThreads - 1) / kElementwiseThreads;
    operand_offsets_kernel<N><<<blocks, kElementwiseThreads, 0, stream>>>(ptrs, g, count, f);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

// The position of the first element of `values` (contiguous, n of them) outside [lo, hi).
template <class I>
__global__ void first_out_of_range_kernel(const I* values, int64_t n, int64_t lo, int64_t hi,
                                          unsigned long long* first) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t v = static_cast<int64_t>(values[i]);
    if (v < lo || v >= hi) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

// Queues the search for the first element of `idx` (contiguous, not empty) outside [lo, hi): the
// returned int64 device scalar holds its position, or -1 (all bits set) when there is none.
inline Tensor launch_first_out_of_range(const Tensor& idx, int64_t lo, int64_t hi) {
  const int device = idx.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  Tensor scratch = empty_tensor(DimVector{1}, ScalarType::Int64, idx.device());
  auto* first = static_cast<unsigned long long*>(scratch.data_ptr());
  GB_CUDA_CHECK(cudaMemsetAsync(first, 0xff, sizeof(unsigned long long), stream));
  const int64_t n = idx.numel();
  const auto blocks =
      static_cast<unsigned>(std::min<int64_t>((n + kElementwiseThreads - 1) / kElementwiseThreads, 4096));
  visit_index_type(idx.dtype(), [&]<class I>() {
    first_out_of_range_kernel<I>
        <<<blocks, kElementwiseThreads, 0, stream>>>(static_cast<const I*>(idx.data_ptr()), n, lo, hi, first);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return scratch;
}

// idx's element at `position` (row-major), read back from the device.
inline int64_t index_value_at(const Tensor& idx, int64_t position) {
  DeviceGuard guard(idx.device().index);
  const cudaStream_t stream = current_stream(idx.device().index).handle();
  int64_t out = 0;
  visit_index_type(idx.dtype(), [&]<class I>() {
    I value;
    GB_CUDA_CHECK(cudaMemcpyAsync(&value, static_cast<const I*>(idx.data_ptr()) + position, sizeof(I),
                                  cudaMemcpyDeviceToHost, stream));
    GB_CUDA_CHECK(cudaStreamSynchronize(stream));
    out = static_cast<int64_t>(value);
  });
  return out;
}

// The first value of an integer tensor outside [lo, hi), in row-major order, read back from the
// device (a synchronisation): what the CPU kernels would have thrown on.
inline std::optional<int64_t> first_out_of_range(const Tensor& index, int64_t lo, int64_t hi) {
  if (index.numel() == 0) return std::nullopt;
  const Tensor idx = index.contiguous();
  const Tensor scratch = launch_first_out_of_range(idx, lo, hi);
  int64_t position = -1;
  DeviceGuard guard(idx.device().index);
  const cudaStream_t stream = current_stream(idx.device().index).handle();
  GB_CUDA_CHECK(cudaMemcpyAsync(&position, scratch.data_ptr(), sizeof(position), cudaMemcpyDeviceToHost, stream));
  GB_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (position < 0) return std::nullopt;
  return index_value_at(idx, position);
}

// The same search as a deferred check (engine/cuda/deferred_checks.h): a value outside [lo, hi)
// raises the CPU's IndexError for (dim, size) at the next synchronisation. The kernels queued
// after it must skip such values themselves.
inline void defer_index_range_check(const char* op, const Tensor& index, int64_t lo, int64_t hi, int64_t dim,
                                    int64_t size) {
  if (index.numel() == 0) return;
  const Tensor idx = index.contiguous();
  defer_check(launch_first_out_of_range(idx, lo, hi), -1, [name = std::string(op), idx, dim, size](int64_t position) {
    throw_index_out_of_range(name.c_str(), index_value_at(idx, position), dim, size);
  });
}

// Throws the CPU's IndexError ("op: index 7 is out of bounds for dimension 1 with size 3") for
// the first index outside [-size, size).
inline void check_index_range(const char* op, const Tensor& index, int64_t dim, int64_t size) {
  if (const std::optional<int64_t> bad = first_out_of_range(index, -size, size))
    throw_index_out_of_range(op, *bad, dim, size);
}

// *p += v for every dtype: the hardware's atomics for 4- and 8-byte types, a compare-and-swap of
// the aligned 32-bit word around 1- and 2-byte ones (integers wrap as the CPU's do).
template <class T>
__device__ __forceinline__ void atomic_add(T* p, opmath_t<T> v) {
  if constexpr (std::is_same_v<T, bool>) {
    if (v) *p = true;
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>) {
    atomicAdd(p, v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else {
    static_assert(sizeof(T) <= 2);
    const uintptr_t address = reinterpret_cast<uintptr_t>(p);
    auto* word = reinterpret_cast<unsigned int*>(address & ~uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(address & 3) * 8;
    const unsigned mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    unsigned old = *word, assumed;
    do {
      assumed = old;
      const auto bits = static_cast<element_word_t<sizeof(T)>>((assumed & mask) >> shift);
      T current;
      memcpy(&current, &bits, sizeof(T));
      const T next = from_opmath<T>(to_opmath(current) + v);
      element_word_t<sizeof(T)> next_bits;
      memcpy(&next_bits, &next, sizeof(T));
      old = atomicCAS(word, assumed, (assumed & ~mask) | (static_cast<unsigned>(next_bits) << shift));
    } while (old != assumed);
  }
}

// The host type of a device type (__half -> Half): the inverse of device_t.
template <class T>
using host_t = std::conditional_t<std::is_same_v<T, __half>, Half,
                                  std::conditional_t<std::is_same_v<T, __nv_bfloat16>, BFloat16, T>>;

// A Scalar (a fill value) as an element of device type T, converted on the host as the CPU does.
template <class T>
T scalar_to_device(const Scalar& v) {
  using H = host_t<T>;
  return to_device_value<T>(static_cast<H>(scalar_in<opmath_t<T>>(v)));
}

}  // namespace glassbox::cuda
