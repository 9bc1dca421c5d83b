// Operators written once in terms of others (CompositeImplicitAutograd): they work on every
// backend, and autograd differentiates what they call.
#include "engine/core/empty.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/add.h"
#include "glassbox/ops/native/clone.h"
#include "glassbox/ops/native/div.h"
#include "glassbox/ops/native/full.h"
#include "glassbox/ops/native/mul.h"
#include "glassbox/ops/native/ones.h"
#include "glassbox/ops/native/sub.h"
#include "glassbox/ops/native/to.h"
#include "glassbox/ops/native/zero.h"
#include "glassbox/ops/native/zeros.h"

namespace glassbox::native {

Tensor zeros(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor t = glassbox::empty(size, dtype, device);
  return glassbox::fill_(t, Scalar(int64_t{0}));
}
Tensor& zero_(Tensor& self) { return glassbox::fill_(self, Scalar(int64_t{0})); }
Tensor ones(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor t = glassbox::empty(size, dtype, device);
  return glassbox::fill_(t, Scalar(int64_t{1}));
}
Tensor full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype, std::optional<Device> device) {
  // Like torch.full: the dtype follows the fill value when none is given.
  const ScalarType inferred = fill_value.is_bool()       ? ScalarType::Bool
                              : fill_value.is_integral() ? ScalarType::Int64
                                                         : kDefaultFloat;
  Tensor t = glassbox::empty(size, dtype.value_or(inferred), device);
  return glassbox::fill_(t, fill_value);
}

Tensor to(const Tensor& self, ScalarType dtype, bool copy) {
  if (self.dtype() == dtype && !copy) return self;
  Tensor out = glassbox::empty(self.sizes(), dtype, self.device());
  return glassbox::copy_(out, self);
}
Tensor clone(const Tensor& self) {
  Tensor out = glassbox::empty(self.sizes(), self.dtype(), self.device());
  return glassbox::copy_(out, self);
}

// A Python/C++ number becomes a 0-d "wrapped number" tensor: it promotes as a weak type.
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return glassbox::add(self, wrap_scalar(other), alpha);
}
Tensor mul(const Tensor& self, const Scalar& other) { return glassbox::mul(self, wrap_scalar(other)); }
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return glassbox::sub(self, wrap_scalar(other), alpha);
}
Tensor div(const Tensor& self, const Scalar& other) { return glassbox::div(self, wrap_scalar(other)); }
Tensor div(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  return glassbox::div(self, wrap_scalar(other), rounding_mode);
}
Tensor& add_(Tensor& self, const Scalar& other, const Scalar& alpha) { return self.add_(wrap_scalar(other), alpha); }
Tensor& sub_(Tensor& self, const Scalar& other, const Scalar& alpha) { return self.sub_(wrap_scalar(other), alpha); }
Tensor& mul_(Tensor& self, const Scalar& other) { return self.mul_(wrap_scalar(other)); }
Tensor& div_(Tensor& self, const Scalar& other) { return self.div_(wrap_scalar(other)); }
Tensor& div_(Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  return self.div_(wrap_scalar(other), rounding_mode);
}

}  // namespace glassbox::native
