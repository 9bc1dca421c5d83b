#include "engine/ops/join_reorder_shape.h"
#include "engine/core/empty.h"

#include <algorithm>
#include <vector>

#include "engine/core/error.h"
#include "engine/ops/out_arguments.h"
#include "engine/ops/tensor_iterator.h"
#include "engine/ops/view_geometry.h"

namespace glassbox {

namespace {
std::string describe(const Tensor& t) {
  return detail::str_cat(shape_to_string(t.sizes()), " (", to_string(t.dtype()), ")");
}
int category(ScalarType t) { return t == ScalarType::Bool ? 0 : is_floating_point(t) ? 2 : 1; }
}  // namespace

CatResult cat_result(const char* op, TensorList tensors, int64_t dim) {
  if (tensors.empty()) throw Error(detail::str_cat(op, ": expected a non-empty list of tensors"));
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (!t.defined()) throw Error(detail::str_cat(op, ": tensor at position ", i, " is undefined"));
    if (t.dim() == 0) {
      throw Error(detail::str_cat(op, ": zero-dimensional tensor (at position ", i, ") cannot be concatenated"));
    }
    if (!(t.device() == tensors[0].device())) {
      throw Error(detail::str_cat(op, ": expected all tensors on the same device, but got ",
                                  tensors[0].device().to_string(), " at position 0 and ", t.device().to_string(),
                                  " at position ", i));
    }
    if (!ref && !cat_skips(t)) ref = &t;
  }
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : tensors) ptrs.push_back(&t);
  CatResult r{DimVector{0}, result_type(ptrs), tensors[0].device(), 0};
  if (!ref) return r;  // only skipped [0] tensors: the result is empty too
  r.dim = wrap_dim(dim, ref->dim(), op);
  r.shape = ref->sizes();
  r.shape[r.dim] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (cat_skips(t)) continue;
    if (t.dim() != ref->dim()) {
      throw Error(detail::str_cat(op, ": tensors must have the same number of dimensions, but got ", describe(*ref),
                                  " and ", describe(t), " at position ", i));
    }
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d != r.dim && t.sizes()[d] != ref->sizes()[d]) {
        throw Error(detail::str_cat(op, ": sizes of tensors must match except in dimension ", r.dim, ": expected size ",
                                    ref->sizes()[d], " but got size ", t.sizes()[d], " in dimension ", d,
                                    " for tensor ", describe(t), " at position ", i));
      }
    }
    if (__builtin_add_overflow(r.shape[r.dim], t.sizes()[r.dim], &r.shape[r.dim])) {
      throw Error(detail::str_cat(op, ": the result's size in dimension ", r.dim, " overflows int64"));
    }
  }
  checked_numel(r.shape, op);
  return r;
}

void check_cat_out(const CatResult& r, const Tensor& out) {
  if (category(out.dtype()) < category(r.dtype)) {
    throw Error(detail::str_cat("cat.out: the result type ", to_string(r.dtype), " cannot be cast to out's dtype ",
                                to_string(out.dtype())));
  }
  if (!(out.device() == r.device)) {
    throw Error(detail::str_cat("cat.out: out is on ", out.device().to_string(), " but the inputs are on ",
                                r.device.to_string()));
  }
  resize_output("cat.out", out, r.shape);
  check_no_internal_overlap("cat.out", out);
}

DimVector flip_dims(const Tensor& self, IntArrayRef dims) {
  DimVector out;
  std::vector<bool> seen(std::max<int64_t>(self.dim(), 1), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, self.dim(), "flip");
    if (seen[w]) {
      throw Error(detail::str_cat("flip: dim ", w, " appears more than once in dims ", shape_to_string(dims),
                                  " (input ", describe(self), ")"));
    }
    seen[w] = true;
    out.push_back(w);
  }
  return out;
}

RollPlan roll_plan(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  RollPlan plan;
  const auto normalise = [](int64_t shift, int64_t size) {
    if (size == 0) return int64_t{0};
    const int64_t s = shift % size;
    return s < 0 ? s + size : s;
  };
  if (dims.empty()) {
    if (shifts.size() != 1) {
      throw Error(detail::str_cat("roll: without dims, shifts must hold exactly one value, but got ",
                                  shape_to_string(shifts), " (input ", describe(self), ")"));
    }
    plan.flattened = true;
    plan.shifts.push_back(normalise(shifts[0], self.numel()));
    return plan;
  }
  if (shifts.size() != dims.size()) {
    throw Error(detail::str_cat("roll: shifts and dims must have the same length, but got shifts ",
                                shape_to_string(shifts), " and dims ", shape_to_string(dims), " (input ",
                                describe(self), ")"));
  }
  plan.shifts = DimVector(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], self.dim(), "roll");
    const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
    plan.shifts[d] = normalise(plan.shifts[d] + normalise(shifts[i], size), size);
  }
  return plan;
}

void check_triangle_input(const char* op, const Tensor& self) {
  if (self.dim() < 2) {
    throw Error(detail::str_cat(op, ": the input must have at least 2 dimensions, but got ", describe(self)));
  }
}

}  // namespace glassbox
