// gather, scatter, scatter_add, index_select and index_add_ on the CPU: one index per element
// along one dim. Shapes are checked by engine/ops/index_shape.cpp (the Meta kernels' functions);
// the loops are in index_loops.h.
#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cpu/index_loops.h"
#include "engine/ops/out_arguments.h"
#include "engine/ops/view_geometry.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/gather.h"
#include "glassbox/ops/native/index_add.h"
#include "glassbox/ops/native/index_select.h"
#include "glassbox/ops/native/scatter.h"
#include "glassbox/ops/native/scatter_add.h"

namespace glassbox::cpu {

void check_index_range(const Tensor& index, const IndexedDim& d) {
  const Tensor idx = index.contiguous();
  visit_index_type(idx.dtype(), [&]<class I>() {
    const I* p = idx.data<I>();
    for (int64_t i = 0; i < idx.numel(); ++i) {
      const int64_t v = p[i];
      if (v < -d.size || v >= d.size) throw_index_out_of_range(d.op, v, d.dim, d.size);
    }
  });
}

}  // namespace glassbox::cpu

namespace glassbox::native {

namespace {
cpu::IndexedDim indexed_dim(const char* op, const Tensor& t, int64_t dim) {
  return {t.strides()[dim] * static_cast<int64_t>(element_size(t.dtype())), t.sizes()[dim], op, dim};
}

// out[...] = self[..., index[...], ...]: operands out, self and index share `index`'s shape.
void gather_along(const char* op, const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor dst = out;
  const Tensor src = zero_stride_along(self, index.sizes(), dim);
  TensorIterator it = TensorIteratorConfig(op).add_output(&dst).add_input(src).add_input(index).keep_dtypes().build();
  const cpu::IndexedDim d = indexed_dim(op, self, dim);
  visit_element_size(self.dtype(), [&]<size_t B>() {
    visit_index_type(index.dtype(), [&]<class I>() { cpu::gather_bytes<B, I>(it, d); });
  });
}

// self[..., index[...], ...] = src[...] (or += alpha * src[...]); src and index share a shape.
// `index_values` holds the same values as index without its repetitions (what is range-checked).
void scatter_along(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& index_values,
                   const Tensor& src, bool accumulate, const Scalar& alpha) {
  const cpu::IndexedDim d = indexed_dim(op, self, dim);
  cpu::check_index_range(index_values, d);
  Tensor dst = zero_stride_along(self, index.sizes(), dim);
  TensorIterator it = TensorIteratorConfig(op).add_output(&dst).add_input(src).add_input(index).keep_dtypes().build();
  if (accumulate) {
    if (!is_floating_point(self.dtype()) && alpha.is_floating_point()) {
      throw Error(detail::str_cat(op, ": alpha must be an integer for ", to_string(self.dtype()), " tensors, got ",
                                       alpha.to_string()));
    }
    visit_scalar_type(self.dtype(), [&]<class T>() {
      visit_index_type(index.dtype(), [&]<class I>() { cpu::scatter_add_values<T, I>(it, d, cpu::scalar_as<T>(alpha)); });
    });
  } else {
    visit_element_size(self.dtype(), [&]<size_t B>() {
      visit_index_type(index.dtype(), [&]<class I>() { cpu::scatter_bytes<B, I>(it, d); });
    });
  }
  cpu::bump_version(self);
}

Tensor& scatter_src(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool add) {
  const int64_t d = check_scatter(op, self, dim, index, &src);
  const Tensor index1 = at_least_1d(index);
  scatter_along(op, at_least_1d(self), d, index1, index1, leading_block(at_least_1d(src), index1), add,
                Scalar(int64_t{1}));
  return self;
}

Tensor& scatter_value(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  const int64_t d = check_scatter(op, self, dim, index, nullptr);
  const Tensor index1 = at_least_1d(index);
  const DimVector zeros(index1.dim(), 0);
  const Tensor v = cpu::scalar_tensor(value, self.dtype());
  scatter_along(op, at_least_1d(self), d, index1, index1, restrided(v, index1.sizes(), zeros, 0), false,
                Scalar(int64_t{1}));
  return self;
}
}  // namespace

Tensor gather_cpu(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = check_gather("gather", self, dim, index);
  Tensor out = empty_tensor(index.sizes(), self.dtype(), self.device());
  gather_along("gather", at_least_1d(out), at_least_1d(self), d, at_least_1d(index));
  return out;
}

Tensor& scatter_src_cpu_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_no_internal_overlap("scatter_", self);
  return scatter_src("scatter_", self, dim, index, src, false);
}
Tensor& scatter_value_cpu_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  check_no_internal_overlap("scatter_", self);
  return scatter_value("scatter_", self, dim, index, value);
}
Tensor& scatter_add_cpu_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_no_internal_overlap("scatter_add_", self);
  return scatter_src("scatter_add_", self, dim, index, src, true);
}
// The out-of-place variants check first, so that a bad call costs no copy.
Tensor scatter_src_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter("scatter", self, dim, index, &src);
  Tensor out = glassbox::clone(self);
  return scatter_src("scatter", out, dim, index, src, false);
}
Tensor scatter_value_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  check_scatter("scatter", self, dim, index, nullptr);
  Tensor out = glassbox::clone(self);
  return scatter_value("scatter", out, dim, index, value);
}
Tensor scatter_add_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter("scatter_add", self, dim, index, &src);
  Tensor out = glassbox::clone(self);
  return scatter_src("scatter_add", out, dim, index, src, true);
}

Tensor index_select_cpu(const Tensor& self, int64_t dim, const Tensor& index) {
  const DimVector shape = index_select_shape("index_select", self, dim, index);
  const int64_t d = wrap_dim(dim, self.dim(), "index_select");
  Tensor out = empty_tensor(shape, self.dtype(), self.device());
  const Tensor out1 = at_least_1d(out);
  gather_along("index_select", out1, at_least_1d(self), d, index_along(at_least_1d(index), out1.sizes(), d));
  return out;
}

namespace {
Tensor& index_add(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                  const Scalar& alpha) {
  const int64_t d = check_index_add(op, self, dim, index, source);
  const Tensor source1 = at_least_1d(source), index1 = at_least_1d(index);
  scatter_along(op, at_least_1d(self), d, index_along(index1, source1.sizes(), d), index1, source1, true, alpha);
  return self;
}
}  // namespace

Tensor& index_add_cpu_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  check_no_internal_overlap("index_add_", self);
  return index_add("index_add_", self, dim, index, source, alpha);
}
Tensor index_add_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  check_index_add("index_add", self, dim, index, source);
  Tensor out = glassbox::clone(self);
  return index_add("index_add", out, dim, index, source, alpha);
}

}  // namespace glassbox::native
