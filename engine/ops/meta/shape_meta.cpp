// Meta kernels of the factories, random fills, cat, flip, roll, tril and triu: the same shape,
// dtype and argument inference as the CPU kernels, and no data.
#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/ops/factories.h"
#include "engine/ops/factory_options.h"
#include "engine/ops/join_reorder_shape.h"
#include "engine/ops/random_ops.h"
#include "glassbox/ops/native/arange.h"
#include "glassbox/ops/native/bernoulli.h"
#include "glassbox/ops/native/cat.h"
#include "glassbox/ops/native/empty_strided.h"
#include "glassbox/ops/native/eye.h"
#include "glassbox/ops/native/flip.h"
#include "glassbox/ops/native/linspace.h"
#include "glassbox/ops/native/normal.h"
#include "glassbox/ops/native/random.h"
#include "glassbox/ops/native/roll.h"
#include "glassbox/ops/native/tril.h"
#include "glassbox/ops/native/triu.h"
#include "glassbox/ops/native/uniform.h"

namespace glassbox::native {

namespace {
const Device kMeta(DeviceType::Meta);
Tensor meta_like(const Tensor& t) { return empty_tensor(t.sizes(), t.dtype(), kMeta); }
}  // namespace

// ---- factories
Tensor empty_strided_meta(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                          std::optional<Device>) {
  check_empty_strided(size, stride);
  return empty_strided_tensor(size, stride, dtype_or_default(dtype), kMeta);
}

Tensor& arange_out_meta(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  const int64_t length[] = {arange_length(start, end, step)};
  check_out_shape("arange.out", out, length);
  return out;
}

Tensor& linspace_out_meta(const Scalar&, const Scalar&, int64_t steps, Tensor& out) {
  check_linspace_steps(steps);
  const int64_t length[] = {steps};
  check_out_shape("linspace.out", out, length);
  return out;
}

Tensor& eye_out_meta(int64_t n, int64_t m, Tensor& out) {
  check_eye_sizes(n, m);
  const int64_t shape[] = {n, m};
  check_out_shape("eye.out", out, shape);
  return out;
}

// ---- random fills: the argument checks only (a meta tensor has no values to draw)
Tensor& uniform_meta_(Tensor& self, double from, double to) {
  check_floating_dtype("uniform_", self.dtype());
  check_uniform_range("uniform_", from, to);
  return self;
}
Tensor& normal_meta_(Tensor& self, double, double std) {
  check_floating_dtype("normal_", self.dtype());
  check_normal_std("normal_", std);
  return self;
}
Tensor& bernoulli_float_meta_(Tensor& self, double p) {
  check_probability("bernoulli_", p);
  return self;
}
Tensor bernoulli_meta(const Tensor& self) {
  check_floating_dtype("bernoulli", self.dtype());
  return meta_like(self);
}
Tensor& random_from_meta_(Tensor& self, int64_t from, int64_t to) {
  check_random_range("random_", self.dtype(), from, to);
  return self;
}

// ---- joining and reordering
Tensor cat_meta(TensorList tensors, int64_t dim) {
  const CatResult r = cat_result("cat", tensors, dim);
  return empty_tensor(r.shape, r.dtype, kMeta);
}
Tensor& cat_out_meta(TensorList tensors, int64_t dim, Tensor& out) {
  check_cat_out(cat_result("cat.out", tensors, dim), out);
  return out;
}

Tensor flip_meta(const Tensor& self, IntArrayRef dims) {
  flip_dims(self, dims);
  return meta_like(self);
}
Tensor roll_meta(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  roll_plan(self, shifts, dims);
  return meta_like(self);
}

Tensor tril_meta(const Tensor& self, int64_t) {
  check_triangle_input("tril", self);
  return meta_like(self);
}
Tensor triu_meta(const Tensor& self, int64_t) {
  check_triangle_input("triu", self);
  return meta_like(self);
}
Tensor& tril_meta_(Tensor& self, int64_t) {
  check_triangle_input("tril_", self);
  return self;
}
Tensor& triu_meta_(Tensor& self, int64_t) {
  check_triangle_input("triu_", self);
  return self;
}

}  // namespace glassbox::native
