#include "engine/autograd/formulas.h"

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::autograd {

namespace {
Tensor sum_dims_keepdim(const Tensor& t, IntArrayRef dims) { return glassbox::sum(t, dims, true); }
}  // namespace

Tensor sum_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.sizes() == DimVector(sizes)) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  if (lead < 0)
    throw Error("sum_to: gradient of shape " + shape_to_string(grad.sizes()) + " has fewer dimensions than " +
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
  // A 0-d CPU input of an operation on another device gets its gradient back on the CPU.
  if (!(g.device() == input.device)) g = g.to(input.device);
  return g;
}

Tensor maybe_multiply(const Tensor& grad, const Scalar& s) {
  if (!s.is_floating_point() && !s.is_bool() && s.to_int() == 1) return grad;
  if (s.is_floating_point() && s.to_double() == 1.0) return grad;
  return glassbox::mul(grad, s);
}

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

namespace {
std::vector<bool> reduced_mask(IntArrayRef sizes, std::optional<IntArrayRef> dims) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  std::vector<bool> mask(sizes.size(), !dims || dims->empty());
  if (dims && n > 0)  // a 0-d input has no dim to mark (dim 0 and -1 name the tensor itself)
    for (int64_t d : *dims) mask[static_cast<size_t>(((d % n) + n) % n)] = true;
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

Tensor index_backward(const Tensor& grad, IntArrayRef input_sizes, OptionalTensorList indices) {
  return glassbox::index_put(glassbox::zeros(input_sizes, grad.dtype(), grad.device()), indices, grad, true);
}

Tensor index_select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index) {
  return glassbox::index_add(glassbox::zeros(input_sizes, grad.dtype(), grad.device()), dim, index, grad);
}

Tensor gather_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index) {
  return glassbox::scatter_add(glassbox::zeros(input_sizes, grad.dtype(), grad.device()), dim, index, grad);
}

Tensor scatter_src_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes) {
  Tensor g = glassbox::gather(grad, dim, index);
  if (g.sizes() == DimVector(src_sizes)) return g;
  Tensor out = glassbox::zeros(src_sizes, grad.dtype(), grad.device());
  Tensor window = out;
  for (int64_t d = 0; d < index.dim(); ++d) window = window.narrow(d, 0, index.sizes()[d]);
  glassbox::copy_(window, g);
  return out;
}

Tensor masked_sum(const Tensor& grad, const Tensor& mask) {
  return sum_to(glassbox::mul(grad, mask), {});  // a bool mask promotes to grad's dtype
}

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

namespace {
// t with the reduced dims put back (size 1) when the reduction dropped them.
Tensor unsqueeze_reduced(const Tensor& t, IntArrayRef input_sizes, std::optional<IntArrayRef> dims, bool keepdim) {
  if (keepdim || input_sizes.empty()) return t;
  const int64_t n = static_cast<int64_t>(input_sizes.size());
  std::vector<bool> mask(input_sizes.size(), !dims || dims->empty());
  if (dims)
    for (int64_t d : *dims) mask[static_cast<size_t>(((d % n) + n) % n)] = true;
  Tensor r = t;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) r = r.unsqueeze(static_cast<int64_t>(d));
  return r;
}
}  // namespace

Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, std::optional<int64_t> dim,
                     bool keepdim) {
  std::vector<int64_t> dims;
  if (dim) dims.push_back(*dim);
  Tensor g = dim ? unsqueeze_reduced(grad, self.sizes(), IntArrayRef(dims), keepdim)
                 : unsqueeze_reduced(grad, self.sizes(), std::nullopt, keepdim);
  Tensor r = dim ? unsqueeze_reduced(result, self.sizes(), IntArrayRef(dims), keepdim)
                 : unsqueeze_reduced(result, self.sizes(), std::nullopt, keepdim);
  Tensor is_zero = glassbox::eq(self, Scalar(0.0));
  // The product of the non-zero elements, and how many zeros each reduction saw.
  Tensor nonzero = glassbox::where(is_zero, Scalar(1.0), self);
  Tensor zeros_seen =
      dim ? glassbox::sum(is_zero, dims, true) : glassbox::sum(is_zero).reshape(std::vector<int64_t>(self.dim(), 1));
  Tensor others =
      dim ? glassbox::prod(nonzero, *dim, true) : glassbox::prod(nonzero).reshape(std::vector<int64_t>(self.dim(), 1));
  Tensor no_zero = glassbox::div(r, glassbox::where(is_zero, Scalar(1.0), self));
  Tensor one_zero = glassbox::where(is_zero, others, Scalar(0.0));
  Tensor d = glassbox::where(glassbox::eq(zeros_seen, Scalar(0)), no_zero,
                             glassbox::where(glassbox::eq(zeros_seen, Scalar(1)), one_zero, Scalar(0.0)));
  return glassbox::mul(g, d);
}

Tensor extreme_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dims, bool keepdim) {
  Tensor g = unsqueeze_reduced(grad, self.sizes(), dims, keepdim);
  Tensor r = unsqueeze_reduced(result, self.sizes(), dims, keepdim);
  Tensor hit = glassbox::eq(self, r).to(grad.dtype());
  Tensor count =
      dims.empty() ? glassbox::sum(hit).reshape(std::vector<int64_t>(self.dim(), 1)) : glassbox::sum(hit, dims, true);
  return glassbox::div(glassbox::mul(g, hit), count);
}

Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef input_sizes,
                                bool keepdim) {
  Tensor g = grad, idx = indices;
  if (!keepdim && !input_sizes.empty()) {
    g = g.unsqueeze(dim);
    idx = idx.unsqueeze(dim);
  }
  Tensor out = glassbox::zeros(input_sizes, grad.dtype(), grad.device());
  if (input_sizes.empty()) return g.reshape({});
  return glassbox::scatter(out, dim, idx, g);
}

Tensor var_backward(const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dims,
                    const std::optional<Scalar>& correction, bool keepdim) {
  const double c = correction ? correction->to_double() : 1.0;
  const int64_t n = reduced_count(self.sizes(), dims);
  Tensor g = unsqueeze_reduced(grad, self.sizes(), dims, keepdim);
  Tensor mean = dims && !dims->empty() ? glassbox::mean(self, *dims, true) : glassbox::mean(self);
  Tensor centered = glassbox::sub(self, mean);
  return glassbox::mul(g, glassbox::mul(centered, Scalar(2.0 / (static_cast<double>(n) - c))));
}

Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dims,
                          bool keepdim) {
  Tensor g = unsqueeze_reduced(grad, self.sizes(), dims, keepdim);
  Tensor r = unsqueeze_reduced(result, self.sizes(), dims, keepdim);
  return glassbox::mul(g, glassbox::exp(glassbox::sub(self, r)));
}

Tensor l1_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction) {
  Tensor d = glassbox::sign(glassbox::sub(self, target));
  if (reduction == Reduction::Mean) d = glassbox::div(d, Scalar(std::max<int64_t>(self.numel(), 1)));
  return glassbox::mul(grad, d);
}

}  // namespace glassbox::autograd
