#include "engine/ops/tensor_iterator.h"

#include <algorithm>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/ops/copy.h"
#include "engine/ops/out_arguments.h"
#include "registry/dispatcher.h"

namespace glassbox {

void copy_between(Tensor& dst, const Tensor& src) {
  if (dst.device().type == DeviceType::CPU && src.device().type == DeviceType::CPU) {
    copy_(dst, src);
    return;
  }
  static const auto dispatched =
      Dispatcher::singleton().find_schema_or_throw("glassbox::copy_").typed<Tensor&(Tensor&, const Tensor&, bool)>();
  dispatched.call(dst, src, false);
}

DimVector broadcast_shapes(std::span<const int64_t> a, std::span<const int64_t> b, const char* op_name) {
  const size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) {
      throw Error(std::string(op_name) + ": shapes " + shape_to_string(a) + " and " + shape_to_string(b) +
                  " cannot be broadcast together (dimension " + std::to_string(i) + ": " + std::to_string(x) + " vs " +
                  std::to_string(y) + ")");
    }
    out[i] = x == 1 ? y : x;
  }
  return out;
}

namespace {
// Which of bool < integer < floating point a dtype belongs to.
int category(ScalarType t) { return t == ScalarType::Bool ? 0 : is_floating_point(t) ? 2 : 1; }

std::optional<ScalarType> promote(std::optional<ScalarType> a, ScalarType b) { return a ? promote_types(*a, b) : b; }
// A lower-priority group only matters when it is of a higher category than the higher group.
std::optional<ScalarType> combine(std::optional<ScalarType> higher, std::optional<ScalarType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (category(*lower) > category(*higher)) return promote_types(*higher, *lower);
  return higher;
}
}  // namespace

ScalarType result_type(std::span<const Tensor* const> tensors) {
  std::optional<ScalarType> dimensioned, zero_dim, wrapped;
  for (const Tensor* t : tensors) {
    if (!t->defined()) continue;
    const ScalarType d = t->dtype();
    if (t->unsafe_impl()->is_wrapped_number()) {
      // A Python float counts as the default float dtype, an int as int64: only its category matters.
      wrapped = promote(wrapped, is_floating_point(d) ? kDefaultFloat : d);
    } else if (t->dim() == 0) {
      zero_dim = promote(zero_dim, d);
    } else {
      dimensioned = promote(dimensioned, d);
    }
  }
  auto r = combine(dimensioned, combine(zero_dim, wrapped));
  return r ? *r : kDefaultFloat;
}

namespace {
// True when every operand has exactly `shape` and walks it contiguously: the loop is then one flat
// run, and the stride sorting and coalescing below would only rediscover that.
bool same_sizes(const DimVector& a, const DimVector& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}
bool all_contiguous_same_shape(std::span<const Tensor* const> operands, const DimVector& shape) {
  for (const Tensor* t : operands)
    if (!t->is_contiguous() || !same_sizes(t->sizes(), shape)) return false;
  return true;
}
}  // namespace

TensorIterator TensorIteratorConfig::build() {
  TensorIterator it;
  const char* name = op_name_;
  // 1. Shape: the inputs broadcast together; defined outputs must already have that shape.
  DimVector shape;
  bool first = true;
  for (const Tensor* in : inputs_) {
    GB_CHECK(in->defined(), name, ": an input tensor is undefined");
    if (first) shape = in->sizes();
    else if (!same_sizes(in->sizes(), shape)) shape = broadcast_shapes(shape, in->sizes(), name);
    first = false;
  }
  // A defined output (copy_'s destination) may be larger than the inputs: they broadcast to it.
  for (const Tensor* out : outputs_) {
    if (!out->defined()) continue;
    if (first) shape = out->sizes();
    else if (!same_sizes(out->sizes(), shape)) shape = broadcast_shapes(shape, out->sizes(), name);
  }
  // 2. Devices agree (Python numbers, and with allow_cpu_scalars() any 0-d CPU tensor, aside).
  std::optional<Device> device;
  for (const Tensor* in : inputs_) {
    if (in->unsafe_impl()->is_wrapped_number()) continue;
    if (cpu_scalars_ && in->dim() == 0 && in->device().type == DeviceType::CPU) continue;
    if (device && !(in->device() == *device)) {
      throw Error(std::string(name) + ": expected all tensors on one device, got " + device->to_string() + " and " +
                  in->device().to_string());
    }
    device = in->device();
  }
  // No device-bound input (fill_, or only Python numbers): the given output's device.
  for (const Tensor* out : outputs_)
    if (!device && out->defined()) device = out->device();
  if (!device) device = Device(DeviceType::CPU);
  // 3. Dtypes: compute in the promoted dtype unless told otherwise.
  ScalarType compute =
      compute_dtype_ ? *compute_dtype_ : result_type(std::span<const Tensor* const>(inputs_.data(), inputs_.size()));
  if (int_to_float_ && !is_floating_point(compute)) compute = kDefaultFloat;
  const ScalarType out_dtype = output_dtype_ ? *output_dtype_ : compute;
  it.compute_dtype_ = compute;

  bool allocated = !outputs_.empty();
  for (Tensor* out : outputs_) {
    if (!out->defined()) {
      *out = empty_tensor(shape, out_dtype, *device);
    } else {
      allocated = false;
      // A written tensor must not alias itself (an expanded one): checked here for the operators'
      // loops; keep_dtypes() loops are the kernels' own plumbing (copy_, fill_, index_put, scatter),
      // whose outputs may be restrided views made on purpose: those kernels check the user's tensor.
      if (!keep_dtypes_) check_no_internal_overlap(name, *out);
      if (!same_sizes(out->sizes(), shape)) {
        throw Error(std::string(name) + ": output of shape " + shape_to_string(out->sizes()) +
                    " does not match the broadcast shape " + shape_to_string(shape) + " of the inputs");
      }
      GB_CHECK(out->device() == *device, name, ": output on ", out->device().to_string(), " but inputs on ",
               device->to_string());
    }
    it.outputs_.push_back(out);
  }
  it.allocated_outputs_ = allocated;
  // The usual case: the shape is the first input's, whose element count is known.
  const int64_t numel =
      !inputs_.empty() && same_sizes(inputs_[0]->sizes(), shape) ? inputs_[0]->numel() : checked_numel(shape, name);
  // Operands in the loop: outputs (or temporaries in the output dtype the loop writes), then inputs
  // converted to the compute dtype where they differ. The caller's tensors are borrowed (it keeps
  // them alive while the loop runs; counting references on every call costs more than a small
  // kernel); the iterator owns the temporaries, in room reserved up front so pointers stay valid.
  detail::SmallVec<const Tensor*, TensorIterator::kInlineOperands> operands;
  it.owned_.reserve(outputs_.size() + inputs_.size());
  for (Tensor* out : outputs_) {
    const ScalarType loop_dtype = output_dtype_ ? out_dtype : compute;
    if (!keep_dtypes_ && out->dtype() != loop_dtype) {
      it.owned_.push_back(empty_tensor(shape, loop_dtype, *device));
      it.writebacks_.emplace_back(out, it.owned_[it.owned_.size() - 1]);
      operands.push_back(&it.owned_[it.owned_.size() - 1]);
      it.operand_refs_.push_back({nullptr, static_cast<int>(it.owned_.size() - 1)});
    } else {
      operands.push_back(out);
      it.operand_refs_.push_back({out, -1});
    }
  }
  for (const Tensor* in : inputs_) {
    if (!keep_dtypes_ && in->dtype() != compute) {
      Tensor converted = empty_tensor(in->sizes(), compute, in->device());
      if (in->device().type != DeviceType::Meta) copy_between(converted, *in);  // meta: no data to copy
      it.owned_.push_back(std::move(converted));
      operands.push_back(&it.owned_[it.owned_.size() - 1]);
      it.operand_refs_.push_back({nullptr, static_cast<int>(it.owned_.size() - 1)});
    } else {
      operands.push_back(in);
      it.operand_refs_.push_back({in, -1});
    }
  }
  for (const Tensor* t : operands) it.ptrs_.push_back(static_cast<char*>(t->data_ptr()));
  it.numel_ = numel;

  // Fast path: same shapes, all contiguous — one flat dimension (none for a single element).
  if (numel > 0 && all_contiguous_same_shape(std::span<const Tensor* const>(operands.data(), operands.size()), shape)) {
    for (const Tensor* t : operands) {
      DimVector& s = it.strides_.emplace_back();
      if (numel > 1) s.push_back(static_cast<int64_t>(element_size(t->dtype())));
    }
    if (numel > 1) it.shape_.push_back(numel);
    return it;
  }

  // 4. Byte strides of each operand on the broadcast shape (0 where broadcast), fastest first.
  const size_t nd = shape.size();
  const size_t nops = operands.size();
  detail::SmallVec<DimVector, TensorIterator::kInlineOperands> strides;
  for (const Tensor* t : operands) {
    DimVector s(nd, 0);
    const size_t off = nd - t->sizes().size();
    const int64_t item = static_cast<int64_t>(element_size(t->dtype()));
    for (size_t d = 0; d < t->sizes().size(); ++d) s[off + d] = t->sizes()[d] == 1 ? 0 : t->strides()[d] * item;
    strides.push_back(std::move(s));
  }
  // 5. Order dimensions by the first operand's strides (smallest first), then merge neighbours
  // that every operand walks as one.
  DimVector order(nd);
  for (size_t i = 0; i < nd; ++i) order[i] = static_cast<int64_t>(nd - 1 - i);  // row-major: last dim fastest
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    for (const DimVector& s : strides) {
      if (s[a] == 0 || s[b] == 0) continue;
      if (s[a] != s[b]) return s[a] < s[b];
    }
    return false;
  });
  DimVector dims;
  for (size_t op = 0; op < nops; ++op) it.strides_.emplace_back();
  for (int64_t d : order) {
    if (shape[d] == 1) continue;
    if (!dims.empty()) {
      const size_t last = dims.size() - 1;
      bool mergeable = true;
      for (size_t op = 0; op < nops; ++op)
        if (strides[op][d] != it.strides_[op][last] * dims[last]) mergeable = false;
      if (mergeable) {
        dims[last] *= shape[d];
        continue;
      }
    }
    dims.push_back(shape[d]);
    for (size_t op = 0; op < nops; ++op) it.strides_[op].push_back(strides[op][d]);
  }
  it.shape_ = std::move(dims);
  return it;
}

void TensorIterator::serial_run(int64_t begin, int64_t end, Loop loop, void* ctx) const {
  const int nops = num_operands();
  const size_t nd = shape_.size();
  // Operand pointers and inner strides on the stack for the usual handful of operands.
  constexpr int kStack = 8;
  char* ptr_stack[kStack];
  int64_t inner_stack[kStack];
  std::vector<char*> ptr_heap;
  std::vector<int64_t> inner_heap;
  char** ptrs = ptr_stack;
  int64_t* inner = inner_stack;
  if (nops > kStack) {
    ptr_heap.resize(nops);
    inner_heap.resize(nops);
    ptrs = ptr_heap.data();
    inner = inner_heap.data();
  }
  for (int op = 0; op < nops; ++op) ptrs[op] = ptrs_[op];
  if (nd == 0) {  // a single element
    for (int op = 0; op < nops; ++op) inner[op] = 0;
    loop(ptrs, inner, 1, ctx);
    return;
  }
  for (int op = 0; op < nops; ++op) inner[op] = strides_[op][0];
  if (nd == 1) {  // one flat run
    for (int op = 0; op < nops; ++op) ptrs[op] += begin * inner[op];
    loop(ptrs, inner, end - begin, ctx);
    return;
  }
  DimVector index(nd, 0);
  int64_t rest = begin;
  for (size_t d = 0; d < nd; ++d) {
    index[d] = rest % shape_[d];
    rest /= shape_[d];
    for (int op = 0; op < nops; ++op) ptrs[op] += index[d] * strides_[op][d];
  }
  int64_t pos = begin;
  while (pos < end) {
    const int64_t n = std::min(shape_[0] - index[0], end - pos);
    loop(ptrs, inner, n, ctx);
    pos += n;
    // Step to the start of the next inner run, carrying into outer dimensions.
    for (int op = 0; op < nops; ++op) ptrs[op] += n * strides_[op][0];
    index[0] += n;
    for (size_t d = 0; d + 1 < nd && index[d] == shape_[d]; ++d) {
      for (int op = 0; op < nops; ++op) ptrs[op] += strides_[op][d + 1] - shape_[d] * strides_[op][d];
      index[d] = 0;
      ++index[d + 1];
    }
  }
}

void TensorIterator::run(int64_t grain, Loop loop, void* ctx) const {
  if (numel_ == 0) return;
  // Below the grain (or on one thread) call the loop here, before any type erasure.
  if (numel_ <= std::max<int64_t>(grain, 1) || in_parallel_region() || get_num_threads() == 1) {
    serial_run(0, numel_, loop, ctx);
    return;
  }
  parallel_for(0, numel_, grain, [&](int64_t lo, int64_t hi) { serial_run(lo, hi, loop, ctx); });
}

void TensorIterator::finish() {
  for (auto& [out, tmp] : writebacks_) copy_between(*out, tmp);
  writebacks_.clear();
}

}  // namespace glassbox
