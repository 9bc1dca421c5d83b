#pragma once
// gather, scatter (and index, index_put_ through byte offsets) and masked_fill element by element,
// written once for the CPU loops (engine/cpu/index_kernels.cpp) and the CUDA launches
// (engine/cuda/index_kernels.cu). Each functor gets p[k], the address of operand k's element in the
// TensorIterator the front end (engine/ops/indexing.cpp) built; the operand read or written through
// the index has stride 0 along the indexed dim, and the functor adds index * stride itself.
// Indices reach these functors range-checked.
#include <cstdint>
#include <cstring>

#include "engine/core/host_device.h"
#include "engine/core/scalar.h"
#include "engine/ops/kernels/element_word.h"

namespace glassbox {

// The value of type V at p: one load on the device (element addresses are aligned), a memcpy on the
// host (no aliasing assumptions).
template <class V>
GLASSBOX_HOST_DEVICE V load_element(const char* p) {
#ifdef __CUDA_ARCH__
  return *reinterpret_cast<const V*>(p);
#else
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
#endif
}
template <class V>
GLASSBOX_HOST_DEVICE void store_element(char* p, V v) {
#ifdef __CUDA_ARCH__
  *reinterpret_cast<V*>(p) = v;
#else
  std::memcpy(p, &v, sizeof(V));
#endif
}

// A Scalar (alpha, a fill value) in the compute type C, read the same way by every backend.
template <class C>
C scalar_in(const Scalar& v) {
  if (v.is_floating_point()) return static_cast<C>(v.to_double());
  if (v.is_bool()) return static_cast<C>(v.to_bool());
  return static_cast<C>(v.to_int());
}

// The indexed dim: its byte stride and size; an index in [-size, size) wraps.
struct IndexStep {
  int64_t stride_bytes;
  int64_t size;
  // On the device an index outside [-size, size) reads element 0: CUDA may check indices after the
  // kernel is queued (engine/cuda/deferred_checks.h), and no kernel may read outside its operand.
  // The CPU refuses such an index before any loop runs, so its loops skip the test.
  GLASSBOX_HOST_DEVICE int64_t offset(int64_t raw) const {
#ifdef __CUDA_ARCH__
    if (raw < -size || raw >= size) return 0;
#endif
    return (raw < 0 ? raw + size : raw) * stride_bytes;
  }
};

// (out, src, index): out = src at index, moved as a word of B bytes.
template <size_t B, class I>
struct GatherElement {
  IndexStep d;
  GLASSBOX_HOST_DEVICE void operator()(char* const* p) const {
    const int64_t off = d.offset(static_cast<int64_t>(load_element<I>(p[2])));
    store_element(p[0], load_element<element_word_t<B>>(p[1] + off));
  }
};

// (dst, src, index): dst at index = src.
template <size_t B, class I>
struct ScatterElement {
  IndexStep d;
  GLASSBOX_HOST_DEVICE void operator()(char* const* p) const {
    const int64_t off = d.offset(static_cast<int64_t>(load_element<I>(p[2])));
    store_element(p[0] + off, load_element<element_word_t<B>>(p[1]));
  }
};

// (self, mask): self = value where mask; value holds the element's bits, converted on the host.
template <class W>
struct FillWhereElement {
  W value;
  GLASSBOX_HOST_DEVICE void operator()(char* const* p) const {
    if (load_element<bool>(p[1])) store_element(p[0], value);
  }
};
// (out, self, mask): out = value where mask, self elsewhere; one pass, where copying self into out
// and then filling it would be two.
template <class W>
struct SelectWhereElement {
  W value;
  GLASSBOX_HOST_DEVICE void operator()(char* const* p) const {
    store_element(p[0], load_element<bool>(p[2]) ? value : load_element<W>(p[1]));
  }
};

}  // namespace glassbox
