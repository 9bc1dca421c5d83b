#pragma once
// TensorIterator: the one place where element-wise operators broadcast their operands, agree on
// a dtype, allocate their output, and turn N-d strided loops into a few long 1-d ones (dimensions
// reordered by stride and coalesced). Kernels only ever see
//   loop(char** data, const int64_t* byte_strides, int64_t n)
// over operands ordered outputs first, then inputs.
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/cpu/parallel.h"

namespace glassbox {

class TensorIterator;

namespace detail {
// A vector whose first N elements live inside the object: an element-wise call has a handful of
// operands, and allocating their bookkeeping on the heap would cost more than the kernel.
template <class T, size_t N>
class SmallVec {
 public:
  void push_back(T v) {
    if (heap_.empty() && size_ < N) {
      inline_[size_++] = std::move(v);
      return;
    }
    if (heap_.empty()) {
      heap_.reserve(2 * N);
      for (T& x : inline_) heap_.push_back(std::move(x));
    }
    heap_.push_back(std::move(v));
    ++size_;
  }
  // Grows to n default-constructed elements while they fit inline; push_back beyond that.
  void resize_inline(size_t n) {
    if (heap_.empty() && n <= N) {
      size_ = n;
      return;
    }
    while (size_ < n) push_back(T());
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return heap_.empty() ? inline_.data() : heap_.data(); }
  const T* data() const { return heap_.empty() ? inline_.data() : heap_.data(); }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

 private:
  std::array<T, N> inline_{};
  std::vector<T> heap_;
  size_t size_ = 0;
};
}  // namespace detail

class TensorIteratorConfig {
 public:
  explicit TensorIteratorConfig(const char* op_name) : op_name_(op_name) {}
  // An output: undefined tensors are allocated with the broadcast shape and the result dtype;
  // defined ones (in-place, out=) must already have that shape.
  TensorIteratorConfig& add_output(Tensor* out) {
    outputs_.push_back(out);
    return *this;
  }
  TensorIteratorConfig& add_input(const Tensor& in) {
    inputs_.push_back(&in);
    return *this;
  }
  // The dtype the loop computes in (inputs of other dtypes are converted first). Default: the
  // promoted dtype of the inputs (PyTorch's rules, Python numbers as weak types).
  TensorIteratorConfig& compute_dtype(ScalarType t) {
    compute_dtype_ = t;
    return *this;
  }
  // The dtype of allocated outputs. Default: the compute dtype (Bool for comparisons, say).
  TensorIteratorConfig& output_dtype(ScalarType t) {
    output_dtype_ = t;
    return *this;
  }
  // Integer inputs compute in the default float dtype (true division, sqrt, exp, ...).
  TensorIteratorConfig& promote_integers_to_float() {
    int_to_float_ = true;
    return *this;
  }
  // Operands keep their own dtypes; the loop casts (copy_ uses this).
  TensorIteratorConfig& keep_dtypes() {
    keep_dtypes_ = true;
    return *this;
  }
  TensorIterator build();

 private:
  friend class TensorIterator;
  const char* op_name_;
  detail::SmallVec<Tensor*, 2> outputs_;
  detail::SmallVec<const Tensor*, 4> inputs_;
  std::optional<ScalarType> compute_dtype_, output_dtype_;
  bool int_to_float_ = false;
  bool keep_dtypes_ = false;
};

class TensorIterator {
 public:
  using Loop = void (*)(char** data, const int64_t* strides, int64_t n, void* ctx);

  int num_operands() const { return static_cast<int>(ptrs_.size()); }
  int64_t numel() const { return numel_; }
  ScalarType compute_dtype() const { return compute_dtype_; }
  const Tensor& output(int i = 0) const { return *outputs_[i]; }
  // Shape the loop runs over (fastest dimension first) and one operand's byte strides on it.
  const DimVector& shape() const { return shape_; }
  const DimVector& strides(int operand) const { return strides_[operand]; }
  // True when every operand walks memory contiguously (or is a broadcast scalar): one flat loop.
  bool is_contiguous_1d() const { return shape_.size() <= 1; }
  // Operand i as the loop sees it (outputs first, then inputs after any conversion) and the
  // address of its first element: what a device kernel launches with.
  const Tensor& operand(int i) const { return owned_[i]; }
  char* data_ptr(int i) const { return ptrs_[i]; }

  // Calls loop over the whole iteration space, split across threads above `grain` elements.
  template <class F>
  void for_each(F&& loop, int64_t grain = kDefaultGrain) const {
    run(grain, [](char** d, const int64_t* s, int64_t n, void* ctx) { (*static_cast<F*>(ctx))(d, s, n); }, &loop);
  }

  // Writes results computed into temporaries back into outputs of another dtype.
  void finish();

 private:
  friend class TensorIteratorConfig;
  void run(int64_t grain, Loop loop, void* ctx) const;
  void serial_run(int64_t begin, int64_t end, Loop loop, void* ctx) const;

  static constexpr size_t kInlineOperands = 4;
  detail::SmallVec<Tensor*, 2> outputs_;
  detail::SmallVec<Tensor, kInlineOperands> owned_;  // the operands (converted inputs, temporaries) kept alive
  std::vector<std::pair<Tensor*, Tensor>> writebacks_;  // (user output, temporary)
  detail::SmallVec<char*, kInlineOperands> ptrs_;
  detail::SmallVec<DimVector, kInlineOperands> strides_;  // per operand, bytes, fastest dim first
  DimVector shape_;
  int64_t numel_ = 0;
  ScalarType compute_dtype_ = ScalarType::Float32;
};

// dst = src (broadcast, converted) on any device: CPU tensors through the CPU loop directly,
// others through copy_'s dispatcher entry (their backend's copy_ kernel).
void copy_between(Tensor& dst, const Tensor& src);

// Broadcast shape of a and b (numpy rules); throws ValueError naming the op and both shapes.
DimVector broadcast_shapes(std::span<const int64_t> a, std::span<const int64_t> b, const char* op_name);
// The dtype an operation on these tensors produces (wrapped Python numbers count as weak).
ScalarType result_type(std::span<const Tensor* const> tensors);

}  // namespace glassbox
