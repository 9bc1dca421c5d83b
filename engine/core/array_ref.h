#pragma once
// ArrayRef<T>: a non-owning view of contiguous elements, like std::span, that can also be made
// from a braced list — so `zeros({2, 3})` works as it does in PyTorch's C++ API. A view made
// from a braced list lives until the end of the full expression: pass it, don't keep it.
#include <cstddef>
#include <initializer_list>
#include <span>
#include <type_traits>
#include <vector>

namespace glassbox {

template <class T>
class ArrayRef {
 public:
  using value_type = T;

  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  // GCC warns that the list's array is not kept alive: that is the contract above (a braced list
  // passed as an argument lives until the end of the call's full expression).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr ArrayRef(std::initializer_list<T> list) : data_(list.begin()), size_(list.size()) {}
#pragma GCC diagnostic pop
  // Any contiguous container: std::vector, std::array, DimVector, std::span, ...
  template <class C,
            class = std::enable_if_t<!std::is_same_v<std::remove_cvref_t<C>, ArrayRef> &&
                                     std::is_convertible_v<decltype(std::declval<const C&>().data()), const T*>>>
  constexpr ArrayRef(const C& c) : data_(c.data()), size_(c.size()) {}
  constexpr ArrayRef(std::span<const T> s) : data_(s.data()), size_(s.size()) {}
  template <size_t N>
  constexpr ArrayRef(const T (&array)[N]) : data_(array), size_(N) {}

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  constexpr const T& back() const { return data_[size_ - 1]; }
  constexpr operator std::span<const T>() const { return {data_, size_}; }
  std::vector<T> vec() const { return {begin(), end()}; }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace glassbox
