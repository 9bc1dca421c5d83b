#pragma once
// The loops behind the CPU indexing kernels. Each kernel lays a "restrided" view over the tensor it
// reads or writes (engine/ops/index_layout.h: the indexed dim given stride 0, so every operand
// walks the same shape), and TensorIterator runs one of these loops over (destination, source,
// index), adding index * dim_stride bytes to the restrided operand's address. gather,
// index_select and index read this way; scatter, index_add_ and index_put_ write this way.
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cpu/loops.h"
#include "engine/ops/index_layout.h"

namespace glassbox::cpu {

// How the indexed dim is addressed: its byte stride, its size (for bounds checks) and, for
// error messages, the op and the dim's number.
struct IndexedDim {
  int64_t stride_bytes;
  int64_t size;
  const char* op;
  int64_t dim;
};

template <class I>
inline int64_t checked_index(const char* p, const IndexedDim& d) {
  I raw;
  std::memcpy(&raw, p, sizeof(I));
  const int64_t v = raw < 0 ? static_cast<int64_t>(raw) + d.size : static_cast<int64_t>(raw);
  if (v < 0 || v >= d.size) throw_index_out_of_range(d.op, static_cast<int64_t>(raw), d.dim, d.size);
  return v;
}

// Operands (out, src, index): out[i] = src[i] at index[i] along the indexed dim. Elements are
// moved as bytes, so one instantiation per element size serves every dtype.
template <size_t kBytes, class I>
void gather_bytes(TensorIterator& it, const IndexedDim& d) {
  it.for_each([&d](char** data, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = checked_index<I>(data[2] + i * s[2], d);
      std::memcpy(data[0] + i * s[0], data[1] + i * s[1] + v * d.stride_bytes, kBytes);
    }
  });
}

// Operands (dst, src, index): dst[i] at index[i] = src[i]. Indices are checked by the caller
// first, so that nothing is written when one is out of range.
template <size_t kBytes, class I>
void scatter_bytes(TensorIterator& it, const IndexedDim& d) {
  it.for_each([&d](char** data, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      I raw;
      std::memcpy(&raw, data[2] + i * s[2], sizeof(I));
      const int64_t v = raw < 0 ? static_cast<int64_t>(raw) + d.size : static_cast<int64_t>(raw);
      std::memcpy(data[0] + i * s[0] + v * d.stride_bytes, data[1] + i * s[1], kBytes);
    }
  });
}

// Operands (dst, src, index): dst[i] at index[i] += alpha * src[i]. One thread: two elements
// may land on the same destination.
template <class T, class I>
void scatter_add_values(TensorIterator& it, const IndexedDim& d, compute_t<T> alpha) {
  it.for_each(
      [&d, alpha](char** data, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          I raw;
          std::memcpy(&raw, data[2] + i * s[2], sizeof(I));
          const int64_t v = raw < 0 ? static_cast<int64_t>(raw) + d.size : static_cast<int64_t>(raw);
          char* p = data[0] + i * s[0] + v * d.stride_bytes;
          if constexpr (std::is_same_v<T, bool>) {
            store<T>(p, load<T>(p) || (alpha && load<T>(data[1] + i * s[1])));
          } else {
            store<T>(p, load<T>(p) + alpha * load<T>(data[1] + i * s[1]));
          }
        }
      },
      std::numeric_limits<int64_t>::max());
}

// A Scalar as the value type a kernel of T computes in.
template <class T>
compute_t<T> scalar_as(const Scalar& v) {
  if (v.is_floating_point()) return static_cast<compute_t<T>>(v.to_double());
  if (v.is_bool()) return static_cast<compute_t<T>>(v.to_bool());
  return static_cast<compute_t<T>>(v.to_int());
}

// A 0-d CPU tensor of `dtype` holding v.
inline Tensor scalar_tensor(const Scalar& v, ScalarType dtype) {
  Tensor t = empty_tensor({}, dtype, Device(DeviceType::CPU));
  visit_scalar_type(dtype, [&]<class T>() { store<T>(static_cast<char*>(t.data_ptr()), scalar_as<T>(v)); });
  return t;
}

// The value of a 0-d tensor (any dtype) as a Scalar: int64 for integers, so nothing is rounded.
inline Scalar tensor_item(const Tensor& t) {
  return visit_scalar_type(t.dtype(), [&]<class T>() -> Scalar {
    const compute_t<T> v = load<T>(static_cast<const char*>(t.data_ptr()));
    if constexpr (std::is_same_v<T, bool>) return Scalar(v);
    else if constexpr (std::is_floating_point_v<compute_t<T>>) return Scalar(static_cast<double>(v));
    else return Scalar(static_cast<int64_t>(v));
  });
}

// Marks an in-place kernel's write (autograd's version counter).
inline void bump_version(const Tensor& t) {
  if (t.unsafe_impl()->storage()) t.unsafe_impl()->storage()->bump_version();
}

// Throws the first out-of-range value of an index tensor (before a kernel writes anything).
void check_index_range(const Tensor& index, const IndexedDim& d);

}  // namespace glassbox::cpu
