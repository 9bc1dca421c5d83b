// Front ends of arange, linspace and eye, and the inference they share with their kernels: the
// length and dtype are decided here, then a fresh tensor is filled by the out= overload.
#include "engine/ops/factories.h"
#include "engine/core/empty.h"

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "engine/ops/factory_options.h"
#include "engine/ops/kernels/range.h"
#include "engine/ops/out_arguments.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/arange.h"
#include "glassbox/ops/native/empty_strided.h"
#include "glassbox/ops/native/eye.h"
#include "glassbox/ops/native/linspace.h"

namespace glassbox {

std::string scalar_to_string(const Scalar& s) {
  if (s.is_bool()) return s.to_bool() ? "True" : "False";
  if (s.is_integral()) return std::to_string(s.to_int());
  return detail::str_cat(s.to_double());
}

void check_empty_strided(std::span<const int64_t> size, std::span<const int64_t> stride) {
  if (size.size() != stride.size()) {
    throw Error(detail::str_cat("empty_strided: size ", shape_to_string(size), " and stride ", shape_to_string(stride),
                                " must have the same length"));
  }
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] < 0) throw Error(detail::str_cat("empty_strided: negative size in ", shape_to_string(size)));
    if (stride[i] < 0) {
      throw Error(detail::str_cat("empty_strided: negative strides are not supported, got ", shape_to_string(stride)));
    }
  }
}

int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step) {
  const auto range = [&] {
    return detail::str_cat("(start=", scalar_to_string(start), ", end=", scalar_to_string(end),
                           ", step=", scalar_to_string(step), ")");
  };
  if (step.to_double() == 0.0) throw Error("arange: step must be nonzero " + range());
  const bool integral = !start.is_floating_point() && !end.is_floating_point() && !step.is_floating_point();
  if (integral) {
    // 128-bit arithmetic: end - start may not fit in int64 (arange(INT64_MIN, INT64_MAX)).
    const __int128 s = start.to_int(), e = end.to_int(), st = step.to_int();
    if ((st > 0 && e < s) || (st < 0 && e > s)) {
      throw Error("arange: the sign of step leads away from end " + range());
    }
    const __int128 n = st > 0 ? (e - s + st - 1) / st : (e - s + st + 1) / st;
    if (n > INT64_MAX) throw Error("arange: the result would have more elements than int64 can count " + range());
    return static_cast<int64_t>(n);
  }
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  if (!std::isfinite(s) || !std::isfinite(e) || !std::isfinite(st)) {
    throw Error("arange: start, end and step must be finite " + range());
  }
  if ((st > 0 && e < s) || (st < 0 && e > s)) {
    throw Error("arange: the sign of step leads away from end " + range());
  }
  const double n = std::ceil((e - s) / st);
  if (!(n < 9.2e18)) throw Error("arange: the result would have more elements than int64 can count " + range());
  return static_cast<int64_t>(n);
}

ScalarType arange_dtype(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  const bool floating = start.is_floating_point() || end.is_floating_point() || step.is_floating_point();
  return floating ? kDefaultFloat : ScalarType::Int64;
}

void check_linspace_steps(int64_t steps) {
  if (steps < 0) throw Error(detail::str_cat("linspace: number of steps must be non-negative, got ", steps));
}

void check_eye_sizes(int64_t n, int64_t m) {
  if (n < 0) throw Error(detail::str_cat("eye: n must be greater or equal to 0, got ", n));
  if (m < 0) throw Error(detail::str_cat("eye: m must be greater or equal to 0, got ", m));
}

void check_out_shape(const char* op, const Tensor& out, std::span<const int64_t> expected) {
  resize_output(op, out, expected);
  check_no_internal_overlap(op, out);
}

namespace {
void reject_bool(const char* op, const Tensor& out) {
  if (out.dtype() == ScalarType::Bool) {
    throw Error(
        detail::str_cat(op, ": the bool dtype is not supported (out has shape ", shape_to_string(out.sizes()), ")"));
  }
}
}  // namespace

ArangeOut check_arange_out(const Scalar& start, const Scalar& end, const Scalar& step, const Tensor& out) {
  const int64_t length[] = {arange_length(start, end, step)};
  check_out_shape("arange.out", out, length);
  reject_bool("arange.out", out);
  return {length[0], !start.is_floating_point() && !end.is_floating_point() && !step.is_floating_point()};
}

LinspaceOut check_linspace_out(const Scalar& start, const Scalar& end, int64_t steps, const Tensor& out) {
  check_linspace_steps(steps);
  const int64_t length[] = {steps};
  check_out_shape("linspace.out", out, length);
  reject_bool("linspace.out", out);
  const double s = start.to_double(), e = end.to_double();
  return {s, e, steps > 1 ? (e - s) / static_cast<double>(steps - 1) : 0.0};
}

void check_eye_out(int64_t n, int64_t m, const Tensor& out) {
  check_eye_sizes(n, m);
  const int64_t shape[] = {n, m};
  check_out_shape("eye.out", out, shape);
}

namespace native {

Tensor arange(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return glassbox::arange_start_step(Scalar(int64_t{0}), end, Scalar(int64_t{1}), dtype, device);
}
Tensor arange(const Scalar& start, const Scalar& end, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return glassbox::arange_start_step(start, end, Scalar(int64_t{1}), dtype, device);
}
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype,
              std::optional<Device> device) {
  const int64_t length[] = {arange_length(start, end, step)};
  Tensor out = glassbox::empty(length, arange_dtype(start, end, step, dtype), device);
  return glassbox::arange_out(out, start, end, step);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType> dtype,
                std::optional<Device> device) {
  check_linspace_steps(steps);
  // Like torch.linspace: the default float dtype even for integer bounds.
  const int64_t length[] = {steps};
  Tensor out = glassbox::empty(length, dtype_or_default(dtype), device);
  return glassbox::linspace_out(out, start, end, steps);
}

Tensor eye(int64_t n, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return glassbox::eye(n, n, dtype, device);
}
Tensor eye(int64_t n, int64_t m, std::optional<ScalarType> dtype, std::optional<Device> device) {
  check_eye_sizes(n, m);
  const int64_t shape[] = {n, m};
  Tensor out = glassbox::empty(shape, dtype_or_default(dtype), device);
  return glassbox::eye_out(out, n, m);
}

// ---- Meta kernels: the checks above with no compute (a meta tensor has no values to write).
Tensor empty_strided_meta(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                          std::optional<Device>) {
  check_empty_strided(size, stride);
  return empty_strided_tensor(size, stride, dtype_or_default(dtype), Device(DeviceType::Meta));
}

// ---- The fills of arange.out, linspace.out and eye.out: one kernel each for CPU, CUDA and Meta,
// the checks above and then the device's RangeBackend (engine/ops/kernels/range.h); Meta has none.
namespace {
using kernels::Ramp;

// out (1-d, or the diagonal: n elements stride_bytes apart) gets the ramp's values.
Tensor& fill_ramp(Tensor& out, int64_t n, int64_t stride_bytes, const Ramp& ramp) {
  const kernels::RangeBackend* backend = kernels::RangeBackends::of(out.device());
  if (!backend || n == 0) return out;
  backend->fill(out, n, stride_bytes, ramp);
  if (out.unsafe_impl()->storage()) out.unsafe_impl()->storage()->bump_version();
  return out;
}
int64_t stride_bytes_1d(const Tensor& out) {
  return out.dim() == 1 ? out.strides()[0] * static_cast<int64_t>(element_size(out.dtype())) : 0;
}
}  // namespace

Tensor& arange_out_generic(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  const ArangeOut a = check_arange_out(start, end, step, out);
  // Integer bounds count exactly in int64 into an integer out, in double into a floating-point one.
  const Ramp r{.kind = a.integral ? Ramp::Integers : Ramp::Floats,
               .first = a.integral ? start.to_int() : 0,
               .step = a.integral ? step.to_int() : 0,
               .start = start.to_double(),
               .fstep = step.to_double()};
  return fill_ramp(out, a.length, stride_bytes_1d(out), r);
}

Tensor& linspace_out_generic(const Scalar& start, const Scalar& end, int64_t steps, Tensor& out) {
  const LinspaceOut l = check_linspace_out(start, end, steps, out);
  return fill_ramp(out, steps, stride_bytes_1d(out),
                   {.kind = Ramp::Linspace, .start = l.start, .end = l.end, .fstep = l.step, .steps = steps});
}

// One along the diagonal of zeros: element i at i * (stride0 + stride1).
Tensor& eye_out_generic(int64_t n, int64_t m, Tensor& out) {
  check_eye_out(n, m, out);
  glassbox::fill_(out, Scalar(int64_t{0}));
  const int64_t diagonal = (out.strides()[0] + out.strides()[1]) * static_cast<int64_t>(element_size(out.dtype()));
  return fill_ramp(out, std::min(n, m), diagonal, {.kind = Ramp::Ones});
}

}  // namespace native
}  // namespace glassbox
