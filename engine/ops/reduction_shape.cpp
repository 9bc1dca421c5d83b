#include "engine/ops/reduction_shape.h"

#include <algorithm>

#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"

namespace glassbox {

namespace {
std::string described(const Tensor& t) { return "a tensor of shape " + shape_to_string(t.sizes()); }
}  // namespace

int64_t wrap_dim(const char* op, int64_t dim, const Tensor& self) {
  const int64_t n = std::max<int64_t>(self.dim(), 1);  // a 0-d tensor has one (virtual) dim
  if (dim < -n || dim >= n) {
    throw IndexError(std::string(op) + ": dim " + std::to_string(dim) + " is out of range for " + described(self) +
                     " (expected a dim in [" + std::to_string(-n) + ", " + std::to_string(n - 1) + "])");
  }
  return dim < 0 ? dim + n : dim;
}

ReductionShape reduction_shape(const char* op, const Tensor& self, std::optional<IntArrayRef> dims, bool keepdim,
                               ScalarType result_dtype) {
  GB_CHECK(self.defined(), op, ": the input is an undefined tensor");
  const int64_t nd = self.dim();
  ReductionShape r{{}, DimVector(nd, 0), 1, result_dtype};
  if (!dims || dims->empty()) {
    for (int64_t d = 0; d < nd; ++d) r.reduced[d] = 1;
  } else {
    for (int64_t raw : *dims) {
      const int64_t d = wrap_dim(op, raw, self);
      if (nd == 0) continue;
      if (r.reduced[d])
        throw Error(std::string(op) + ": dim " + std::to_string(raw) + " appears more than once in the dims of " +
                    described(self));
      r.reduced[d] = 1;
    }
  }
  for (int64_t d = 0; d < nd; ++d) {
    if (r.reduced[d]) {
      r.reduced_numel *= self.sizes()[d];
      if (keepdim) r.out_shape.push_back(1);
    } else {
      r.out_shape.push_back(self.sizes()[d]);
    }
  }
  return r;
}

ScalarType reduction_dtype(const char* op, const Tensor& self, std::optional<ScalarType> dtype, ReductionDtype kind) {
  const ScalarType in = self.dtype();
  switch (kind) {
    case ReductionDtype::Accumulate: return dtype ? *dtype : is_integral(in, true) ? ScalarType::Int64 : in;
    case ReductionDtype::Mean: {
      const ScalarType t = dtype ? *dtype : in;
      if (!is_floating_point(t))
        throw NotImplementedError(std::string(op) + ": expected a floating point input or dtype, got " +
                                  std::string(to_string(t)) + " (" + described(self) +
                                  "); pass dtype= to compute in floating point");
      return t;
    }
    case ReductionDtype::Same: return in;
    case ReductionDtype::Floating:
      if (!is_floating_point(in))
        throw NotImplementedError(std::string(op) + ": expected a floating point input, got " +
                                  std::string(to_string(in)) + " (" + described(self) + ")");
      return in;
    case ReductionDtype::ToFloat: return is_floating_point(in) ? in : kDefaultFloat;
  }
  return in;
}

void check_reduction_nonempty(const char* op, const Tensor& self, const ReductionShape& shape) {
  if (self.numel() != 0) return;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (shape.reduced[d] && self.sizes()[d] == 0)
      throw Error(std::string(op) + ": cannot reduce dim " + std::to_string(d) + " of size 0 of " + described(self) +
                  " (the operation has no identity); reduce over dims of non-zero size");
  }
  if (self.dim() == 0 || shape.reduced_numel == 0)
    throw Error(std::string(op) + ": cannot reduce the empty " + described(self) + " (the operation has no identity)");
}

ScalarType softmax_dtype(const char* op, const Tensor& self, std::optional<ScalarType> dtype) {
  const ScalarType t = dtype ? *dtype : self.dtype();
  if (!is_floating_point(t))
    throw NotImplementedError(std::string(op) + ": expected a floating point input or dtype, got " +
                              std::string(to_string(t)) + " (" + described(self) + ")");
  return t;
}

ScalarType cumsum_dtype(const Tensor& self, std::optional<ScalarType> dtype) {
  return dtype ? *dtype : is_integral(self.dtype(), true) ? ScalarType::Int64 : self.dtype();
}

void softmax_backward_shape(const char* op, const Tensor& grad, const Tensor& output, int64_t dim,
                            ScalarType input_dtype) {
  GB_CHECK(grad.defined() && output.defined(), op, ": an argument is an undefined tensor");
  const auto& a = grad.sizes();
  const auto& b = output.sizes();
  if (!(a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin())))
    throw Error(std::string(op) + ": grad_output of shape " + shape_to_string(a) + " and output of shape " +
                shape_to_string(b) + " must have the same shape");
  if (!is_floating_point(grad.dtype()) || !is_floating_point(output.dtype()) || !is_floating_point(input_dtype))
    throw NotImplementedError(std::string(op) + ": expected floating point tensors, got grad_output " +
                              std::string(to_string(grad.dtype())) + ", output " +
                              std::string(to_string(output.dtype())) + " and input_dtype " +
                              std::string(to_string(input_dtype)));
  if (!(grad.device() == output.device()))
    throw Error(std::string(op) + ": grad_output on " + grad.device().to_string() + " but output on " +
                output.device().to_string());
  wrap_dim(op, dim, grad);
}

DimVector topk_shape(const Tensor& self, int64_t k, int64_t dim) {
  const int64_t d = wrap_dim("topk", dim, self);
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  if (k < 0 || k > size)
    throw Error("topk: k = " + std::to_string(k) + " is out of range for dim " + std::to_string(dim) + " of size " +
                std::to_string(size) + " (" + described(self) + ")");
  DimVector shape = self.sizes();
  if (self.dim() > 0) shape[d] = k;
  return shape;
}

ReduceGeometry reduce_geometry(const Tensor& self, const DimVector& reduced, bool rows_only) {
  ReduceGeometry g;
  const int64_t nd = self.dim();
  // The reduced dims (ignoring size-1 dims) must form one run of a contiguous tensor for a view.
  int state = 0;  // 0: before the run, 1: inside it, 2: after it
  bool one_run = true;
  int64_t kept = 1, red = 1;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t s = self.sizes()[d];
    reduced[d] ? red *= s : kept *= s;
    if (s == 1) continue;
    if (reduced[d]) {
      if (state == 2) one_run = false;
      state = 1;
      g.reduced *= s;
    } else {
      if (state == 1) state = 2;
      (state == 0 ? g.outer : g.inner) *= s;
    }
  }
  if (self.numel() == 0 || (one_run && self.is_contiguous() && (!rows_only || g.inner == 1))) {
    if (self.numel() == 0) g.outer = kept, g.reduced = red, g.inner = 1;
    g.data = self;
    return g;
  }
  DimVector perm;
  for (int64_t d = 0; d < nd; ++d)
    if (!reduced[d]) perm.push_back(d);
  for (int64_t d = 0; d < nd; ++d)
    if (reduced[d]) perm.push_back(d);
  g.data = glassbox::permute(self, perm).contiguous();
  g.outer = kept, g.reduced = red, g.inner = 1;
  return g;
}

ReduceGeometry dim_geometry(const Tensor& self, int64_t dim) {
  ReduceGeometry g;
  g.data = self.is_contiguous() ? self : self.contiguous();
  for (int64_t d = 0; d < self.dim(); ++d) (d < dim ? g.outer : d == dim ? g.reduced : g.inner) *= self.sizes()[d];
  return g;
}

}  // namespace glassbox
