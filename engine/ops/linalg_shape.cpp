#include "engine/ops/linalg_shape.h"

#include <string>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "glassbox/ops/native/addmm.h"
#include "glassbox/ops/native/bmm.h"
#include "glassbox/ops/native/dot.h"
#include "glassbox/ops/native/mm.h"

namespace glassbox {

using detail::str_cat;

namespace {

// "2x3": how shapes of matrix products are quoted in errors.
std::string dims_x(const Tensor& t) {
  std::string s;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d) s += 'x';
    s += std::to_string(t.sizes()[d]);
  }
  return s.empty() ? "scalar" : s;
}

void check_defined(const char* op, const char* arg, const Tensor& t) {
  if (!t.defined()) throw Error(str_cat(op, ": ", arg, " is an undefined tensor"));
}

void check_rank(const char* op, const char* arg, const Tensor& t, int64_t rank, const char* what) {
  check_defined(op, arg, t);
  if (t.dim() != rank) {
    throw Error(str_cat(op, ": ", arg, " must be ", what, ", got a ", t.dim(), "-D tensor of shape ",
                        shape_to_string(t.sizes())));
  }
}

// Same device and dtype for every operand of a product; bool is refused as in PyTorch.
void check_same(const char* op, const char* a_name, const Tensor& a, const char* b_name, const Tensor& b) {
  if (!(a.device() == b.device())) {
    throw Error(str_cat(op, ": expected ", a_name, " and ", b_name, " on one device, got ", a.device().to_string(),
                        " and ", b.device().to_string()));
  }
  if (a.dtype() != b.dtype()) {
    throw Error(str_cat(op, ": expected ", a_name, " and ", b_name, " to have the same dtype, got ",
                        to_string(a.dtype()), " and ", to_string(b.dtype())));
  }
}

void check_numeric(const char* op, const Tensor& t) {
  if (t.dtype() == ScalarType::Bool)
    throw NotImplementedError(
        str_cat(op, ": not supported for bool tensors (got shape ", shape_to_string(t.sizes()), ")"));
}

// A window parameter given as one int (both dims) or two; `fallback` when the list is empty.
std::array<int64_t, 2> pair(const char* op, const char* arg, IntArrayRef v,
                            std::optional<std::array<int64_t, 2>> fallback, int64_t min) {
  std::array<int64_t, 2> out{};
  if (v.empty() && fallback) {
    out = *fallback;
  } else if (v.size() == 1) {
    out = {v[0], v[0]};
  } else if (v.size() == 2) {
    out = {v[0], v[1]};
  } else {
    throw Error(str_cat(op, ": ", arg, " must be one int or two ints, got ", shape_to_string(v)));
  }
  if (out[0] < min || out[1] < min) {
    throw Error(
        str_cat(op, ": ", arg, " must be ", min == 0 ? "non-negative" : "positive", ", got ", shape_to_string(out)));
  }
  return out;
}

}  // namespace

DimVector mm_shape(const char* op, const Tensor& self, const Tensor& mat2) {
  check_rank(op, "self", self, 2, "a matrix (2-D)");
  check_rank(op, "mat2", mat2, 2, "a matrix (2-D)");
  check_same(op, "self", self, "mat2", mat2);
  check_numeric(op, self);
  if (self.sizes()[1] != mat2.sizes()[0]) {
    throw Error(str_cat(op, ": mat1 and mat2 shapes cannot be multiplied (", dims_x(self), " and ", dims_x(mat2), ")"));
  }
  return DimVector({self.sizes()[0], mat2.sizes()[1]});
}

DimVector bmm_shape(const char* op, const Tensor& self, const Tensor& mat2) {
  check_rank(op, "self", self, 3, "a batch of matrices (3-D)");
  check_rank(op, "mat2", mat2, 3, "a batch of matrices (3-D)");
  check_same(op, "self", self, "mat2", mat2);
  check_numeric(op, self);
  if (self.sizes()[0] != mat2.sizes()[0]) {
    throw Error(
        str_cat(op, ": batch1 and batch2 must have the same batch size (", dims_x(self), " and ", dims_x(mat2), ")"));
  }
  if (self.sizes()[2] != mat2.sizes()[1]) {
    throw Error(
        str_cat(op, ": batch1 and batch2 shapes cannot be multiplied (", dims_x(self), " and ", dims_x(mat2), ")"));
  }
  return DimVector({self.sizes()[0], self.sizes()[1], mat2.sizes()[2]});
}

DimVector addmm_shape(const char* op, const Tensor& self, const Tensor& mat1, const Tensor& mat2) {
  check_defined(op, "self", self);
  DimVector shape = mm_shape(op, mat1, mat2);
  check_same(op, "self", self, "mat1", mat1);
  bool ok = self.dim() <= 2;
  for (int64_t i = 0; ok && i < self.dim(); ++i) {
    const int64_t have = self.sizes()[self.dim() - 1 - i];
    ok = have == 1 || have == shape[1 - i];
  }
  if (!ok) {
    throw Error(str_cat(op, ": self of shape ", shape_to_string(self.sizes()),
                        " cannot be broadcast to the product's shape ", shape_to_string(shape)));
  }
  return shape;
}

std::pair<double, double> addmm_factors(const char* op, const Scalar& beta, const Scalar& alpha, ScalarType dtype) {
  for (const Scalar* s : {&beta, &alpha}) {
    if (!is_floating_point(dtype) && s->is_floating_point()) {
      throw Error(str_cat(op, ": ", s == &beta ? "beta" : "alpha", " must be an integer for integer tensors, got ",
                          s->to_string()));
    }
  }
  return {beta.to_double(), alpha.to_double()};
}

void check_dot(const char* op, const Tensor& self, const Tensor& other) {
  check_rank(op, "self", self, 1, "a 1-D vector");
  check_rank(op, "tensor", other, 1, "a 1-D vector");
  check_same(op, "self", self, "tensor", other);
  check_numeric(op, self);
  if (self.numel() != other.numel()) {
    throw Error(str_cat(op, ": self and tensor must have the same number of elements, got shapes ",
                        shape_to_string(self.sizes()), " and ", shape_to_string(other.sizes())));
  }
}

void check_floating(const char* op, const char* arg, const Tensor& t) {
  if (!is_floating_point(t.dtype())) {
    throw Error(str_cat(op, ": ", arg, " must be a floating-point tensor (float32, float64, float16, bfloat16), got ",
                        to_string(t.dtype()), " of shape ", shape_to_string(t.sizes())));
  }
}

Conv2dShape conv2d_shape(const char* op, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                         IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  check_defined(op, "input", input);
  if (input.dim() != 3 && input.dim() != 4) {
    throw Error(str_cat(op, ": expected a 3-D (unbatched) or 4-D (batched) input, got input of shape ",
                        shape_to_string(input.sizes())));
  }
  check_rank(op, "weight", weight, 4, "4-D [out_channels, in_channels / groups, kh, kw]");
  check_floating(op, "input", input);
  check_same(op, "input", input, "weight", weight);
  if (bias && bias->defined()) {
    check_same(op, "input", input, "bias", *bias);
    if (bias->dim() != 1 || bias->sizes()[0] != weight.sizes()[0]) {
      throw Error(str_cat(op, ": bias must be 1-D with out_channels = ", weight.sizes()[0], " elements, got shape ",
                          shape_to_string(bias->sizes())));
    }
  }
  Conv2dShape s{};
  s.batched = input.dim() == 4;
  const DimVector& in = input.sizes();
  const int64_t c = s.batched ? 1 : 0;  // the channel dim
  s.batch = s.batched ? in[0] : 1;
  s.in_channels = in[c];
  s.height = in[c + 1];
  s.width = in[c + 2];
  s.out_channels = weight.sizes()[0];
  s.groups = groups;
  if (groups < 1) throw Error(str_cat(op, ": groups must be positive, got ", groups));
  s.window = {{weight.sizes()[2], weight.sizes()[3]},
              pair(op, "stride", stride, std::nullopt, 1),
              pair(op, "padding", padding, std::nullopt, 0),
              pair(op, "dilation", dilation, std::nullopt, 1)};
  if (s.out_channels % groups != 0) {
    throw Error(str_cat(op, ": out_channels (", s.out_channels, ", weight of shape ", shape_to_string(weight.sizes()),
                        ") must be divisible by groups (", groups, ")"));
  }
  if (s.in_channels != weight.sizes()[1] * groups) {
    throw Error(str_cat(op, ": input of shape ", shape_to_string(input.sizes()), " has ", s.in_channels,
                        " channels, but weight of shape ", shape_to_string(weight.sizes()), " with groups=", groups,
                        " expects ", weight.sizes()[1] * groups));
  }
  const Window2d& w = s.window;
  int64_t out[2];
  for (int d = 0; d < 2; ++d) {
    const int64_t padded = (d ? s.width : s.height) + 2 * w.padding[d];
    const int64_t span = w.dilation[d] * (w.kernel[d] - 1) + 1;
    if (padded < span) {
      throw Error(str_cat(op, ": input of shape ", shape_to_string(input.sizes()), " (", s.height + 2 * w.padding[0],
                          "x", s.width + 2 * w.padding[1], " with padding) is smaller than the dilated kernel (",
                          w.dilation[0] * (w.kernel[0] - 1) + 1, "x", w.dilation[1] * (w.kernel[1] - 1) + 1, ")"));
    }
    out[d] = (padded - span) / w.stride[d] + 1;
  }
  s.out_height = out[0];
  s.out_width = out[1];
  if (s.batched) s.output = DimVector({s.batch, s.out_channels, s.out_height, s.out_width});
  else s.output = DimVector({s.out_channels, s.out_height, s.out_width});
  return s;
}

Pool2dShape pool2d_shape(const char* op, const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                         IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  check_defined(op, "self", input);
  const int64_t nd = input.dim();
  bool ok = nd == 3 || nd == 4;
  for (int64_t d = nd - 3; ok && d < nd; ++d) ok = input.sizes()[d] > 0;
  if (!ok) {
    throw Error(str_cat(op, ": expected a 3-D [C, H, W] or 4-D [N, C, H, W] input with non-empty C, H and W, got ",
                        "shape ", shape_to_string(input.sizes())));
  }
  check_numeric(op, input);
  Pool2dShape s{};
  s.window.kernel = pair(op, "kernel_size", kernel_size, std::nullopt, 1);
  s.window.stride = pair(op, "stride", stride, s.window.kernel, 1);
  s.window.padding = pair(op, "padding", padding, std::nullopt, 0);
  s.window.dilation = pair(op, "dilation", dilation, std::nullopt, 1);
  s.ceil_mode = ceil_mode;
  s.planes = nd == 4 ? input.sizes()[0] * input.sizes()[1] : input.sizes()[0];
  s.height = input.sizes()[nd - 2];
  s.width = input.sizes()[nd - 1];
  const Window2d& w = s.window;
  int64_t out[2];
  for (int d = 0; d < 2; ++d) {
    if (w.padding[d] * 2 > w.kernel[d]) {
      throw Error(str_cat(op, ": padding ", shape_to_string(w.padding), " must be at most half of kernel_size ",
                          shape_to_string(w.kernel)));
    }
    const int64_t size = d ? s.width : s.height;
    const int64_t room = size + 2 * w.padding[d] - w.dilation[d] * (w.kernel[d] - 1) - 1;
    int64_t o = room < 0 ? 0 : (room + (ceil_mode ? w.stride[d] - 1 : 0)) / w.stride[d] + 1;
    // A last window must start inside the input or its left padding.
    if (ceil_mode && o > 0 && (o - 1) * w.stride[d] >= size + w.padding[d]) --o;
    if (o < 1) {
      throw Error(str_cat(op, ": input of shape ", shape_to_string(input.sizes()), " is too small for kernel_size ",
                          shape_to_string(w.kernel), " with padding ", shape_to_string(w.padding), " and dilation ",
                          shape_to_string(w.dilation)));
    }
    out[d] = o;
  }
  s.out_height = out[0];
  s.out_width = out[1];
  s.output = DimVector(input.sizes());
  s.output[nd - 2] = s.out_height;
  s.output[nd - 1] = s.out_width;
  return s;
}

Pool2dShape avg_pool2d_shape(const char* op, const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                             IntArrayRef padding, bool ceil_mode) {
  static constexpr int64_t no_dilation[] = {1};
  Pool2dShape s = pool2d_shape(op, input, kernel_size, stride, padding, no_dilation, ceil_mode);
  check_floating(op, "self", input);
  return s;
}

LayerNormShape layer_norm_shape(const char* op, const Tensor& input, IntArrayRef normalized_shape,
                                const std::optional<Tensor>& weight, const std::optional<Tensor>& bias) {
  check_defined(op, "input", input);
  check_floating(op, "input", input);
  const int64_t k = static_cast<int64_t>(normalized_shape.size()), nd = input.dim();
  if (k == 0) throw Error(str_cat(op, ": normalized_shape must name at least one dimension, got []"));
  if (nd < k || !std::equal(normalized_shape.begin(), normalized_shape.end(), input.sizes().end() - k)) {
    throw Error(str_cat(op, ": input of shape ", shape_to_string(input.sizes()), " does not end with normalized_shape ",
                        shape_to_string(normalized_shape)));
  }
  for (const auto* p : {&weight, &bias}) {
    if (!*p || !(*p)->defined()) continue;
    const char* name = p == &weight ? "weight" : "bias";
    check_same(op, "input", input, name, **p);
    if (!std::equal((*p)->sizes().begin(), (*p)->sizes().end(), normalized_shape.begin(), normalized_shape.end())) {
      throw Error(str_cat(op, ": ", name, " of shape ", shape_to_string((*p)->sizes()), " must have normalized_shape ",
                          shape_to_string(normalized_shape)));
    }
  }
  LayerNormShape s{1, 1, DimVector(input.sizes())};
  for (int64_t d = 0; d < nd; ++d) {
    if (d < nd - k) s.rows *= input.sizes()[d];
    else {
      s.cols *= input.sizes()[d];
      s.stats[d] = 1;
    }
  }
  return s;
}

}  // namespace glassbox

// ---- Meta kernels: the checks above with no compute, and results of the shapes and dtypes they give.
namespace glassbox::native {

namespace {
Tensor meta(std::span<const int64_t> shape, ScalarType dtype) {
  return empty_tensor(shape, dtype, Device(DeviceType::Meta));
}
}  // namespace

Tensor mm_meta(const Tensor& self, const Tensor& mat2) { return meta(mm_shape("mm", self, mat2), self.dtype()); }
Tensor& mm_out_meta(const Tensor& self, const Tensor& mat2, Tensor& out) {
  check_out("mm.out", out, mm_shape("mm.out", self, mat2), self.dtype(), self.device());
  return out;
}

Tensor bmm_meta(const Tensor& self, const Tensor& mat2) { return meta(bmm_shape("bmm", self, mat2), self.dtype()); }
Tensor& bmm_out_meta(const Tensor& self, const Tensor& mat2, Tensor& out) {
  check_out("bmm.out", out, bmm_shape("bmm.out", self, mat2), self.dtype(), self.device());
  return out;
}

Tensor addmm_meta(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  const DimVector shape = addmm_shape("addmm", self, mat1, mat2);
  addmm_factors("addmm", beta, alpha, self.dtype());
  return meta(shape, self.dtype());
}
Tensor& addmm_out_meta(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                       const Scalar& alpha, Tensor& out) {
  check_out("addmm.out", out, addmm_shape("addmm.out", self, mat1, mat2), self.dtype(), self.device());
  addmm_factors("addmm.out", beta, alpha, self.dtype());
  return out;
}

Tensor dot_meta(const Tensor& self, const Tensor& tensor) {
  check_dot("dot", self, tensor);
  return meta({}, self.dtype());
}

}  // namespace glassbox::native
