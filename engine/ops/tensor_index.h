#pragma once
// Python-style indexing from C++: integers, slices with steps, None (a new axis), Ellipsis, bools,
// bool masks and integer tensors, for reading and for writing.
//
//   using namespace glassbox::indexing;
//   Tensor row = glassbox::index(t, {1});                       // t[1]          (a view)
//   Tensor odd = glassbox::index(t, {Slice(), Slice(1, None, 2)});  // t[:, 1::2] (a view)
//   Tensor sel = glassbox::index(t, {Ellipsis, idx});            // t[..., idx]  (a copy)
//   glassbox::index_put_(t, {mask}, 0.0);                        // t[mask] = 0
//
// Integers, slices, None and Ellipsis become views (select, slice, unsqueeze); tensors and bools
// are advanced indices, gathered by the index operator (index_put_ when writing). Integers are
// applied first, as views, so where they sit does not move the advanced dims (PyTorch's rule,
// which differs from NumPy's for `t[0, :, idx]`).
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "engine/core/tensor.h"

namespace glassbox {

namespace indexing {

struct EllipsisIndexType {};
inline constexpr EllipsisIndexType Ellipsis{};
// A new axis of size 1 (Python's None); also an open end of a Slice.
inline constexpr std::nullopt_t None = std::nullopt;

// start:stop:step with Python's rules (negative bounds count from the end, bounds are clamped);
// an empty bound is the dim's start or end. Steps must be positive, as in PyTorch.
struct Slice {
  explicit Slice(std::optional<int64_t> start_ = std::nullopt, std::optional<int64_t> stop_ = std::nullopt,
                 std::optional<int64_t> step_ = std::nullopt)
      : start(start_), stop(stop_), step(step_.value_or(1)) {}
  std::optional<int64_t> start, stop;
  int64_t step;
};

class TensorIndex {
 public:
  enum class Kind { None, Ellipsis, Integer, Boolean, Slice, Tensor };

  TensorIndex(std::nullopt_t) : kind_(Kind::None) {}
  TensorIndex(EllipsisIndexType) : kind_(Kind::Ellipsis) {}
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  TensorIndex(I i) : kind_(Kind::Integer), integer_(static_cast<int64_t>(i)) {}
  TensorIndex(bool b) : kind_(Kind::Boolean), integer_(b) {}
  TensorIndex(Slice s) : kind_(Kind::Slice), slice_(s) {}
  TensorIndex(Tensor t) : kind_(Kind::Tensor), tensor_(std::move(t)) {}

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return integer_ != 0; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  Slice slice_;
  Tensor tensor_;
};

}  // namespace indexing

// self[indices]: a view when every index is basic (integer, slice, None, Ellipsis), else a copy.
Tensor get_item(const Tensor& self, std::span<const indexing::TensorIndex> indices);
// self[indices] = value: value broadcasts to the indexed shape and is converted to self's dtype.
void set_item(const Tensor& self, std::span<const indexing::TensorIndex> indices, const Tensor& value);
void set_item(const Tensor& self, std::span<const indexing::TensorIndex> indices, const Scalar& value);

// The braced-list spellings. A braced list prefers these to the index/index_put_ operators'
// Tensor?[] overloads (a std::initializer_list parameter wins overload resolution).
inline Tensor index(const Tensor& self, std::initializer_list<indexing::TensorIndex> indices) {
  return get_item(self, std::span<const indexing::TensorIndex>(indices.begin(), indices.size()));
}
inline Tensor& index_put_(Tensor& self, std::initializer_list<indexing::TensorIndex> indices, const Tensor& value) {
  set_item(self, std::span<const indexing::TensorIndex>(indices.begin(), indices.size()), value);
  return self;
}
inline Tensor& index_put_(Tensor& self, std::initializer_list<indexing::TensorIndex> indices, const Scalar& value) {
  set_item(self, std::span<const indexing::TensorIndex>(indices.begin(), indices.size()), value);
  return self;
}

}  // namespace glassbox
