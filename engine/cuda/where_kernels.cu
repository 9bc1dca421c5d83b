// where on CUDA: a bool condition next to two values of the result dtype. Not structured: an out=
// of another dtype is written through a temporary (where_iterator in engine/ops).
#include "engine/core/error.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/pointwise_iterator.h"
#include "glassbox/ops/native/where.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

struct Select {
  template <class C>
  __device__ C operator()(bool c, C a, C b) const {
    return c ? a : b;
  }
};

Tensor& where_into(const char* name, const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  DeviceGuard guard(condition.device().index);
  WhereIterator w = where_iterator(name, condition, self, other, out);
  visit_scalar_device_type(w.result.dtype(), [&]<class T>() { launch_elementwise<T, bool, T, T>(w.it, Select{}); });
  if (out.defined() && !out.is_same(w.result)) copy_between(out, w.result);  // out= of another dtype
  else out = w.result;
  mark_written(out);
  return out;
}
}  // namespace

Tensor where_cuda(const Tensor& condition, const Tensor& self, const Tensor& other) {
  Tensor out;
  return where_into("where", condition, self, other, out);
}
Tensor& where_out_cuda(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  return where_into("where.out", condition, self, other, out);
}

}  // namespace glassbox::native
