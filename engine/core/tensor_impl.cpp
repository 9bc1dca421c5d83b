#include "engine/core/tensor_impl.h"

#include "engine/core/error.h"

namespace glassbox {

std::string shape_to_string(std::span<const int64_t> sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

DimVector contiguous_strides(std::span<const int64_t> sizes) {
  DimVector strides(sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

int64_t checked_numel(std::span<const int64_t> sizes, const char* what) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (s < 0) throw Error(std::string(what) + ": negative size in shape " + shape_to_string(sizes));
    if (__builtin_mul_overflow(n, s, &n))
      throw Error(std::string(what) + ": shape " + shape_to_string(sizes) + " has more elements than int64 can count");
  }
  return n;
}

TensorImpl::TensorImpl(Storage storage, DispatchKeySet keys, ScalarType dtype, Device device,
                       std::span<const int64_t> sizes)
    : storage_(std::move(storage)), key_set_(keys), dtype_(dtype), device_(device) {
  set_contiguous_sizes(sizes);
}

TensorImpl::TensorImpl(DispatchKeySet keys, ScalarType dtype, Device device, std::vector<int64_t> sizes)
    : key_set_(keys), dtype_(dtype), device_(device) {
  set_contiguous_sizes(sizes);
}

TensorImpl::~TensorImpl() = default;

void TensorImpl::set_contiguous_sizes(std::span<const int64_t> sizes) {
  // One pass for the element count, the sizes and the row-major strides (as contiguous_strides
  // computes them): contiguous by construction. Every tensor is made here, so the copies are
  // plain loops rather than library calls, and checked_numel only words the error.
  const size_t nd = sizes.size();
  sizes_.resize(0);
  strides_.resize(nd, 1);
  int64_t numel = 1, stride = 1;
  bool valid = true;
  for (size_t i = nd; i-- > 0;) {
    const int64_t s = sizes[i];
    valid &= s >= 0 && !__builtin_mul_overflow(numel, s, &numel);
    strides_[i] = stride;
    stride *= std::max<int64_t>(s, 1);
  }
  if (!valid) numel = checked_numel(sizes, "tensor");  // throws
  for (size_t i = 0; i < nd; ++i) sizes_.push_back(sizes[i]);
  numel_ = numel;
  storage_offset_ = 0;
  is_contiguous_ = true;
}

void TensorImpl::set_geometry(std::span<const int64_t> sizes, std::span<const int64_t> strides,
                              int64_t storage_offset) {
  GB_CHECK(sizes.size() == strides.size(), "set_geometry: ", sizes.size(), " sizes but ", strides.size(), " strides");
  GB_CHECK(storage_offset >= 0, "set_geometry: negative storage offset ", storage_offset);
  sizes_.assign(sizes);
  strides_.assign(strides);
  storage_offset_ = storage_offset;
  refresh();
  if (storage_ && numel_ > 0) {
    // The furthest element reached must lie inside the storage.
    // Overflow past int64 (strides of 2^62, say) is out of any storage too, not a wrapped small offset.
    int64_t last = storage_offset, reach = 0;
    bool overflow = false;
    for (size_t i = 0; i < sizes.size(); ++i) {
      GB_CHECK(strides[i] >= 0, "set_geometry: negative stride ", strides[i], " is not supported");
      overflow |=
          __builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) || __builtin_add_overflow(last, reach, &last);
    }
    const int64_t capacity = static_cast<int64_t>(storage_->nbytes() / itemsize());
    if (overflow) {
      throw Error("view of shape " + shape_to_string(sizes) + " with strides " + shape_to_string(strides) +
                  " and offset " + std::to_string(storage_offset) + " reaches past the largest int64 offset" +
                  " (a storage of " + std::to_string(capacity) + " elements)");
    }
    if (last >= capacity) {
      throw Error("view of shape " + shape_to_string(sizes) + " with strides " + shape_to_string(strides) +
                  " and offset " + std::to_string(storage_offset) + " reaches element " + std::to_string(last) +
                  " of a storage of " + std::to_string(capacity) + " elements");
    }
  }
}

void TensorImpl::refresh() {
  numel_ = checked_numel(sizes_.span(), "tensor");
  is_contiguous_ = true;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      is_contiguous_ = numel_ == 0;
      break;
    }
    expected *= sizes_[i];
  }
}

DispatchKeySet default_key_set(DeviceType device) {
  const DispatchKey backend = backend_key(device);
  const DispatchKey autograd = autograd_key_of_backend(backend);
  return DispatchKeySet(backend) | DispatchKeySet(autograd);
}

}  // namespace glassbox
