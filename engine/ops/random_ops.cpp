// Front ends of the random factories (rand, randn, randint) and dropout: an empty tensor filled
// in place by uniform_, normal_, random_ or bernoulli_, whose kernels each backend provides.
#include "engine/ops/random_ops.h"
#include "engine/core/empty.h"

#include <cmath>
#include <limits>

#include "engine/core/error.h"
#include "engine/core/generator.h"
#include "engine/ops/kernels/random.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/bernoulli.h"
#include "glassbox/ops/native/dropout.h"
#include "glassbox/ops/native/normal.h"
#include "glassbox/ops/native/rand.h"
#include "glassbox/ops/native/randint.h"
#include "glassbox/ops/native/randn.h"
#include "glassbox/ops/native/random.h"
#include "glassbox/ops/native/uniform.h"

namespace glassbox {

void check_floating_dtype(const char* op, ScalarType dtype) {
  if (!is_floating_point(dtype)) {
    throw NotImplementedError(detail::str_cat(op, ": expected a floating-point dtype, but got ", to_string(dtype)));
  }
}

void check_uniform_range(const char* op, double from, double to) {
  if (!std::isfinite(from) || !std::isfinite(to)) {
    throw Error(detail::str_cat(op, ": from and to must be finite, got from=", from, " and to=", to));
  }
  if (from > to) throw Error(detail::str_cat(op, ": expects from <= to, but got from=", from, " > to=", to));
}

void check_normal_std(const char* op, double std) {
  if (!(std >= 0.0) || !std::isfinite(std)) {
    throw Error(detail::str_cat(op, ": expects a finite std >= 0, but got std=", std));
  }
}

void check_probability(const char* op, double p) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw Error(detail::str_cat(op, ": the probability must be in [0, 1], but got p=", p));
  }
}

void check_random_range(const char* op, ScalarType dtype, int64_t from, int64_t to) {
  if (from >= to) {
    throw Error(detail::str_cat(op, ": expects from < to (an empty range cannot be sampled), but got from=", from,
                                " and to=", to));
  }
  // The smallest and largest value dtype holds exactly (floats: every integer up to 2^digits).
  int64_t lo = 0, hi = 0;
  visit_scalar_type(dtype, [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>) {
      hi = 1;
    } else if constexpr (std::is_integral_v<T>) {
      lo = std::numeric_limits<T>::min();
      hi = std::numeric_limits<T>::max();
    } else {
      const int digits = dtype == ScalarType::Float16    ? 11
                         : dtype == ScalarType::BFloat16 ? 8
                         : dtype == ScalarType::Float32  ? 24
                                                         : 53;
      hi = int64_t{1} << digits;
      lo = -hi;
    }
  });
  if (from < lo || to - 1 > hi) {
    throw Error(detail::str_cat(op, ": the range [", from, ", ", to, ") does not fit in ", to_string(dtype),
                                " (its values must lie in [", lo, ", ", hi, "])"));
  }
}

namespace native {

Tensor rand(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor out = glassbox::empty(size, dtype, device);
  check_floating_dtype("rand", out.dtype());
  return glassbox::uniform_(out, 0.0, 1.0);
}

Tensor randn(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor out = glassbox::empty(size, dtype, device);
  check_floating_dtype("randn", out.dtype());
  return glassbox::normal_(out, 0.0, 1.0);
}

Tensor randint(int64_t high, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return glassbox::randint(0, high, size, dtype, device);
}

Tensor randint(int64_t low, int64_t high, IntArrayRef size, std::optional<ScalarType> dtype,
               std::optional<Device> device) {
  const ScalarType type = dtype.value_or(ScalarType::Int64);
  check_random_range("randint", type, low, high);
  Tensor out = glassbox::empty(size, type, device);
  return glassbox::random_(out, low, high);
}

Tensor dropout(const Tensor& input, double p, bool train) {
  check_probability("dropout", p);
  if (!is_floating_point(input.dtype())) {
    throw Error(detail::str_cat("dropout: expected a floating-point input, but got ", to_string(input.dtype()),
                                " of shape ", shape_to_string(input.sizes())));
  }
  if (!train || p == 0.0) return input;
  // Keep each element with probability 1 - p and scale the kept ones by 1 / (1 - p), so the
  // expected value is unchanged; p = 1 keeps nothing (and must not divide by zero).
  Tensor mask = glassbox::empty(input.sizes(), input.dtype(), input.device());
  glassbox::bernoulli_(mask, 1.0 - p);
  if (p < 1.0) mask = glassbox::mul(mask, Scalar(1.0 / (1.0 - p)));
  return glassbox::mul(input, mask);
}

// ---- The random fills: one kernel each for CPU, CUDA and Meta. Each checks its arguments, then
// hands the call to the device's RandomBackend (engine/ops/kernels/random.h); Meta has none and
// draws nothing (nor advances the generator).
namespace {
using kernels::RandomFill;

// Fills self through a contiguous temporary when it is not contiguous.
Tensor& fill_random(Tensor& self, const RandomFill& fill) {
  const kernels::RandomBackend* backend = kernels::RandomBackends::of(self.device());
  if (!backend) return self;
  const PhiloxState state = default_generator().next_call();
  Tensor target = self.is_contiguous() ? self : empty_tensor(self.sizes(), self.dtype(), self.device());
  if (target.numel() > 0) backend->fill(target, fill, state);
  if (!target.is_same(self)) glassbox::copy_(self, target, false);
  else if (self.unsafe_impl()->storage()) self.unsafe_impl()->storage()->bump_version();
  return self;
}
}  // namespace

Tensor& uniform_generic_(Tensor& self, double from, double to) {
  check_floating_dtype("uniform_", self.dtype());
  check_uniform_range("uniform_", from, to);
  const ScalarType t = self.dtype();
  return fill_random(self, {.kind = RandomFill::Uniform,
                            .a = from,
                            .b = to,
                            .bits = t == ScalarType::Float16    ? 11
                                    : t == ScalarType::BFloat16 ? 8
                                                                : 24});
}

Tensor& normal_generic_(Tensor& self, double mean, double std) {
  check_floating_dtype("normal_", self.dtype());
  check_normal_std("normal_", std);
  return fill_random(self, {.kind = RandomFill::Normal, .a = mean, .b = std});
}

Tensor& bernoulli_float_generic_(Tensor& self, double p) {
  check_probability("bernoulli_", p);
  return fill_random(self, {.kind = RandomFill::Bernoulli, .a = p});
}

Tensor bernoulli_generic(const Tensor& self) {
  check_floating_dtype("bernoulli", self.dtype());
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  const kernels::RandomBackend* backend = kernels::RandomBackends::of(self.device());
  if (!backend) return out;
  // The probabilities as contiguous float64, checked before anything is drawn.
  Tensor probs = empty_tensor(self.sizes(), ScalarType::Float64, self.device());
  glassbox::copy_(probs, self, false);
  if (const std::optional<int64_t> i = backend->first_bad_probability(probs)) {
    const int64_t flat[] = {-1};
    const double value = glassbox::reshape(probs, flat).to(Device(DeviceType::CPU)).data<double>()[*i];
    throw Error(detail::str_cat("bernoulli: every probability must be in [0, 1], but element ", *i,
                                " of the input (shape ", shape_to_string(self.sizes()), ", ", to_string(self.dtype()),
                                ") is ", value));
  }
  const PhiloxState state = default_generator().next_call();
  if (out.numel() > 0) backend->fill(out, {.kind = RandomFill::BernoulliTensor, .probs = probs.data<double>()}, state);
  return out;
}

Tensor& random_from_generic_(Tensor& self, int64_t from, int64_t to) {
  check_random_range("random_", self.dtype(), from, to);
  return fill_random(
      self,
      {.kind = RandomFill::Integers, .from = from, .range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from)});
}

}  // namespace native
}  // namespace glassbox
