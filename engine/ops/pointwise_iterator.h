#pragma once
// The front end of the point-wise operators: which dtypes each family accepts, computes in and
// returns, and the TensorIterator that broadcasts its operands. The CPU kernels loop over that
// iterator; the Meta kernels build the very same iterator and return its output, so both agree
// on shapes, dtypes and error messages.
#include <initializer_list>
#include <optional>
#include <string_view>

#include "engine/core/scalar.h"
#include "engine/ops/tensor_iterator.h"

namespace glassbox {

struct PointwiseDtypes {
  ScalarType compute;  // the dtype the loop reads its inputs in
  ScalarType result;   // the dtype of an allocated output
};

enum class UnaryKind {
  Keep,          // abs, neg, relu: the input's dtype, bool refused
  KeepWithBool,  // sign: the input's dtype, bool included
  IntToFloat,    // sqrt, exp, sigmoid, ...: integer and bool inputs compute in the default float dtype
  FloatOnly,     // gelu, silu: floating-point inputs only
  Logical,       // logical_not: any input dtype, bool result
};

// The dtype rule of each unary operator, read by its CPU functor and by its Meta kernel alike.
namespace unary_kinds {
inline constexpr UnaryKind abs = UnaryKind::Keep, neg = UnaryKind::Keep, relu = UnaryKind::Keep;
inline constexpr UnaryKind sign = UnaryKind::KeepWithBool;
inline constexpr UnaryKind sqrt = UnaryKind::IntToFloat, rsqrt = UnaryKind::IntToFloat, exp = UnaryKind::IntToFloat,
                           log = UnaryKind::IntToFloat, log1p = UnaryKind::IntToFloat, expm1 = UnaryKind::IntToFloat,
                           sin = UnaryKind::IntToFloat, cos = UnaryKind::IntToFloat, tanh = UnaryKind::IntToFloat,
                           sigmoid = UnaryKind::IntToFloat;
inline constexpr UnaryKind gelu = UnaryKind::FloatOnly, silu = UnaryKind::FloatOnly;
inline constexpr UnaryKind logical_not = UnaryKind::Logical;
}  // namespace unary_kinds

enum class BinaryKind {
  Promote,     // mul, maximum, ...: the promoted dtype
  Numeric,     // pow, threshold_backward: the promoted dtype, bool refused
  IntToFloat,  // true division: integers promote to the default float dtype
  Compare,     // eq, lt, ...: compared in the promoted dtype, bool result
  FloatOnly,   // the activation gradients: floating-point inputs only
};

PointwiseDtypes unary_dtypes(const char* op, UnaryKind kind, const Tensor& self);
PointwiseDtypes binary_dtypes(const char* op, BinaryKind kind, const Tensor& self, const Tensor& other);

// PyTorch's rule for writing a result into a given output (in-place, out=): floating point does
// not go into integers, nor anything but bool into bool. Throws naming the operator and both dtypes.
void check_can_cast(const char* op, ScalarType result, const Tensor& out);

// The iterator over `out` (undefined: allocated in dtypes.result) and the inputs, converted to
// dtypes.compute. A given `out` is checked with check_can_cast and must have the broadcast shape.
// A 0-d CPU input may join inputs on another device (its value is read on the host).
TensorIterator pointwise_iterator(const char* op, PointwiseDtypes dtypes, Tensor& out,
                                  std::initializer_list<const Tensor*> inputs);

inline TensorIterator unary_iterator(const char* op, UnaryKind kind, const Tensor& self, Tensor& out) {
  return pointwise_iterator(op, unary_dtypes(op, kind, self), out, {&self});
}
inline TensorIterator binary_iterator(const char* op, BinaryKind kind, const Tensor& self, const Tensor& other,
                                      Tensor& out) {
  return pointwise_iterator(op, binary_dtypes(op, kind, self, other), out, {&self, &other});
}

// clamp(self, min, max): at least one bound; the result dtype promotes all given tensors.
TensorIterator clamp_iterator(const char* op, const Tensor& self, const std::optional<Tensor>& min,
                              const std::optional<Tensor>& max, Tensor& out);

// where(condition, self, other): operands (out, condition as bool, self, other in the promoted
// dtype), so the loop reads the condition without converting it. An out= of another dtype gets a
// temporary: `result` (what the loop writes) differs from `out` then; copy it back afterwards.
struct WhereIterator {
  TensorIterator it;
  Tensor result;
  Tensor self, other;  // the value operands in the promoted dtype, which the loop reads
};
WhereIterator where_iterator(const char* op, const Tensor& condition, const Tensor& self, const Tensor& other,
                             Tensor& out);

// div's rounding modes: nullopt (true division), "trunc" or "floor"; anything else throws.
enum class RoundingMode { None, Trunc, Floor };
RoundingMode parse_rounding_mode(const char* op, std::optional<std::string_view> mode);
// The iterator of div with a rounding mode (integers stay integers unless it is None).
TensorIterator div_mode_iterator(const char* op, RoundingMode mode, const Tensor& self, const Tensor& other,
                                 Tensor& out);

// gelu's `approximate`: "none" (erf) or "tanh"; anything else throws.
bool gelu_uses_tanh(const char* op, std::string_view approximate);

// "int64 of shape [2, 3]": how error messages describe a tensor.
std::string describe(const Tensor& t);

// Subtraction and negation are not defined for bool tensors (as in PyTorch). The hint names
// `alternative` in the form of the variant `op` ("sub_" -> "use logical_xor_ instead").
void check_not_bool_variant(const char* op, const Tensor& t, const char* alternative);

// add/sub's alpha against the dtype they compute in: an integer for integer results, and a value
// that fits (check_alpha). The default alpha of 1 passes at once.
void check_alpha_of(const char* op, const Tensor& self, const Tensor& other, const Scalar& alpha);

// The value of a one-element CPU tensor (0-d, or a number wrapped as a tensor), when it is one.
std::optional<double> one_element_value(const Tensor& t);

}  // namespace glassbox
