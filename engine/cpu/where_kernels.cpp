// where on the CPU: a bool condition next to two values of the result dtype. Not structured: an
// out= of another dtype is written through a temporary (where_iterator in engine/ops).
#include "engine/cpu/pointwise_kernel.h"
#include "engine/ops/copy.h"
#include "glassbox/ops/native/where.h"

namespace glassbox::native {

namespace {
Tensor& where_into(const char* op, const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  WhereIterator w = where_iterator(op, condition, self, other, out);
  visit_scalar_type(w.result.dtype(), [&]<class T>() {
    cpu::ternary_loop<T, bool, T, T>(w.it, [](bool c, auto a, auto b) { return c ? a : b; });
  });
  if (out.defined() && !out.is_same(w.result)) copy_(out, w.result);  // out= of another dtype
  else out = w.result;
  cpu::mark_written(out);
  return out;
}
}  // namespace

Tensor where_cpu(const Tensor& condition, const Tensor& self, const Tensor& other) {
  Tensor out;
  return where_into("where", condition, self, other, out);
}
Tensor& where_out_cpu(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  return where_into("where.out", condition, self, other, out);
}

}  // namespace glassbox::native
