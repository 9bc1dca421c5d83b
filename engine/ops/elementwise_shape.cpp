#include "engine/ops/elementwise_shape.h"

#include "engine/core/error.h"
#include "engine/ops/tensor_iterator.h"

namespace glassbox {

ElementwiseResult binary_result(const char* op_name, const Tensor& self, const Tensor& other, bool int_to_float) {
  GB_CHECK(self.defined() && other.defined(), op_name, ": an argument is an undefined tensor");
  // A Python number or any 0-d CPU tensor joins a tensor on another device (as TensorIterator's
  // allow_cpu_scalars() lets the kernels do).
  auto host_scalar = [](const Tensor& t) {
    return t.unsafe_impl()->is_wrapped_number() || (t.dim() == 0 && t.device().type == DeviceType::CPU);
  };
  const bool self_scalar = host_scalar(self), other_scalar = host_scalar(other);
  if (!self_scalar && !other_scalar && !(self.device() == other.device())) {
    throw Error(std::string(op_name) + ": expected both tensors on one device, got " + self.device().to_string() +
                     " and " + other.device().to_string());
  }
  const Tensor* both[] = {&self, &other};
  ScalarType dtype = result_type(both);
  if (int_to_float && !is_floating_point(dtype)) dtype = kDefaultFloat;
  return {broadcast_shapes(self.sizes(), other.sizes(), op_name), dtype, self_scalar ? other.device() : self.device()};
}

void check_not_bool(const char* op_name, const Tensor& t, const char* hint) {
  if (t.dtype() == ScalarType::Bool && !t.unsafe_impl()->is_wrapped_number())
    throw NotImplementedError(std::string(op_name) + ": not supported for bool tensors; " + hint);
}

}  // namespace glassbox
