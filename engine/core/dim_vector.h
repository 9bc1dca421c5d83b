#pragma once
// DimVector: sizes or strides of a tensor. Up to kInline dimensions live inside the object, so
// making a small tensor does not allocate for its shape.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <vector>

namespace glassbox {

class DimVector {
 public:
  static constexpr size_t kInline = 6;

  DimVector() = default;
  explicit DimVector(size_t n, int64_t value = 0) { resize(n, value); }
  DimVector(std::span<const int64_t> v) { assign(v); }
  DimVector(std::initializer_list<int64_t> v) { assign(std::span<const int64_t>(v.begin(), v.size())); }
  DimVector(const std::vector<int64_t>& v) { assign(v); }
  DimVector(const DimVector& o) { assign(o.span()); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o.span());
    return *this;
  }
  DimVector(DimVector&& o) noexcept { *this = std::move(o); }
  DimVector& operator=(DimVector&& o) noexcept {
    if (o.heap_) {
      heap_ = std::move(o.heap_);
      capacity_ = o.capacity_;
      data_ = heap_.get();
    } else {
      heap_.reset();
      capacity_ = kInline;
      data_ = inline_;
      std::copy(o.inline_, o.inline_ + o.size_, inline_);
    }
    size_ = o.size_;
    o.size_ = 0;
    o.data_ = o.inline_;
    o.capacity_ = kInline;
    return *this;
  }

  void assign(std::span<const int64_t> v) {
    reserve(v.size());
    std::copy(v.begin(), v.end(), data_);
    size_ = v.size();
  }
  void resize(size_t n, int64_t value = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = value;
    size_ = n;
  }
  void push_back(int64_t v) {
    reserve(size_ + 1);
    data_[size_++] = v;
  }
  void insert(size_t pos, int64_t v) {
    reserve(size_ + 1);
    std::copy_backward(data_ + pos, data_ + size_, data_ + size_ + 1);
    data_[pos] = v;
    ++size_;
  }
  void erase(size_t pos) {
    std::copy(data_ + pos + 1, data_ + size_, data_ + pos);
    --size_;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  int64_t& operator[](size_t i) { return data_[i]; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t* begin() { return data_; }
  int64_t* end() { return data_ + size_; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  int64_t back() const { return data_[size_ - 1]; }
  std::span<const int64_t> span() const { return {data_, size_}; }
  operator std::span<const int64_t>() const { return span(); }
  std::vector<int64_t> vec() const { return {begin(), end()}; }

  bool operator==(const DimVector& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

 private:
  void reserve(size_t n) {
    if (n <= capacity_) return;
    auto bigger = std::make_unique<int64_t[]>(n);
    std::copy(data_, data_ + size_, bigger.get());
    heap_ = std::move(bigger);
    data_ = heap_.get();
    capacity_ = n;
  }

  int64_t inline_[kInline];
  std::unique_ptr<int64_t[]> heap_;
  int64_t* data_ = inline_;
  size_t size_ = 0;
  size_t capacity_ = kInline;
};

}  // namespace glassbox
