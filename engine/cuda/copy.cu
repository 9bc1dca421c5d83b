// copy_ under the CUDA key: every copy with a CUDA tensor on either side. Within a device, dense
// same-dtype copies are one cudaMemcpyAsync and the rest a strided kernel (bytes moved as they are,
// in words as wide as the layout allows, or converted through one kernel that switches on the two
// dtypes at run time). Across
// host and device the source is first made what the destination holds (dtype, broadcast shape,
// contiguous) on its own side, then moved with one cudaMemcpyAsync.
#include <cuda_runtime.h>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/cuda/pinned_memory.h"
#include "engine/ops/out_arguments.h"
#include "glassbox/ops/copy.h"
#include "glassbox/ops/native/copy.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

// A value of any dtype on its way to another: floating-point values as double, the rest as int64,
// so that every conversion is the one convert_value (engine/ops/copy.h) makes on the CPU.
struct AnyValue {
  double f;
  int64_t i;
  bool is_float;
};

template <class T>
__device__ __forceinline__ T read(const char* p) {
  return *reinterpret_cast<const T*>(p);
}

__device__ AnyValue load_any(const char* p, ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return {read<float>(p), 0, true};
    case ScalarType::Float64: return {read<double>(p), 0, true};
    case ScalarType::Float16: return {__half2float(read<__half>(p)), 0, true};
    case ScalarType::BFloat16: return {__bfloat162float(read<__nv_bfloat16>(p)), 0, true};
    case ScalarType::Int64: return {0, read<int64_t>(p), false};
    case ScalarType::Int32: return {0, read<int32_t>(p), false};
    case ScalarType::Int16: return {0, read<int16_t>(p), false};
    case ScalarType::Int8: return {0, read<int8_t>(p), false};
    case ScalarType::UInt8: return {0, read<uint8_t>(p), false};
    default: return {0, read<bool>(p) ? 1 : 0, false};
  }
}

template <class T>
__device__ __forceinline__ void write(char* p, AnyValue v) {
  if constexpr (std::is_same_v<T, bool>) *reinterpret_cast<bool*>(p) = v.is_float ? v.f != 0.0 : v.i != 0;
  else *reinterpret_cast<T*>(p) = v.is_float ? static_cast<T>(v.f) : static_cast<T>(v.i);
}

__device__ void store_any(char* p, ScalarType t, AnyValue v) {
  switch (t) {
    case ScalarType::Float32: write<float>(p, v); return;
    case ScalarType::Float64: write<double>(p, v); return;
    // float16/bfloat16 go through float, as on the CPU.
    case ScalarType::Float16:
      *reinterpret_cast<__half*>(p) = __float2half_rn(v.is_float ? static_cast<float>(v.f) : static_cast<float>(v.i));
      return;
    case ScalarType::BFloat16:
      *reinterpret_cast<__nv_bfloat16*>(p) =
          __float2bfloat16_rn(v.is_float ? static_cast<float>(v.f) : static_cast<float>(v.i));
      return;
    case ScalarType::Int64: write<int64_t>(p, v); return;
    case ScalarType::Int32: write<int32_t>(p, v); return;
    case ScalarType::Int16: write<int16_t>(p, v); return;
    case ScalarType::Int8: write<int8_t>(p, v); return;
    case ScalarType::UInt8: write<uint8_t>(p, v); return;
    default: write<bool>(p, v); return;
  }
}

// One kernel for every pair of dtypes: the switches are uniform across the grid.
__global__ void convert_kernel(char* out, const char* in, StridedGeometry<2> g, uint32_t n, ScalarType to,
                               ScalarType from) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t off[2];
  g.offsets(i, off);
  store_any(out + off[0], to, load_any(in + off[1], from));
}

// A same-dtype copy moves words, never looks at values: each thread moves kCopyWordsPerThread of
// them, a block apart, loading all before storing any (several loads in flight per thread).
inline constexpr int kCopyWordsPerThread = 4;

template <class Word>
__global__ void __launch_bounds__(kElementwiseThreads)
    strided_copy_kernel(char* out, const char* in, StridedGeometry<2> g, uint32_t n) {
  const uint32_t first = blockIdx.x * (kElementwiseThreads * kCopyWordsPerThread) + threadIdx.x;
  Word word[kCopyWordsPerThread];
  int64_t to[kCopyWordsPerThread];
#pragma unroll
  for (int u = 0; u < kCopyWordsPerThread; ++u) {
    const uint32_t i = first + u * kElementwiseThreads;
    if (i < n) {
      int64_t off[2];
      g.offsets(i, off);
      to[u] = off[0];
      word[u] = *reinterpret_cast<const Word*>(in + off[1]);
    }
  }
#pragma unroll
  for (int u = 0; u < kCopyWordsPerThread; ++u)
    if (first + u * kElementwiseThreads < n) *reinterpret_cast<Word*>(out + to[u]) = word[u];
}

// The widest word (up to 16 bytes) a copy's rows can move in: the fastest dim dense on both sides,
// its row length, every other stride and both addresses multiples of the word. A row of 64 floats
// is then 16 moves of 16 bytes, not 64 of 4 (the heads' transposes of attention, a bias spread
// over the rows of a matrix).
int64_t widest_word(const LoopSpace<2>& space, const char* out, const char* in, int64_t item) {
  if (space.shape.empty() || space.strides[0][0] != item || space.strides[1][0] != item) return item;
  for (int64_t word = 16; word > item; word /= 2) {
    bool fits = (space.shape[0] * item) % word == 0 && reinterpret_cast<uintptr_t>(out) % word == 0 &&
                reinterpret_cast<uintptr_t>(in) % word == 0;
    for (size_t d = 1; fits && d < space.shape.size(); ++d)
      fits = space.strides[0][d] % word == 0 && space.strides[1][d] % word == 0;
    if (fits) return word;
  }
  return item;
}

template <class Word>
void launch_copy(const LoopSpace<2>& space, char* out, const char* in, cudaStream_t stream) {
  for_each_strided_piece<2>(space, [&](const std::array<int64_t, 2>& base, const StridedGeometry<2>& g, uint32_t n) {
    const uint32_t per_block = kElementwiseThreads * kCopyWordsPerThread;
    strided_copy_kernel<Word>
        <<<(n + per_block - 1) / per_block, kElementwiseThreads, 0, stream>>>(out + base[0], in + base[1], g, n);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

// dst = src of the same dtype through the iterator's loop, in the widest words it allows.
void copy_bits(const TensorIterator& it, int64_t item, cudaStream_t stream) {
  LoopSpace<2> space;
  space.shape.assign(it.shape().begin(), it.shape().end());
  for (int op = 0; op < 2; ++op) space.strides[op].assign(it.strides(op).begin(), it.strides(op).end());
  char* out = it.data_ptr(0);
  const char* in = it.data_ptr(1);
  const int64_t word = widest_word(space, out, in, item);
  if (word != item) {
    space.shape[0] = space.shape[0] * item / word;
    space.strides[0][0] = space.strides[1][0] = word;
  }
  switch (word) {
    case 1: launch_copy<uint8_t>(space, out, in, stream); break;
    case 2: launch_copy<uint16_t>(space, out, in, stream); break;
    case 4: launch_copy<uint32_t>(space, out, in, stream); break;
    case 8: launch_copy<uint2>(space, out, in, stream); break;
    default: launch_copy<uint4>(space, out, in, stream); break;
  }
}

bool same_sizes(const Tensor& a, const Tensor& b) { return a.sizes() == b.sizes(); }

// dst = src, both on dst's device.
void device_copy(Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  const int device = dst.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  if (dst.dtype() == src.dtype() && same_sizes(dst, src) && dst.is_contiguous() && src.is_contiguous()) {
    GB_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(),
                                  static_cast<size_t>(dst.numel()) * element_size(dst.dtype()),
                                  cudaMemcpyDeviceToDevice, stream));
    return;
  }
  Tensor out = dst;
  TensorIterator it = TensorIteratorConfig("copy_").add_output(&out).add_input(src).keep_dtypes().build();
  if (dst.dtype() == src.dtype()) {  // a same-dtype copy moves bits
    copy_bits(it, static_cast<int64_t>(element_size(dst.dtype())), stream);
    return;
  }
  LoopSpace<2> space;
  space.shape.assign(it.shape().begin(), it.shape().end());
  for (int op = 0; op < 2; ++op) space.strides[op].assign(it.strides(op).begin(), it.strides(op).end());
  const ScalarType to = dst.dtype(), from = src.dtype();
  for_each_strided_piece<2>(space, [&](const std::array<int64_t, 2>& base, const StridedGeometry<2>& g, uint32_t n) {
    convert_kernel<<<(n + kElementwiseThreads - 1) / kElementwiseThreads, kElementwiseThreads, 0, stream>>>(
        it.data_ptr(0) + base[0], it.data_ptr(1) + base[1], g, n, to, from);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

// src as dst holds it (dtype, shape, contiguous) on src's own device: src itself when it already is.
Tensor staged_like(const Tensor& dst, const Tensor& src) {
  if (src.dtype() == dst.dtype() && same_sizes(src, dst) && src.is_contiguous()) return src;
  Tensor staged = empty_tensor(dst.sizes(), dst.dtype(), src.device());
  if (src.device().type == DeviceType::CUDA) device_copy(staged, src);
  else glassbox::copy_(staged, src, false);  // the CPU kernel
  return staged;
}

void host_to_device(Tensor& dst, const Tensor& src, bool non_blocking) {
  const Tensor host = staged_like(dst, src);
  const int device = dst.device().index;
  DeviceGuard guard(device);
  const Stream stream = current_stream(device);
  Tensor target = dst.is_contiguous() ? dst : empty_tensor(dst.sizes(), dst.dtype(), dst.device());
  GB_CUDA_CHECK(cudaMemcpyAsync(target.data_ptr(), host.data_ptr(),
                                static_cast<size_t>(dst.numel()) * element_size(dst.dtype()), cudaMemcpyHostToDevice,
                                stream.handle()));
  if (!target.is_same(dst)) device_copy(dst, target);
  // From pageable memory the call returns once the data is staged (the buffer may change or go);
  // pinned memory is read later by the copy engine, so a blocking copy waits for it.
  if (!non_blocking && is_pinned(host.data_ptr())) stream.synchronize();
}

void device_to_host(Tensor& dst, const Tensor& src, bool non_blocking) {
  const int device = src.device().index;
  DeviceGuard guard(device);
  const Tensor staged = staged_like(dst, src);
  const Stream stream = current_stream(device);
  Tensor target = dst.is_contiguous() ? dst : empty_tensor(dst.sizes(), dst.dtype(), dst.device());
  GB_CUDA_CHECK(cudaMemcpyAsync(target.data_ptr(), staged.data_ptr(),
                                static_cast<size_t>(dst.numel()) * element_size(dst.dtype()), cudaMemcpyDeviceToHost,
                                stream.handle()));
  // Only a copy into pinned memory the caller reads later (non_blocking) may still be running.
  if (!non_blocking || !target.is_same(dst) || !is_pinned(target.data_ptr())) stream.synchronize();
  if (!target.is_same(dst)) glassbox::copy_(dst, target, false);
}

void peer_copy(Tensor& dst, const Tensor& src, bool non_blocking) {
  Tensor staged;
  {
    DeviceGuard guard(src.device().index);
    staged = staged_like(dst, src);
    current_stream(src.device().index).synchronize();  // the source is complete before the other device reads it
  }
  const int device = dst.device().index;
  DeviceGuard guard(device);
  const Stream stream = current_stream(device);
  Tensor target = dst.is_contiguous() ? dst : empty_tensor(dst.sizes(), dst.dtype(), dst.device());
  GB_CUDA_CHECK(cudaMemcpyPeerAsync(target.data_ptr(), device, staged.data_ptr(), src.device().index,
                                    static_cast<size_t>(dst.numel()) * element_size(dst.dtype()), stream.handle()));
  if (!target.is_same(dst)) device_copy(dst, target);
  if (!non_blocking) stream.synchronize();
}
}  // namespace

Tensor& copy_cuda_(Tensor& self, const Tensor& src, bool non_blocking) {
  GB_CHECK(self.defined() && src.defined(), "copy_: undefined tensor");
  if (self.is_same(src)) return self;
  check_no_internal_overlap("copy_", self);
  const DeviceType to = self.device().type, from = src.device().type;
  if (to == DeviceType::Meta || from == DeviceType::Meta) {
    throw Error("copy_: cannot copy between " + src.device().to_string() + " and " + self.device().to_string() +
                " (a meta tensor has no data)");
  }
  if (broadcast_shapes(src.sizes(), self.sizes(), "copy_") != self.sizes()) {
    throw Error("copy_: the source of shape " + shape_to_string(src.sizes()) +
                " cannot be broadcast to the destination of shape " + shape_to_string(self.sizes()));
  }
  if (self.numel() > 0) {
    if (to == DeviceType::CUDA && from == DeviceType::CUDA) {
      if (self.device() == src.device()) device_copy(self, src);
      else peer_copy(self, src, non_blocking);
    } else if (to == DeviceType::CUDA) {
      host_to_device(self, src, non_blocking);
    } else {
      device_to_host(self, src, non_blocking);
    }
  }
  mark_written(self);
  return self;
}

}  // namespace glassbox::native
