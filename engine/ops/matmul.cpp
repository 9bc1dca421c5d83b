// matmul, outer and linear, written once in terms of dot/mm/bmm/mul (CompositeImplicitAutograd):
// they run on every backend, Meta included, and autograd differentiates what they call.
#include "glassbox/ops/native/matmul.h"
#include "engine/core/error.h"
#include "engine/ops/tensor_iterator.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/linear.h"
#include "glassbox/ops/native/outer.h"

namespace glassbox::native {

using detail::str_cat;

// Every rank combination numpy.matmul allows: 1-D operands are promoted to a row (left) or a
// column (right) matrix and that dimension is dropped from the result; dims before the last two
// are batch dims and broadcast.
Tensor matmul(const Tensor& self, const Tensor& other) {
  if (!self.defined() || !other.defined()) throw Error("matmul: an argument is an undefined tensor");
  const int64_t da = self.dim(), db = other.dim();
  const std::string shapes = str_cat(shape_to_string(self.sizes()), " and ", shape_to_string(other.sizes()));
  if (da == 0 || db == 0) {
    throw Error(str_cat("matmul: both arguments need at least one dimension, got shapes ", shapes));
  }
  if (self.dtype() != other.dtype()) {
    throw Error(str_cat("matmul: expected self and other to have the same dtype, got ", to_string(self.dtype()),
                        " and ", to_string(other.dtype())));
  }
  const int64_t k = self.sizes()[da - 1];
  const int64_t k_other = other.sizes()[db == 1 ? 0 : db - 2];
  if (k != k_other) {
    throw Error(str_cat("matmul: shapes ", shapes, " cannot be multiplied (", k, " columns vs ", k_other, " rows)"));
  }
  if (da == 1 && db == 1) return glassbox::dot(self, other);
  if (da <= 2 && db <= 2) {
    const Tensor a = da == 1 ? self.unsqueeze(0) : self, b = db == 1 ? other.unsqueeze(1) : other;
    Tensor r = glassbox::mm(a, b);
    if (da == 1) r = r.squeeze(0);
    if (db == 1) r = r.squeeze(-1);
    return r;
  }
  if (db <= 2) {
    // A batch times one matrix: the batch dims fold into the rows of one mm.
    DimVector out_shape(self.sizes());
    out_shape.resize(out_shape.size() - 1);
    int64_t rows = 1;
    for (int64_t s : out_shape) rows *= s;
    const Tensor r = glassbox::mm(self.reshape({rows, k}), db == 1 ? other.unsqueeze(1) : other);
    if (db == 2) out_shape.push_back(other.sizes()[1]);
    return r.view(out_shape);
  }
  const Tensor a = da == 1 ? self.unsqueeze(0) : self, b = db == 1 ? other.unsqueeze(1) : other;
  const int64_t m = a.sizes()[a.dim() - 2], n = b.sizes()[b.dim() - 1];
  const std::span<const int64_t> batch_a(a.sizes().data(), a.dim() - 2), batch_b(b.sizes().data(), b.dim() - 2);
  DimVector batch;
  try {
    batch = broadcast_shapes(batch_a, batch_b, "matmul");
  } catch (const Error&) {
    throw Error(str_cat("matmul: the batch dims ", shape_to_string(batch_a), " and ", shape_to_string(batch_b),
                        " of shapes ", shapes, " cannot be broadcast together"));
  }
  int64_t count = 1;
  for (int64_t s : batch) count *= s;
  DimVector a_shape = batch, b_shape = batch, out_shape = batch;
  a_shape.push_back(m);
  a_shape.push_back(k);
  b_shape.push_back(k);
  b_shape.push_back(n);
  const Tensor r = glassbox::bmm(a.expand(a_shape).reshape({count, m, k}), b.expand(b_shape).reshape({count, k, n}));
  if (da > 1) out_shape.push_back(m);
  if (db > 1) out_shape.push_back(n);
  return r.view(out_shape);
}

Tensor outer(const Tensor& self, const Tensor& vec2) {
  if (!self.defined() || !vec2.defined() || self.dim() != 1 || vec2.dim() != 1) {
    throw Error(str_cat("outer: expected two 1-D vectors, got shapes ",
                        self.defined() ? shape_to_string(self.sizes()) : "undefined", " and ",
                        vec2.defined() ? shape_to_string(vec2.sizes()) : "undefined"));
  }
  return glassbox::mul(self.unsqueeze(1), vec2);  // promotes like mul
}

// y = input @ weight^T + bias, for input [*, in_features] and weight [out_features, in_features].
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  if (!input.defined() || !weight.defined()) throw Error("linear: input or weight is an undefined tensor");
  if (weight.dim() < 1 || weight.dim() > 2 || input.dim() < 1) {
    throw Error(str_cat("linear: expected input of at least 1 dimension and a 1-D or 2-D weight ",
                        "[out_features, in_features], got shapes ", shape_to_string(input.sizes()), " and ",
                        shape_to_string(weight.sizes())));
  }
  const int64_t in = input.sizes()[input.dim() - 1], w_in = weight.sizes()[weight.dim() - 1];
  if (in != w_in) {
    throw Error(str_cat("linear: input of shape ", shape_to_string(input.sizes()), " and weight of shape ",
                        shape_to_string(weight.sizes()), " disagree on in_features (", in, " vs ", w_in, ")"));
  }
  const bool has_bias = bias && bias->defined();
  if (has_bias && bias->dim() == 1 && weight.dim() == 2 && bias->sizes()[0] != weight.sizes()[0] &&
      bias->sizes()[0] != 1) {
    throw Error(str_cat("linear: bias of shape ", shape_to_string(bias->sizes()), " does not match out_features ",
                        weight.sizes()[0], " of weight of shape ", shape_to_string(weight.sizes())));
  }
  if (has_bias && input.dim() == 2 && weight.dim() == 2) return glassbox::addmm(*bias, input, weight.t());
  if (has_bias && bias->dim() <= 1 && input.dim() > 2 && weight.dim() == 2) {
    // The batch dims fold into the rows of one addmm (as matmul folds them into one mm): the bias
    // is added by the product itself (beta = 1), not by a separate pass over the result.
    DimVector out_shape(input.sizes());
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < out_shape.size(); ++d) rows *= out_shape[d];
    out_shape[out_shape.size() - 1] = weight.sizes()[0];
    return glassbox::addmm(*bias, input.reshape({rows, in}), weight.t()).view(out_shape);
  }
  const Tensor out = glassbox::matmul(input, weight.t());
  return has_bias ? glassbox::add(out, *bias) : out;
}

}  // namespace glassbox::native
