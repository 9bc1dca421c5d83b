// max_pool2d_with_indices, avg_pool2d and their backward: one kernel each for CPU, CUDA and Meta.
// It checks (linalg_shape.cpp), allocates the results and hands contiguous operands to the device's
// PoolBackend (engine/ops/kernels/pool.h); Meta has none and gets the results unfilled.
#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/ops/kernels/pool.h"
#include "engine/ops/linalg_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/avg_pool2d.h"
#include "glassbox/ops/native/avg_pool2d_backward.h"
#include "glassbox/ops/native/max_pool2d_with_indices.h"
#include "glassbox/ops/native/max_pool2d_with_indices_backward.h"

namespace glassbox::native {

namespace {
using kernels::PoolBackend;
using kernels::PoolBackends;

kernels::PoolPlan plan_of(const Pool2dShape& s, bool count_include_pad = false) {
  const Window2d& w = s.window;
  return {s.planes,    s.height,    s.width,      s.out_height, s.out_width,   w.kernel[0],   w.kernel[1],
          w.stride[0], w.stride[1], w.padding[0], w.padding[1], w.dilation[0], w.dilation[1], count_include_pad};
}

// The backend that computes on `t`'s device when there is something to compute.
const PoolBackend* backend_for(const Tensor& t, const Tensor& result) {
  return result.numel() > 0 ? PoolBackends::of(t.device()) : nullptr;
}
}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices_generic(const Tensor& self, IntArrayRef kernel_size,
                                                           IntArrayRef stride, IntArrayRef padding,
                                                           IntArrayRef dilation, bool ceil_mode) {
  const Pool2dShape s =
      pool2d_shape("max_pool2d_with_indices", self, kernel_size, stride, padding, dilation, ceil_mode);
  Tensor out = empty_tensor(s.output, self.dtype(), self.device());
  Tensor indices = empty_tensor(s.output, ScalarType::Int64, self.device());
  if (const PoolBackend* b = backend_for(self, out)) b->max_pool(plan_of(s), self.contiguous(), out, indices);
  return {out, indices};
}

// The gradient is accumulated in max_pool_grad_t (wider than float16, bfloat16 and small integers).
Tensor max_pool2d_with_indices_backward_generic(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                                IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                bool ceil_mode, const Tensor& indices) {
  const char* op = "max_pool2d_with_indices_backward";
  const Pool2dShape s =
      max_pool2d_backward_shape(op, grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices);
  const PoolBackend* b = backend_for(self, grad_output);
  if (!b) return empty_tensor(self.sizes(), self.dtype(), self.device());
  ScalarType acc = self.dtype();
  visit_scalar_type(self.dtype(), [&]<class T>() { acc = CppTypeToScalarType<kernels::max_pool_grad_t<T>>::value; });
  Tensor grad = glassbox::zeros(self.sizes(), acc, self.device());
  const Tensor idx = indices.contiguous();
  if (const std::optional<int64_t> o = b->max_pool_backward(plan_of(s), grad_output.contiguous(), idx, grad)) {
    const int64_t flat[] = {-1};
    const int64_t at = glassbox::reshape(idx, flat).to(Device(DeviceType::CPU)).data<int64_t>()[*o];
    throw IndexError(
        detail::str_cat(op, ": index ", at, " is out of range for an input plane of ", s.height, "x", s.width));
  }
  return grad.to(self.dtype());
}

Tensor avg_pool2d_generic(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                          bool ceil_mode, bool count_include_pad) {
  const Pool2dShape s = avg_pool2d_shape("avg_pool2d", self, kernel_size, stride, padding, ceil_mode);
  Tensor out = empty_tensor(s.output, self.dtype(), self.device());
  if (const PoolBackend* b = backend_for(self, out)) b->avg_pool(plan_of(s, count_include_pad), self.contiguous(), out);
  return out;
}

Tensor avg_pool2d_backward_generic(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                   IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad) {
  const Pool2dShape s =
      avg_pool2d_backward_shape("avg_pool2d_backward", grad_output, self, kernel_size, stride, padding, ceil_mode);
  Tensor grad = empty_tensor(self.sizes(), self.dtype(), self.device());
  if (const PoolBackend* b = backend_for(self, grad))
    b->avg_pool_backward(plan_of(s, count_include_pad), grad_output.contiguous(), grad);
  return grad;
}

}  // namespace glassbox::native
