#pragma once
// The element-wise launcher. TensorIterator (engine/ops) has already broadcast, promoted,
// allocated and coalesced; this turns its loop into GPU launches of a functor
//   f(to_opmath(in0), to_opmath(in1), ...) -> the output's opmath type
// with two kernels per functor and dtype:
//  * contiguous: every operand dense (or one value for all elements), each thread handling
//    kVectorsPerThread vectors of 16 bytes, loads issued before any arithmetic;
//  * strided: each thread computes its operands' byte offsets from the coalesced sizes and
//    strides (32-bit indices, divided by multiplication; larger or deeper loops are split into
//    several launches).
// A Python number arrives as a 0-d CPU tensor (the front end's "wrapped number"): its value is
// read on the host and passed by value, never dereferenced on the device.
#include <cuda_runtime.h>
#include <cuda/std/tuple>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/cuda/cuda_error.h"
#include "engine/cuda/cuda_types.cuh"
#include "engine/cuda/device_guard.h"
#include "engine/cuda/index_divider.h"
#include "engine/cuda/stream.h"
#include "engine/ops/tensor_iterator.h"

namespace glassbox::cuda {

inline constexpr int kMaxLoopDims = 6;  // coalesced dims one strided launch handles
inline constexpr int kElementwiseThreads = 256;
inline constexpr int kVectorsPerThread = 2;

// Autograd's version counter notices the write.
inline void mark_written(const Tensor& out) {
  if (out.defined() && out.unsafe_impl()->storage()) out.unsafe_impl()->storage()->bump_version();
}

// Operand k's element `index` is at its base pointer + sum over dims of index_d * strides[d][k].
// When every operand's elements lie within 2^30 bytes of its base (`narrow`: no partial sum can
// overflow), the sum is worked out in 32-bit arithmetic, one multiply-add per dim and operand
// instead of three. (A dim of size 1 contributes nothing, whatever its stride.)
template <int N>
struct StridedGeometry {
  int ndim = 0;
  bool narrow = false;
  IndexDivider sizes[kMaxLoopDims];       // fastest dim first
  int64_t strides[kMaxLoopDims][N] = {};  // bytes

  __device__ __forceinline__ void offsets(uint32_t index, int64_t (&off)[N]) const {
    if (narrow) {
      int32_t o[N];
      accumulate(index, o);
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] = o[k];
    } else {
      accumulate(index, off);
    }
  }

 private:
  template <class I>
  __device__ __forceinline__ void accumulate(uint32_t index, I (&off)[N]) const {
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = 0;
#pragma unroll
    for (int d = 0; d < kMaxLoopDims; ++d) {
      if (d == ndim) break;
      uint32_t i = index;
      if (d + 1 < ndim) {
        const uint32_t q = sizes[d].quotient(index);
        i = index - q * sizes[d].divisor;
        index = q;
      }
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += static_cast<I>(i) * static_cast<I>(strides[d][k]);
    }
  }
};

// A loop over `shape` (fastest dim first) with per-operand byte strides and base offsets.
template <int N>
struct LoopSpace {
  std::vector<int64_t> shape;
  std::array<std::vector<int64_t>, N> strides;
  std::array<int64_t, N> base{};
};

// Calls launch(base offsets, geometry, count) for pieces of `space` that one strided launch can
// index: at most kMaxLoopDims dims (outer ones are looped here) and fewer than 2^31 elements
// (the slowest dim is halved until they are).
template <int N, class Launch>
void for_each_strided_piece(const LoopSpace<N>& space, const Launch& launch) {
  int64_t numel = 1;
  for (int64_t s : space.shape) numel *= s;
  if (numel == 0) return;
  const int nd = static_cast<int>(space.shape.size());
  if (nd <= kMaxLoopDims && numel <= std::numeric_limits<int32_t>::max()) {
    StridedGeometry<N> g;
    g.ndim = nd;
    std::array<int64_t, N> extent{};  // per operand: the farthest byte from its base
    for (int d = 0; d < nd; ++d) {
      g.sizes[d] = IndexDivider(static_cast<uint32_t>(space.shape[d]));
      for (int k = 0; k < N; ++k) {
        g.strides[d][k] = space.strides[k][d];
        extent[k] += (space.shape[d] - 1) * (space.strides[k][d] < 0 ? -space.strides[k][d] : space.strides[k][d]);
      }
    }
    g.narrow = *std::max_element(extent.begin(), extent.end()) < std::numeric_limits<int32_t>::max() / 2;
    launch(space.base, g, static_cast<uint32_t>(numel));
    return;
  }
  if (nd > kMaxLoopDims) {
    LoopSpace<N> inner = space;
    inner.shape.pop_back();
    for (auto& s : inner.strides) s.pop_back();
    for (int64_t i = 0; i < space.shape[nd - 1]; ++i) {
      LoopSpace<N> piece = inner;
      for (int k = 0; k < N; ++k) piece.base[k] = space.base[k] + i * space.strides[k][nd - 1];
      for_each_strided_piece<N>(piece, launch);
    }
    return;
  }
  int d = nd - 1;
  while (space.shape[d] == 1) --d;  // some dim is larger than 1: numel >= 2^31
  const int64_t half = space.shape[d] / 2;
  LoopSpace<N> first = space, second = space;
  first.shape[d] = half;
  second.shape[d] = space.shape[d] - half;
  for (int k = 0; k < N; ++k) second.base[k] += half * space.strides[k][d];
  for_each_strided_piece<N>(first, launch);
  for_each_strided_piece<N>(second, launch);
}

// How an input is read: from memory (dense or strided), as a value passed from the host, or as
// one device element every thread reads (a broadcast scalar in the contiguous kernel).
enum class InputKind : uint8_t { Memory, HostValue, DeviceValue };

template <int NIN>
struct ElementwiseArgs {
  static constexpr int kSlots = NIN > 0 ? NIN : 1;
  char* out;
  const char* in[kSlots];
  uint64_t value[kSlots];  // the bits of a HostValue
  InputKind kind[kSlots];
};

template <class T, int VEC>
struct alignas(sizeof(T) * VEC) AlignedVec {
  T val[VEC];
};

// Elements per 16-byte access of the widest operand.
template <class Out, class... In>
constexpr int vector_width() {
  constexpr size_t widest = std::max({sizeof(Out), sizeof(In)...});
  return widest >= 16 ? 1 : static_cast<int>(16 / widest);
}

template <class T, class Args>
__device__ __forceinline__ T host_value(const Args& a, int k) {
  T v;
  memcpy(&v, &a.value[k], sizeof(T));
  return v;
}

// Element i of a contiguous-kernel input.
template <class T, class Args>
__device__ __forceinline__ T load_dense(const Args& a, int k, int64_t i) {
  switch (a.kind[k]) {
    case InputKind::Memory: return reinterpret_cast<const T*>(a.in[k])[i];
    case InputKind::DeviceValue: return *reinterpret_cast<const T*>(a.in[k]);
    default: return host_value<T>(a, k);
  }
}
// Vector v (elements v*VEC ...) of a contiguous-kernel input.
template <class T, int VEC, class Args>
__device__ __forceinline__ AlignedVec<T, VEC> load_vector(const Args& a, int k, int64_t v) {
  if (a.kind[k] == InputKind::Memory) return reinterpret_cast<const AlignedVec<T, VEC>*>(a.in[k])[v];
  const T x = a.kind[k] == InputKind::HostValue ? host_value<T>(a, k) : *reinterpret_cast<const T*>(a.in[k]);
  AlignedVec<T, VEC> r;
#pragma unroll
  for (int j = 0; j < VEC; ++j) r.val[j] = x;
  return r;
}

template <int VEC, class... In, class Args, size_t... K>
__device__ __forceinline__ ::cuda::std::tuple<AlignedVec<In, VEC>...> load_vectors(const Args& a, int64_t v,
                                                                                   std::index_sequence<K...>) {
  return ::cuda::std::tuple<AlignedVec<In, VEC>...>(load_vector<In, VEC>(a, static_cast<int>(K), v)...);
}

template <class Out, int VEC, class F, class... In, size_t... K>
__device__ __forceinline__ void compute_vector(char* out, int64_t v,
                                               const ::cuda::std::tuple<AlignedVec<In, VEC>...>& in, const F& f,
                                               std::index_sequence<K...>) {
  AlignedVec<Out, VEC> r;
#pragma unroll
  for (int j = 0; j < VEC; ++j) r.val[j] = from_opmath<Out>(f(to_opmath(::cuda::std::get<K>(in).val[j])...));
  reinterpret_cast<AlignedVec<Out, VEC>*>(out)[v] = r;
}

template <class Out, class... In, class Args, class F, size_t... K>
__device__ __forceinline__ void compute_dense(const Args& a, int64_t i, const F& f, std::index_sequence<K...>) {
  reinterpret_cast<Out*>(a.out)[i] = from_opmath<Out>(f(to_opmath(load_dense<In>(a, static_cast<int>(K), i))...));
}

// Input k of a strided-kernel element whose byte offsets are `off` (the output's first).
template <class T, class Args>
__device__ __forceinline__ T load_strided(const Args& a, int k, const int64_t* off) {
  return a.kind[k] == InputKind::HostValue ? host_value<T>(a, k) : *reinterpret_cast<const T*>(a.in[k] + off[k + 1]);
}

template <class Out, class... In, class Args, class F, size_t... K>
__device__ __forceinline__ void compute_strided(const Args& a, const int64_t* off, const F& f,
                                                std::index_sequence<K...>) {
  *reinterpret_cast<Out*>(a.out + off[0]) =
      from_opmath<Out>(f(to_opmath(load_strided<In>(a, static_cast<int>(K), off))...));
}

template <int VEC, class Out, class F, class... In>
__global__ void __launch_bounds__(kElementwiseThreads)
    contiguous_elementwise_kernel(ElementwiseArgs<sizeof...(In)> a, int64_t n, F f) {
  using Inputs = std::index_sequence_for<In...>;
  const int64_t nvec = n / VEC;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x * kVectorsPerThread + threadIdx.x;
  ::cuda::std::tuple<AlignedVec<In, VEC>...> loaded[kVectorsPerThread];
#pragma unroll
  for (int u = 0; u < kVectorsPerThread; ++u) {
    const int64_t v = first + static_cast<int64_t>(u) * blockDim.x;
    if (v < nvec) loaded[u] = load_vectors<VEC, In...>(a, v, Inputs{});
  }
#pragma unroll
  for (int u = 0; u < kVectorsPerThread; ++u) {
    const int64_t v = first + static_cast<int64_t>(u) * blockDim.x;
    if (v < nvec) compute_vector<Out, VEC>(a.out, v, loaded[u], f, Inputs{});
  }
  // The n % VEC elements after the last whole vector.
  if (blockIdx.x == 0 && threadIdx.x < n - nvec * VEC)
    compute_dense<Out, In...>(a, nvec * VEC + threadIdx.x, f, Inputs{});
}

template <class Out, class F, class... In>
__global__ void __launch_bounds__(kElementwiseThreads)
    strided_elementwise_kernel(ElementwiseArgs<sizeof...(In)> a, StridedGeometry<sizeof...(In) + 1> g, uint32_t n,
                               F f) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t off[sizeof...(In) + 1];
  g.offsets(i, off);
  compute_strided<Out, In...>(a, off, f, std::index_sequence_for<In...>{});
}

inline bool aligned_to(const void* p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

// Runs f over the iterator's loop: Out is the output's device type, In... the inputs' (after the
// front end's conversions), in operand order. Queued on the current stream of the output's device.
template <class Out, class... In, class F>
void launch_elementwise(const TensorIterator& it, const F& f) {
  constexpr int NIN = sizeof...(In), N = NIN + 1;
  const int64_t n = it.numel();
  if (n == 0) return;
  GB_CHECK(it.num_operands() == N, "internal: a CUDA element-wise kernel for ", N, " operands got ", it.num_operands());
  const int device = it.operand(0).device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  constexpr size_t item[] = {sizeof(Out), sizeof(In)...};
  constexpr int kVec = vector_width<Out, In...>();

  const bool flat = it.shape().size() <= 1;
  auto flat_stride = [&](int op) { return it.shape().empty() ? static_cast<int64_t>(item[op]) : it.strides(op)[0]; };
  ElementwiseArgs<NIN> a{};
  a.out = it.data_ptr(0);
  bool dense = flat && flat_stride(0) == static_cast<int64_t>(item[0]);
  bool aligned = aligned_to(a.out, item[0] * kVec);
  for (int k = 0; k < NIN; ++k) {
    a.in[k] = it.data_ptr(k + 1);
    if (it.operand(k + 1).device().type == DeviceType::CPU) {  // a wrapped Python number (0-d)
      a.kind[k] = InputKind::HostValue;
      std::memcpy(&a.value[k], a.in[k], item[k + 1]);
    } else if (flat && flat_stride(k + 1) == 0) {
      a.kind[k] = InputKind::DeviceValue;
    } else {
      a.kind[k] = InputKind::Memory;
      dense = dense && flat_stride(k + 1) == static_cast<int64_t>(item[k + 1]);
      aligned = aligned && aligned_to(a.in[k], item[k + 1] * kVec);
    }
  }
  if (dense && aligned) {
    const int64_t per_block = int64_t{kElementwiseThreads} * kVectorsPerThread;
    const int64_t blocks = std::max<int64_t>(1, (n / kVec + per_block - 1) / per_block);
    contiguous_elementwise_kernel<kVec, Out, F, In...>
        <<<static_cast<unsigned>(blocks), kElementwiseThreads, 0, stream>>>(a, n, f);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
    return;
  }
  LoopSpace<N> space;
  space.shape.assign(it.shape().begin(), it.shape().end());
  for (int op = 0; op < N; ++op) space.strides[op].assign(it.strides(op).begin(), it.strides(op).end());
  for_each_strided_piece<N>(space,
                            [&](const std::array<int64_t, N>& base, const StridedGeometry<N>& g, uint32_t count) {
    ElementwiseArgs<NIN> piece = a;
    piece.out += base[0];
    for (int k = 0; k < NIN; ++k) {
      if (piece.kind[k] == InputKind::HostValue) continue;
      piece.kind[k] = InputKind::Memory;  // broadcast operands have stride 0 here
      piece.in[k] += base[k + 1];
    }
    const unsigned blocks = (count + kElementwiseThreads - 1) / kElementwiseThreads;
    strided_elementwise_kernel<Out, F, In...><<<blocks, kElementwiseThreads, 0, stream>>>(piece, g, count, f);
    GB_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace glassbox::cuda
