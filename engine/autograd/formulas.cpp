#include "engine/autograd/formulas.h"

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"
#include "registry/dispatcher.h"

namespace glassbox::autograd {

namespace {
Tensor sum_dims_keepdim(const Tensor& t, IntArrayRef dims) {
  static const auto op = Dispatcher::singleton()
                             .find_schema_or_throw("glassbox::sum", "dim_IntList")
                             .typed<Tensor(const Tensor&, std::optional<IntArrayRef>, bool, std::optional<ScalarType>)>();
  return op.call(t, dims, true, std::nullopt);
}
}  // namespace

Tensor sum_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.sizes() == DimVector(sizes)) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  if (lead < 0)
    throw ValueError("sum_to: gradient of shape " + shape_to_string(grad.sizes()) + " has fewer dimensions than " +
                     shape_to_string(sizes));
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] == 1 && grad.sizes()[lead + i] != 1) dims.push_back(lead + static_cast<int64_t>(i));
  Tensor r = dims.empty() ? grad : sum_dims_keepdim(grad, dims);
  return r.sizes() == DimVector(sizes) ? r : r.reshape(sizes);
}

Tensor to_input(const Tensor& grad, const InputMetadata& input) {
  if (!grad.defined()) return grad;
  Tensor g = sum_to(grad, input.sizes);
  if (g.dtype() != input.dtype) g = g.to(input.dtype);
  return g;
}

Tensor maybe_multiply(const Tensor& grad, const Scalar& s) {
  if (!s.is_floating_point() && !s.is_bool() && s.to_int() == 1) return grad;
  if (s.is_floating_point() && s.to_double() == 1.0) return grad;
  return glassbox::mul(grad, s);
}

}  // namespace glassbox::autograd

namespace glassbox::autograd {

Tensor zeros_like_grad(const Tensor& grad) { return glassbox::zeros(grad.sizes(), grad.dtype(), grad.device()); }

Tensor permute_backward(const Tensor& grad, IntArrayRef dims) {
  const int64_t n = static_cast<int64_t>(dims.size());
  std::vector<int64_t> inverse(dims.size());
  for (int64_t i = 0; i < n; ++i) inverse[static_cast<size_t>(dims[i] < 0 ? dims[i] + n : dims[i])] = i;
  return grad.permute(inverse);
}

Tensor slice_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  Tensor out = glassbox::zeros(input_sizes, grad.dtype(), grad.device());
  Tensor window = glassbox::slice(out, dim, start, end, step);
  glassbox::copy_(window, grad);
  return out;
}

Tensor select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, int64_t index) {
  Tensor out = glassbox::zeros(input_sizes, grad.dtype(), grad.device());
  Tensor row = glassbox::select(out, dim, index);
  glassbox::copy_(row, grad);
  return out;
}

}  // namespace glassbox::autograd

namespace glassbox::autograd {

namespace {
std::vector<bool> reduced_mask(IntArrayRef sizes, std::optional<IntArrayRef> dims) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  std::vector<bool> mask(sizes.size(), !dims || dims->empty());
  if (dims)
    for (int64_t d : *dims) mask[static_cast<size_t>(d < 0 ? d + n : d)] = true;
  return mask;
}
}  // namespace

Tensor sum_backward(const Tensor& grad, IntArrayRef input_sizes, std::optional<IntArrayRef> dims, bool keepdim) {
  Tensor g = grad;
  if (!keepdim && !input_sizes.empty()) {
    const std::vector<bool> mask = reduced_mask(input_sizes, dims);
    for (size_t d = 0; d < mask.size(); ++d)
      if (mask[d]) g = g.unsqueeze(static_cast<int64_t>(d));
  }
  return g.expand(input_sizes);
}

int64_t reduced_count(IntArrayRef input_sizes, std::optional<IntArrayRef> dims) {
  const std::vector<bool> mask = reduced_mask(input_sizes, dims);
  int64_t n = 1;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) n *= input_sizes[d];
  return n;
}

}  // namespace glassbox::autograd

namespace glassbox::autograd {

Tensor index_backward(const Tensor& grad, IntArrayRef input_sizes, OptionalTensorList indices) {
  return glassbox::index_put(glassbox::zeros(input_sizes, grad.dtype(), grad.device()), indices, grad, true);
}

Tensor index_select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index) {
  return glassbox::index_add(glassbox::zeros(input_sizes, grad.dtype(), grad.device()), dim, index, grad);
}

Tensor gather_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index) {
  return glassbox::scatter_add(glassbox::zeros(input_sizes, grad.dtype(), grad.device()), dim, index, grad);
}

Tensor masked_sum(const Tensor& grad, const Tensor& mask) {
  return sum_to(glassbox::mul(grad, mask), {});  // a bool mask promotes to grad's dtype
}

}  // namespace glassbox::autograd

namespace glassbox::autograd {

std::vector<Tensor> cat_backward(const Tensor& grad, const std::vector<DimVector>& sizes, int64_t dim) {
  std::vector<Tensor> out;
  const int64_t d = dim < 0 ? dim + grad.dim() : dim;
  int64_t offset = 0;
  for (const DimVector& s : sizes) {
    if (s.size() == 1 && s[0] == 0 && grad.dim() != 1) {  // cat skipped this input
      out.push_back(glassbox::zeros(s, grad.dtype(), grad.device()));
      continue;
    }
    const int64_t length = s[static_cast<size_t>(d)];
    out.push_back(grad.narrow(d, offset, length));
    offset += length;
  }
  return out;
}

Tensor roll_backward(const Tensor& grad, IntArrayRef shifts, IntArrayRef dims) {
  std::vector<int64_t> negated;
  for (int64_t s : shifts) negated.push_back(-s);
  return glassbox::roll(grad, negated, dims);
}

}  // namespace glassbox::autograd

namespace glassbox::autograd {

Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent) {
  Tensor d = glassbox::mul(exponent, glassbox::pow(self, glassbox::sub(exponent, wrap_scalar(Scalar(1.0)))));
  d = glassbox::where(glassbox::eq(exponent, Scalar(0.0)), Scalar(0.0), d);
  return glassbox::mul(grad, d);
}

Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result) {
  Tensor d = glassbox::mul(result, glassbox::log(self));
  d = glassbox::where(glassbox::logical_and(glassbox::eq(self, Scalar(0.0)), glassbox::ge(exponent, Scalar(0.0))),
                      Scalar(0.0), d);
  return glassbox::mul(grad, d);
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Tensor>& min,
                      const std::optional<Tensor>& max) {
  Tensor g = grad;
  if (min) g = glassbox::where(glassbox::ge(self, *min), g, Scalar(0.0));
  if (max) g = glassbox::where(glassbox::le(self, *max), g, Scalar(0.0));
  return g;
}

Tensor clamp_backward_min(const Tensor& grad, const Tensor& self, const std::optional<Tensor>& min) {
  return min ? glassbox::where(glassbox::lt(self, *min), grad, Scalar(0.0)) : Tensor();
}

Tensor clamp_backward_max(const Tensor& grad, const Tensor& self, const std::optional<Tensor>& max) {
  return max ? glassbox::where(glassbox::gt(self, *max), grad, Scalar(0.0)) : Tensor();
}

Tensor select_larger(const Tensor& grad, const Tensor& a, const Tensor& b) {
  Tensor half = glassbox::where(glassbox::eq(a, b), glassbox::mul(grad, Scalar(0.5)), Scalar(0.0));
  return glassbox::where(glassbox::gt(a, b), grad, half);
}

}  // namespace glassbox::autograd
