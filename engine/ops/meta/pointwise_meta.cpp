// Meta kernels of the point-wise operators: each builds the iterator its CPU kernel builds
// (engine/ops/pointwise_iterator.h) and returns the output, so shapes, dtypes and errors agree.
#include "engine/ops/elementwise_shape.h"
#include "engine/ops/pointwise_iterator.h"
#include "glassbox/ops/native/abs.h"
#include "glassbox/ops/native/clamp.h"
#include "glassbox/ops/native/cos.h"
#include "glassbox/ops/native/div.h"
#include "glassbox/ops/native/eq.h"
#include "glassbox/ops/native/exp.h"
#include "glassbox/ops/native/expm1.h"
#include "glassbox/ops/native/ge.h"
#include "glassbox/ops/native/gelu.h"
#include "glassbox/ops/native/gelu_backward.h"
#include "glassbox/ops/native/gt.h"
#include "glassbox/ops/native/le.h"
#include "glassbox/ops/native/log.h"
#include "glassbox/ops/native/log1p.h"
#include "glassbox/ops/native/logical_and.h"
#include "glassbox/ops/native/logical_not.h"
#include "glassbox/ops/native/logical_or.h"
#include "glassbox/ops/native/logical_xor.h"
#include "glassbox/ops/native/lt.h"
#include "glassbox/ops/native/maximum.h"
#include "glassbox/ops/native/minimum.h"
#include "glassbox/ops/native/mul.h"
#include "glassbox/ops/native/ne.h"
#include "glassbox/ops/native/neg.h"
#include "glassbox/ops/native/pow.h"
#include "glassbox/ops/native/relu.h"
#include "glassbox/ops/native/rsqrt.h"
#include "glassbox/ops/native/sigmoid.h"
#include "glassbox/ops/native/sigmoid_backward.h"
#include "glassbox/ops/native/sign.h"
#include "glassbox/ops/native/silu.h"
#include "glassbox/ops/native/silu_backward.h"
#include "glassbox/ops/native/sin.h"
#include "glassbox/ops/native/sqrt.h"
#include "glassbox/ops/native/sub.h"
#include "glassbox/ops/native/tanh.h"
#include "glassbox/ops/native/tanh_backward.h"
#include "glassbox/ops/native/threshold_backward.h"
#include "glassbox/ops/native/where.h"

namespace glassbox::native {

#define GB_UNARY_META_KERNELS(name)                                              \
  Tensor name##_meta(const Tensor& self) {                                       \
    Tensor out;                                                                  \
    unary_iterator(#name, unary_kinds::name, self, out);                         \
    return out;                                                                  \
  }                                                                              \
  Tensor& name##_meta_(Tensor& self) {                                           \
    unary_iterator(#name "_", unary_kinds::name, self, self);                    \
    return self;                                                                 \
  }                                                                              \
  Tensor& name##_out_meta(const Tensor& self, Tensor& out) {                     \
    unary_iterator(#name ".out", unary_kinds::name, self, out);                  \
    return out;                                                                  \
  }
GB_UNARY_META_KERNELS(abs)
GB_UNARY_META_KERNELS(sign)
GB_UNARY_META_KERNELS(sqrt)
GB_UNARY_META_KERNELS(rsqrt)
GB_UNARY_META_KERNELS(exp)
GB_UNARY_META_KERNELS(log)
GB_UNARY_META_KERNELS(log1p)
GB_UNARY_META_KERNELS(expm1)
GB_UNARY_META_KERNELS(sin)
GB_UNARY_META_KERNELS(cos)
GB_UNARY_META_KERNELS(tanh)
GB_UNARY_META_KERNELS(sigmoid)
GB_UNARY_META_KERNELS(silu)
GB_UNARY_META_KERNELS(logical_not)
#undef GB_UNARY_META_KERNELS

Tensor relu_meta(const Tensor& self) {
  Tensor out;
  unary_iterator("relu", unary_kinds::relu, self, out);
  return out;
}
Tensor& relu_meta_(Tensor& self) {
  unary_iterator("relu_", unary_kinds::relu, self, self);
  return self;
}
Tensor gelu_meta(const Tensor& self, std::string_view approximate) {
  gelu_uses_tanh("gelu", approximate);
  Tensor out;
  unary_iterator("gelu", unary_kinds::gelu, self, out);
  return out;
}
Tensor& gelu_meta_(Tensor& self, std::string_view approximate) {
  gelu_uses_tanh("gelu_", approximate);
  unary_iterator("gelu_", unary_kinds::gelu, self, self);
  return self;
}
Tensor& gelu_out_meta(const Tensor& self, std::string_view approximate, Tensor& out) {
  gelu_uses_tanh("gelu.out", approximate);
  unary_iterator("gelu.out", unary_kinds::gelu, self, out);
  return out;
}
Tensor& neg_meta_(Tensor& self) {
  check_not_bool("neg_", self, "use logical_not_ instead");
  unary_iterator("neg_", unary_kinds::neg, self, self);
  return self;
}
Tensor& neg_out_meta(const Tensor& self, Tensor& out) {
  check_not_bool("neg.out", self, "use logical_not instead");
  unary_iterator("neg.out", unary_kinds::neg, self, out);
  return out;
}

// Binary operators: functional (allocating) and out= forms; in-place ones pass self as out.
#define GB_BINARY_META_KERNELS(fn, name, KIND)                                   \
  Tensor fn##_meta(const Tensor& self, const Tensor& other) {                    \
    Tensor out;                                                                  \
    binary_iterator(name, BinaryKind::KIND, self, other, out);                   \
    return out;                                                                  \
  }                                                                              \
  Tensor& fn##_out_meta(const Tensor& self, const Tensor& other, Tensor& out) {  \
    binary_iterator(name ".out", BinaryKind::KIND, self, other, out);            \
    return out;                                                                  \
  }
GB_BINARY_META_KERNELS(eq, "eq", Compare)
GB_BINARY_META_KERNELS(ne, "ne", Compare)
GB_BINARY_META_KERNELS(lt, "lt", Compare)
GB_BINARY_META_KERNELS(le, "le", Compare)
GB_BINARY_META_KERNELS(gt, "gt", Compare)
GB_BINARY_META_KERNELS(ge, "ge", Compare)
GB_BINARY_META_KERNELS(logical_and, "logical_and", Compare)
GB_BINARY_META_KERNELS(logical_or, "logical_or", Compare)
GB_BINARY_META_KERNELS(logical_xor, "logical_xor", Compare)
GB_BINARY_META_KERNELS(maximum, "maximum", Promote)
GB_BINARY_META_KERNELS(minimum, "minimum", Promote)
GB_BINARY_META_KERNELS(pow, "pow", Numeric)
#undef GB_BINARY_META_KERNELS

// The functional mul_meta and div_meta live in elementwise_meta.cpp with add and sub.
Tensor& mul_out_meta(const Tensor& self, const Tensor& other, Tensor& out) {
  binary_iterator("mul.out", BinaryKind::Promote, self, other, out);
  return out;
}
Tensor& div_out_meta(const Tensor& self, const Tensor& other, Tensor& out) {
  binary_iterator("div.out", BinaryKind::IntToFloat, self, other, out);
  return out;
}
Tensor& pow_meta_(Tensor& self, const Tensor& exponent) {
  binary_iterator("pow_", BinaryKind::Numeric, self, exponent, self);
  return self;
}
Tensor& mul_meta_(Tensor& self, const Tensor& other) {
  binary_iterator("mul_", BinaryKind::Promote, self, other, self);
  return self;
}
Tensor& div_meta_(Tensor& self, const Tensor& other) {
  binary_iterator("div_", BinaryKind::IntToFloat, self, other, self);
  return self;
}
Tensor& sub_meta_(Tensor& self, const Tensor& other, const Scalar&) {
  check_not_bool("sub_", self, "use logical_xor_ instead");
  binary_iterator("sub_", BinaryKind::Promote, self, other, self);
  return self;
}
Tensor& sub_out_meta(const Tensor& self, const Tensor& other, const Scalar&, Tensor& out) {
  check_not_bool("sub.out", self, "use logical_xor instead");
  binary_iterator("sub.out", BinaryKind::Promote, self, other, out);
  return out;
}

Tensor div_mode_meta(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  Tensor out;
  div_mode_iterator("div", parse_rounding_mode("div", rounding_mode), self, other, out);
  return out;
}
Tensor& div_mode_meta_(Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  div_mode_iterator("div_", parse_rounding_mode("div_", rounding_mode), self, other, self);
  return self;
}
Tensor& div_mode_out_meta(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode,
                          Tensor& out) {
  div_mode_iterator("div.out", parse_rounding_mode("div.out", rounding_mode), self, other, out);
  return out;
}

Tensor clamp_meta(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  Tensor out;
  clamp_iterator("clamp", self, min, max, out);
  return out;
}
Tensor& clamp_meta_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  clamp_iterator("clamp_", self, min, max, self);
  return self;
}
Tensor& clamp_out_meta(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                       Tensor& out) {
  clamp_iterator("clamp.out", self, min, max, out);
  return out;
}

Tensor where_meta(const Tensor& condition, const Tensor& self, const Tensor& other) {
  Tensor out;
  return where_iterator("where", condition, self, other, out).result;
}
Tensor& where_out_meta(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  where_iterator("where.out", condition, self, other, out);
  return out;
}

Tensor sigmoid_backward_meta(const Tensor& grad_output, const Tensor& output) {
  Tensor out;
  binary_iterator("sigmoid_backward", BinaryKind::FloatOnly, grad_output, output, out);
  return out;
}
Tensor tanh_backward_meta(const Tensor& grad_output, const Tensor& output) {
  Tensor out;
  binary_iterator("tanh_backward", BinaryKind::FloatOnly, grad_output, output, out);
  return out;
}
Tensor silu_backward_meta(const Tensor& grad_output, const Tensor& self) {
  Tensor out;
  binary_iterator("silu_backward", BinaryKind::FloatOnly, grad_output, self, out);
  return out;
}
Tensor gelu_backward_meta(const Tensor& grad_output, const Tensor& self, std::string_view approximate) {
  gelu_uses_tanh("gelu_backward", approximate);
  Tensor out;
  binary_iterator("gelu_backward", BinaryKind::FloatOnly, grad_output, self, out);
  return out;
}
Tensor threshold_backward_meta(const Tensor& grad_output, const Tensor& self, const Scalar&) {
  Tensor out;
  binary_iterator("threshold_backward", BinaryKind::Numeric, grad_output, self, out);
  return out;
}

}  // namespace glassbox::native
