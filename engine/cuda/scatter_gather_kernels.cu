// gather, scatter, scatter_add, index_select and index_add_ on CUDA, laid out as the CPU kernels
// are (engine/cpu/scatter_gather_kernels.cpp): the tensor read or written along `dim` gets stride 0
// there, TensorIterator walks (destination, source, index) over one shape, and each thread adds
// index * dim_stride bytes itself. Indices are range-checked on the device first, so a bad one
// throws the CPU's IndexError and nothing is written; adds are atomic.
#include "engine/cuda/index_launch.cuh"
#include "engine/ops/out_arguments.h"
#include "engine/ops/view_geometry.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/gather.h"
#include "glassbox/ops/native/index_add.h"
#include "glassbox/ops/native/index_select.h"
#include "glassbox/ops/native/scatter.h"
#include "glassbox/ops/native/scatter_add.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

// The indexed dim: its byte stride and size (the index is known to be within [-size, size)).
struct Along {
  int64_t stride_bytes;
  int64_t size;
  __device__ int64_t offset(int64_t raw) const { return (raw < 0 ? raw + size : raw) * stride_bytes; }
};

// (out, src, index): out = src at index.
template <size_t B, class I>
struct GatherFn {
  Along d;
  __device__ void operator()(char* (&p)[3]) const {
    const int64_t off = d.offset(static_cast<int64_t>(*reinterpret_cast<const I*>(p[2])));
    *reinterpret_cast<word_t<B>*>(p[0]) = *reinterpret_cast<const word_t<B>*>(p[1] + off);
  }
};
// (dst, src, index): dst at index = src.
template <size_t B, class I>
struct ScatterFn {
  Along d;
  __device__ void operator()(char* (&p)[3]) const {
    const int64_t off = d.offset(static_cast<int64_t>(*reinterpret_cast<const I*>(p[2])));
    *reinterpret_cast<word_t<B>*>(p[0] + off) = *reinterpret_cast<const word_t<B>*>(p[1]);
  }
};
// (dst, src, index): dst at index += alpha * src.
template <class T, class I>
struct ScatterAddFn {
  Along d;
  opmath_t<T> alpha;
  __device__ void operator()(char* (&p)[3]) const {
    const int64_t off = d.offset(static_cast<int64_t>(*reinterpret_cast<const I*>(p[2])));
    const opmath_t<T> v = to_opmath(*reinterpret_cast<const T*>(p[1]));
    if constexpr (std::is_same_v<T, bool>) atomic_add(reinterpret_cast<T*>(p[0] + off), alpha && v);
    else atomic_add(reinterpret_cast<T*>(p[0] + off), static_cast<opmath_t<T>>(alpha * v));
  }
};

Along along(const Tensor& t, int64_t dim) {
  return {t.strides()[dim] * static_cast<int64_t>(element_size(t.dtype())), t.sizes()[dim]};
}

// out[...] = self[..., index[...], ...]: operands out, self and index share `index`'s shape.
// `index_values` holds the same values as index without its repetitions (what is range-checked).
void gather_along(const char* op, const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index,
                  const Tensor& index_values) {
  check_index_range(op, index_values, dim, self.sizes()[dim]);
  Tensor dst = out;
  const Tensor src = zero_stride_along(self, index.sizes(), dim);
  TensorIterator it = TensorIteratorConfig(op).add_output(&dst).add_input(src).add_input(index).keep_dtypes().build();
  const Along d = along(self, dim);
  visit_element_size(self.dtype(), [&]<size_t B>() {
    visit_index_type(index.dtype(), [&]<class I>() { launch_with_operands<3>(it, GatherFn<B, I>{d}); });
  });
}

// self[..., index[...], ...] = src[...] (or += alpha * src[...]); src and index share a shape.
void scatter_along(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& index_values,
                   const Tensor& src, bool accumulate, const Scalar& alpha) {
  if (accumulate && !is_floating_point(self.dtype()) && alpha.is_floating_point()) {
    throw Error(::glassbox::detail::str_cat(op, ": alpha must be an integer for ", to_string(self.dtype()), " tensors, got ",
                                     alpha.to_string()));
  }
  check_index_range(op, index_values, dim, self.sizes()[dim]);
  Tensor dst = zero_stride_along(self, index.sizes(), dim);
  TensorIterator it = TensorIteratorConfig(op).add_output(&dst).add_input(src).add_input(index).keep_dtypes().build();
  const Along d = along(self, dim);
  if (accumulate) {
    visit_device_type(self.dtype(), [&]<class T>() {
      visit_index_type(index.dtype(), [&]<class I>() { launch_with_operands<3>(it, ScatterAddFn<T, I>{d, scalar_as<T>(alpha)}); });
    });
  } else {
    visit_element_size(self.dtype(), [&]<size_t B>() {
      visit_index_type(index.dtype(), [&]<class I>() { launch_with_operands<3>(it, ScatterFn<B, I>{d}); });
    });
  }
  mark_written(self);
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
  // The value as one element on the device, read by every thread.
  Tensor v = empty_tensor(DimVector{}, self.dtype(), self.device());
  glassbox::fill_(v, value);
  scatter_along(op, at_least_1d(self), d, index1, index1, restrided(v, index1.sizes(), zeros, 0), false,
                Scalar(int64_t{1}));
  return self;
}

Tensor& index_add(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                  const Scalar& alpha) {
  const int64_t d = check_index_add(op, self, dim, index, source);
  const Tensor source1 = at_least_1d(source), index1 = at_least_1d(index);
  scatter_along(op, at_least_1d(self), d, index_along(index1, source1.sizes(), d), index1, source1, true, alpha);
  return self;
}
}  // namespace

Tensor gather_cuda(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = check_gather("gather", self, dim, index);
  Tensor out = empty_tensor(index.sizes(), self.dtype(), self.device());
  const Tensor index1 = at_least_1d(index);
  gather_along("gather", at_least_1d(out), at_least_1d(self), d, index1, index1);
  return out;
}

Tensor& scatter_src_cuda_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_no_internal_overlap("scatter_", self);
  return scatter_src("scatter_", self, dim, index, src, false);
}
Tensor& scatter_value_cuda_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  check_no_internal_overlap("scatter_", self);
  return scatter_value("scatter_", self, dim, index, value);
}
Tensor& scatter_add_cuda_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_no_internal_overlap("scatter_add_", self);
  return scatter_src("scatter_add_", self, dim, index, src, true);
}
// The out-of-place variants check first, so that a bad call costs no copy.
Tensor scatter_src_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter("scatter", self, dim, index, &src);
  Tensor out = glassbox::clone(self);
  return scatter_src("scatter", out, dim, index, src, false);
}
Tensor scatter_value_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  check_scatter("scatter", self, dim, index, nullptr);
  Tensor out = glassbox::clone(self);
  return scatter_value("scatter", out, dim, index, value);
}
Tensor scatter_add_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter("scatter_add", self, dim, index, &src);
  Tensor out = glassbox::clone(self);
  return scatter_src("scatter_add", out, dim, index, src, true);
}

Tensor index_select_cuda(const Tensor& self, int64_t dim, const Tensor& index) {
  const DimVector shape = index_select_shape("index_select", self, dim, index);
  const int64_t d = wrap_dim(dim, self.dim(), "index_select");
  Tensor out = empty_tensor(shape, self.dtype(), self.device());
  const Tensor out1 = at_least_1d(out), index1 = at_least_1d(index);
  gather_along("index_select", out1, at_least_1d(self), d, index_along(index1, out1.sizes(), d), index1);
  return out;
}

Tensor& index_add_cuda_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  check_no_internal_overlap("index_add_", self);
  return index_add("index_add_", self, dim, index, source, alpha);
}
Tensor index_add_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  check_index_add("index_add", self, dim, index, source);
  Tensor out = glassbox::clone(self);
  return index_add("index_add", out, dim, index, source, alpha);
}

}  // namespace glassbox::native
