#pragma once
// TensorIterator: the one place where element-wise operators broadcast their operands, agree on
// a dtype, allocate their output, and turn N-d strided loops into a few long 1-d ones (dimensions
// reordered by stride and coalesced). Kernels only ever see
//   loop(char** data, const int64_t* byte_strides, int64_t n)
// over operands ordered outputs first, then inputs.
#include <algorithm>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/parallel.h"
#include "engine/core/tensor.h"

namespace glassbox {

class TensorIterator;

namespace detail {
// A vector whose first N elements live inside the object: an element-wise call has a handful of
// operands, and allocating their bookkeeping on the heap would cost more than the kernel. The
// inline slots are raw storage, constructed only as elements arrive (an iterator is made on
// every call; zeroing N unused elements of each vector costs more than the work it describes).
template <class T, size_t N>
class SmallVec {
 public:
  SmallVec() {}
  SmallVec(const SmallVec& o) { append(o); }
  SmallVec(SmallVec&& o) noexcept { take(o); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) {
      clear();
      append(o);
    }
    return *this;
  }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) {
      clear();
      take(o);
    }
    return *this;
  }
  ~SmallVec() { clear(); }

  // The inline case is the one inlined; growing past N is out of line.
  void push_back(T v) { emplace_back(std::move(v)); }
  // A new element made in place from args; returns it.
  template <class... Args>
  [[gnu::always_inline]] T& emplace_back(Args&&... args) {
    if (!on_heap_ && size_ < N) [[likely]] {
      T* slot = new (slots() + size_) T(std::forward<Args>(args)...);
      ++size_;
      return *slot;
    }
    return emplace_on_heap(std::forward<Args>(args)...);
  }
  // Room for n elements without moving them again (pointers to elements stay valid up to n).
  void reserve(size_t n) {
    if (on_heap_) heap_.reserve(n);
    else if (n > N) spill(n);
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return on_heap_ ? heap_.data() : slots(); }
  const T* data() const { return on_heap_ ? heap_.data() : slots(); }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

 private:
  T* slots() { return std::launder(reinterpret_cast<T*>(storage_)); }
  const T* slots() const { return std::launder(reinterpret_cast<const T*>(storage_)); }
  template <class... Args>
  [[gnu::noinline]] T& emplace_on_heap(Args&&... args) {
    if (!on_heap_) spill(2 * N);
    ++size_;
    return heap_.emplace_back(std::forward<Args>(args)...);
  }
  // Moves the inline elements to the heap (capacity at least `capacity`).
  void spill(size_t capacity) {
    heap_.reserve(std::max(capacity, size_));
    for (size_t i = 0; i < size_; ++i) {
      heap_.push_back(std::move(slots()[i]));
      slots()[i].~T();
    }
    on_heap_ = true;
  }
  void append(const SmallVec& o) {
    for (const T& x : o) push_back(x);
  }
  void take(SmallVec& o) {
    if (o.on_heap_) {
      heap_ = std::move(o.heap_);
      on_heap_ = true;
      size_ = o.size_;
      o.heap_.clear();
      o.on_heap_ = false;
      o.size_ = 0;
      return;
    }
    for (size_t i = 0; i < o.size_; ++i) push_back(std::move(o.slots()[i]));
    o.clear();
  }
  void clear() {
    if (on_heap_) {
      heap_.clear();
      on_heap_ = false;
    } else {
      for (size_t i = 0; i < size_; ++i) slots()[i].~T();
    }
    size_ = 0;
  }

  alignas(T) unsigned char storage_[N * sizeof(T)];
  std::vector<T> heap_;
  size_t size_ = 0;
  bool on_heap_ = false;
};
}  // namespace detail

class TensorIteratorConfig {
 public:
  explicit TensorIteratorConfig(const char* op_name) : op_name_(op_name) {}
  // Operands are borrowed: the caller keeps them alive until its loops have run.
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
  // A 0-d CPU tensor may join operands on another device (as PyTorch allows): kernels read its
  // one value on the host. Only for loops that do so (the pointwise launchers); without this,
  // only Python numbers (wrapped numbers) may.
  TensorIteratorConfig& allow_cpu_scalars() {
    cpu_scalars_ = true;
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
  bool cpu_scalars_ = false;
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
  // True when build() allocated the outputs (none was given).
  bool allocated_outputs() const { return allocated_outputs_; }
  // Operand i as the loop sees it (outputs first, then inputs after any conversion) and the
  // address of its first element: what a device kernel launches with.
  const Tensor& operand(int i) const {
    const OperandRef& r = operand_refs_[i];
    return r.borrowed ? *r.borrowed : owned_[r.owned];
  }
  char* data_ptr(int i) const { return ptrs_[i]; }

  // Calls loop over the whole iteration space, split across threads above `grain` elements.
  template <class F>
  void for_each(F&& loop, int64_t grain = kDefaultGrain) const {
    run(
        grain, [](char** d, const int64_t* s, int64_t n, void* ctx) { (*static_cast<F*>(ctx))(d, s, n); }, &loop);
  }

  // Writes results computed into temporaries back into outputs of another dtype.
  void finish();

 private:
  friend class TensorIteratorConfig;
  void run(int64_t grain, Loop loop, void* ctx) const;
  void serial_run(int64_t begin, int64_t end, Loop loop, void* ctx) const;

  static constexpr size_t kInlineOperands = 4;
  // Where operand i lives: the caller's tensor (borrowed) or a temporary in owned_ (by index, since
  // moving the iterator moves its inline temporaries).
  struct OperandRef {
    const Tensor* borrowed;
    int owned;
  };
  detail::SmallVec<Tensor*, 2> outputs_;
  detail::SmallVec<OperandRef, kInlineOperands> operand_refs_;
  detail::SmallVec<Tensor, kInlineOperands> owned_;     // temporaries (converted inputs, outputs of another dtype)
  std::vector<std::pair<Tensor*, Tensor>> writebacks_;  // (user output, temporary)
  detail::SmallVec<char*, kInlineOperands> ptrs_;
  detail::SmallVec<DimVector, kInlineOperands> strides_;  // per operand, bytes, fastest dim first
  DimVector shape_;
  int64_t numel_ = 0;
  ScalarType compute_dtype_ = ScalarType::Float32;
  bool allocated_outputs_ = false;
};

// dst = src (broadcast, converted) on any device: CPU tensors through the CPU loop directly,
// others through copy_'s dispatcher entry (their backend's copy_ kernel).
void copy_between(Tensor& dst, const Tensor& src);

// Broadcast shape of a and b (numpy rules); throws Error naming the op and both shapes.
DimVector broadcast_shapes(std::span<const int64_t> a, std::span<const int64_t> b, const char* op_name);
// The dtype an operation on these tensors produces (wrapped Python numbers count as weak).
ScalarType result_type(std::span<const Tensor* const> tensors);

}  // namespace glassbox
