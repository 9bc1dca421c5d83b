#include "engine/ops/out_arguments.h"

#include <algorithm>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/core/warning.h"

namespace glassbox {

bool has_internal_overlap(const Tensor& t) {
  if (t.numel() == 0) return false;  // nothing is written
  const auto& sizes = t.sizes();
  const auto& strides = t.strides();
  for (size_t d = 0; d < sizes.size(); ++d)
    if (strides[d] == 0 && sizes[d] > 1) return true;
  return false;
}

void check_no_internal_overlap(const char* op, const Tensor& t) {
  if (has_internal_overlap(t)) {
    throw Error(std::string(op) + ": unsupported operation: more than one element of the written-to tensor (" +
                std::string(to_string(t.dtype())) + " of shape " + shape_to_string(t.sizes()) + ", strides " +
                shape_to_string(t.strides()) + ") refers to a single memory location; clone() it before writing");
  }
}

bool resize_output(const char* op, const Tensor& out, std::span<const int64_t> shape) {
  const auto& s = out.sizes();
  if (std::equal(s.begin(), s.end(), shape.begin(), shape.end())) return false;
  if (out.numel() != 0) {
    warn(std::string(op) + ": out= had shape " + shape_to_string(s) + " and holds elements; it was resized to " +
         shape_to_string(shape) +
         ", the result's shape. Pass an empty tensor (or one of the right shape) to "
         "avoid this warning.");
  }
  const int64_t numel = checked_numel(shape, op);
  TensorImpl* impl = out.unsafe_impl();
  const DimVector strides = contiguous_strides(shape);
  if (impl->has_storage()) {
    const int64_t capacity =
        static_cast<int64_t>(impl->storage()->nbytes() / impl->itemsize()) - impl->storage_offset();
    if (numel > capacity) {
      // A larger storage for this tensor alone (other views keep the old one). TensorImpl has no storage
      // setter: its storage() reference is the member itself, not a const object, so it may be assigned.
      const Tensor fresh = empty_tensor(shape, out.dtype(), out.device());
      const_cast<Storage&>(impl->storage()) = fresh.unsafe_impl()->storage();
      impl->set_geometry(shape, strides, 0);
      return true;
    }
  }
  impl->set_geometry(shape, strides, impl->storage_offset());
  return true;
}

void check_out(const char* op, const Tensor& out, std::span<const int64_t> shape, ScalarType dtype, Device device) {
  if (!out.defined()) throw Error(std::string(op) + ": out is an undefined tensor");
  if (out.dtype() != dtype)
    throw Error(std::string(op) + ": out has dtype " + std::string(to_string(out.dtype())) +
                " but the result has dtype " + std::string(to_string(dtype)));
  if (!(out.device() == device))
    throw Error(std::string(op) + ": out is on " + out.device().to_string() + " but the input is on " +
                device.to_string());
  // Resized first (as PyTorch's reductions, matmul and factories do): a resized out is contiguous.
  resize_output(op, out, shape);
  check_no_internal_overlap(op, out);
}

}  // namespace glassbox
