#include "engine/ops/pointwise_iterator.h"

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/ops/copy.h"
#include "engine/ops/fill_value.h"
#include "engine/ops/out_arguments.h"

namespace glassbox {

std::string describe(const Tensor& t) {
  return std::string(to_string(t.dtype())) + " of shape " + shape_to_string(t.sizes());
}

namespace {
[[noreturn]] void refuse_bool(const char* op, const Tensor& t) {
  throw NotImplementedError(std::string(op) + ": not supported for bool tensors (got " + describe(t) + ")");
}

// `t` in `dtype`. On the meta device only the shape matters, so a data-less stand-in replaces
// the conversion (which has no meta kernel to run). A wrapped number stays one.
Tensor converted(const Tensor& t, ScalarType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor c = empty_tensor(t.sizes(), dtype, t.device());
  if (t.device().type != DeviceType::Meta) copy_between(c, t);
  c.unsafe_impl()->set_wrapped_number(t.unsafe_impl()->is_wrapped_number());
  return c;
}
}  // namespace

PointwiseDtypes unary_dtypes(const char* op, UnaryKind kind, const Tensor& self) {
  GB_CHECK(self.defined(), op, ": the input is an undefined tensor");
  const ScalarType t = self.dtype();
  switch (kind) {
    case UnaryKind::Keep:
      if (t == ScalarType::Bool) refuse_bool(op, self);
      return {t, t};
    case UnaryKind::KeepWithBool: return {t, t};
    case UnaryKind::IntToFloat: {
      const ScalarType f = is_floating_point(t) ? t : kDefaultFloat;
      return {f, f};
    }
    case UnaryKind::FloatOnly:
      if (!is_floating_point(t))
        throw NotImplementedError(std::string(op) + ": expected a floating-point tensor, got " + describe(self));
      return {t, t};
    case UnaryKind::Logical: return {t, ScalarType::Bool};
  }
  return {t, t};
}

PointwiseDtypes binary_dtypes(const char* op, BinaryKind kind, const Tensor& self, const Tensor& other) {
  GB_CHECK(self.defined() && other.defined(), op, ": an argument is an undefined tensor");
  const Tensor* both[] = {&self, &other};
  const ScalarType t = result_type(both);
  switch (kind) {
    case BinaryKind::Promote: return {t, t};
    case BinaryKind::Numeric:
      if (t == ScalarType::Bool) {
        throw NotImplementedError(std::string(op) + ": not supported for bool tensors (got " + describe(self) +
                                  " and " + describe(other) + ")");
      }
      return {t, t};
    case BinaryKind::IntToFloat: {
      const ScalarType f = is_floating_point(t) ? t : kDefaultFloat;
      return {f, f};
    }
    case BinaryKind::Compare: return {t, ScalarType::Bool};
    case BinaryKind::FloatOnly:
      if (!is_floating_point(t)) {
        throw NotImplementedError(std::string(op) + ": expected floating-point tensors, got " + describe(self) +
                                  " and " + describe(other));
      }
      return {t, t};
  }
  return {t, t};
}

void check_can_cast(const char* op, ScalarType result, const Tensor& out) {
  const ScalarType o = out.dtype();
  const bool float_to_int = is_floating_point(result) && !is_floating_point(o);
  const bool to_bool = result != ScalarType::Bool && o == ScalarType::Bool;
  if (float_to_int || to_bool) {
    throw Error(std::string(op) + ": result type " + std::string(to_string(result)) +
                " can't be cast to the desired output type " + std::string(to_string(o)) + " (output " + describe(out) +
                ")");
  }
}

namespace {
// An out= tensor (not one of the inputs: that is an in-place call, whose shape is fixed) takes the
// inputs' broadcast shape, as PyTorch resizes it.
void resize_out_to_inputs(const char* op, const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  DimVector shape;
  bool first = true;
  for (const Tensor* in : inputs) {
    if (!in->defined()) continue;
    if (in->unsafe_impl() == out.unsafe_impl()) return;
    shape = first ? in->sizes() : broadcast_shapes(shape, in->sizes(), op);
    first = false;
  }
  if (first) return;  // no input (nothing to take a shape from)
  check_no_internal_overlap(op, out);
  resize_output(op, out, shape);
}
}  // namespace

TensorIterator pointwise_iterator(const char* op, PointwiseDtypes dtypes, Tensor& out,
                                  std::initializer_list<const Tensor*> inputs) {
  if (out.defined()) {
    check_can_cast(op, dtypes.result, out);
    resize_out_to_inputs(op, out, inputs);
  }
  TensorIteratorConfig config(op);
  config.add_output(&out).compute_dtype(dtypes.compute).output_dtype(dtypes.result).allow_cpu_scalars();
  // The iterator converts inputs of another dtype itself (meta ones without copying). Inputs are
  // borrowed, so nothing made here may be added: it would be gone when the loop runs.
  for (const Tensor* in : inputs) {
    GB_CHECK(in->defined(), op, ": an input tensor is undefined");
    config.add_input(*in);
  }
  return config.build();
}

TensorIterator clamp_iterator(const char* op, const Tensor& self, const std::optional<Tensor>& min,
                              const std::optional<Tensor>& max, Tensor& out) {
  GB_CHECK(self.defined(), op, ": the input is an undefined tensor");
  const Tensor* lo = min && min->defined() ? &*min : nullptr;
  const Tensor* hi = max && max->defined() ? &*max : nullptr;
  if (!lo && !hi) throw Error(std::string(op) + ": at least one of 'min' or 'max' must not be None");
  const Tensor* all[] = {&self, lo ? lo : hi, hi ? hi : lo};
  const ScalarType t = result_type(all);
  if (t == ScalarType::Bool) refuse_bool(op, self);
  if (lo && hi) return pointwise_iterator(op, {t, t}, out, {&self, lo, hi});
  return pointwise_iterator(op, {t, t}, out, {&self, lo ? lo : hi});
}

WhereIterator where_iterator(const char* op, const Tensor& condition, const Tensor& self, const Tensor& other,
                             Tensor& out) {
  GB_CHECK(condition.defined() && self.defined() && other.defined(), op, ": an argument is an undefined tensor");
  if (condition.dtype() != ScalarType::Bool)
    throw Error(std::string(op) + ": expected condition to be a bool tensor, got " + describe(condition));
  const Tensor* values[] = {&self, &other};
  const ScalarType t = result_type(values);
  WhereIterator w;
  if (out.defined()) {
    check_can_cast(op, t, out);
    resize_out_to_inputs(op, out, {&condition, &self, &other});
    if (out.dtype() == t) w.result = out;
    else {
      // The loop writes a temporary of the result dtype; it must still have out's shape.
      const DimVector shape =
          broadcast_shapes(broadcast_shapes(condition.sizes(), self.sizes(), op), other.sizes(), op);
      if (shape != out.sizes()) {
        throw Error(std::string(op) + ": output of shape " + shape_to_string(out.sizes()) +
                    " does not match the broadcast shape " + shape_to_string(shape) + " of the inputs");
      }
    }
  }
  w.self = converted(self, t);
  w.other = converted(other, t);
  w.it = TensorIteratorConfig(op)
             .add_output(&w.result)
             .add_input(condition)
             .add_input(w.self)
             .add_input(w.other)
             .output_dtype(t)
             .keep_dtypes()
             .allow_cpu_scalars()
             .build();
  return w;
}

RoundingMode parse_rounding_mode(const char* op, std::optional<std::string_view> mode) {
  if (!mode) return RoundingMode::None;
  if (*mode == "trunc") return RoundingMode::Trunc;
  if (*mode == "floor") return RoundingMode::Floor;
  throw Error(std::string(op) + ": rounding_mode must be None, 'trunc' or 'floor', got '" + std::string(*mode) + "'");
}

TensorIterator div_mode_iterator(const char* op, RoundingMode mode, const Tensor& self, const Tensor& other,
                                 Tensor& out) {
  if (mode == RoundingMode::None) return binary_iterator(op, BinaryKind::IntToFloat, self, other, out);
  const PointwiseDtypes d = binary_dtypes(op, BinaryKind::Promote, self, other);
  if (d.compute == ScalarType::Bool) {
    throw Error(std::string(op) + ": rounding_mode='" + (mode == RoundingMode::Trunc ? "trunc" : "floor") +
                "' is not supported for bool tensors (got " + describe(self) + " and " + describe(other) + ")");
  }
  return pointwise_iterator(op, d, out, {&self, &other});
}

bool gelu_uses_tanh(const char* op, std::string_view approximate) {
  if (approximate == "tanh") return true;
  if (approximate == "none") return false;
  throw Error(std::string(op) + ": approximate must be 'none' or 'tanh', got '" + std::string(approximate) + "'");
}

void check_not_bool_variant(const char* op, const Tensor& t, const char* alternative) {
  if (t.dtype() != ScalarType::Bool || t.unsafe_impl()->is_wrapped_number()) return;
  const std::string_view name(op);
  const std::string hint = name.ends_with("_")      ? std::string(alternative) + "_ instead"
                           : name.ends_with(".out") ? std::string(alternative) + " instead"
                                                    : std::string(alternative) + " or ~ instead";
  throw NotImplementedError(std::string(op) + ": not supported for bool tensors; use " + hint);
}

void check_alpha_of(const char* op, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  if (alpha.is_integral() && alpha.to_int() == 1) return;
  const ScalarType t = binary_dtypes(op, BinaryKind::Promote, self, other).compute;
  if (!is_floating_point(t) && alpha.is_floating_point())
    throw Error(std::string(op) + ": alpha must be an integer for integer tensors, got " + alpha.to_string());
  check_alpha(op, alpha, t);
}

std::optional<double> one_element_value(const Tensor& t) {
  if (t.numel() != 1 || t.device().type != DeviceType::CPU) return std::nullopt;
  double v = 0;
  visit_scalar_type(t.dtype(), [&]<class T>() { v = convert_value<double>(*t.data<T>()); });
  return v;
}

}  // namespace glassbox
