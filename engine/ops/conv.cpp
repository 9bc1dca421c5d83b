// conv2d and convolution_backward: one kernel each for CPU, CUDA and Meta. It checks
// (linalg_shape.cpp), converts the operands to the compute dtype (float32 for float16/bfloat16,
// unless the backend takes those as they are), contiguous, and hands them to the device's
// ConvBackend (engine/ops/kernels/conv.h); Meta has none and gets results of the right shapes.
#include "engine/ops/kernels/conv.h"
#include "engine/core/empty.h"
#include "engine/ops/linalg_shape.h"
#include "glassbox/ops/native/conv2d.h"
#include "glassbox/ops/native/convolution_backward.h"

namespace glassbox::native {

namespace {
// t in the compute dtype of `backend`, contiguous (a no-op for contiguous float32/float64 tensors).
Tensor prepared(const Tensor& t, const kernels::ConvBackend& backend) {
  const bool reduced = t.dtype() == ScalarType::Float16 || t.dtype() == ScalarType::BFloat16;
  const bool as_is = !reduced || (backend.reduced_precision && backend.reduced_precision());
  return t.to(as_is ? t.dtype() : ScalarType::Float32).contiguous();
}
}  // namespace

Tensor conv2d_generic(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                      IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const Conv2dShape s = conv2d_shape("conv2d", input, weight, bias, stride, padding, dilation, groups);
  const kernels::ConvBackend* backend = kernels::ConvBackends::of(input.device());
  if (!backend) return empty_tensor(s.output, input.dtype(), input.device());
  const Tensor b = bias && bias->defined() ? prepared(*bias, *backend) : Tensor();
  return backend->forward(s, prepared(input, *backend), prepared(weight, *backend), b).to(input.dtype());
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_generic(const Tensor& grad_output, const Tensor& input,
                                                                const Tensor& weight, IntArrayRef stride,
                                                                IntArrayRef padding, IntArrayRef dilation,
                                                                int64_t groups) {
  const Conv2dShape s =
      convolution_backward_shape("convolution_backward", grad_output, input, weight, stride, padding, dilation, groups);
  const kernels::ConvBackend* backend = kernels::ConvBackends::of(input.device());
  if (!backend) {
    const int64_t bias_shape[] = {s.out_channels};
    return {empty_tensor(input.sizes(), input.dtype(), input.device()),
            empty_tensor(weight.sizes(), weight.dtype(), input.device()),
            empty_tensor(bias_shape, input.dtype(), input.device())};
  }
  auto [gi, gw, gb] =
      backend->backward(s, prepared(grad_output, *backend), prepared(input, *backend), prepared(weight, *backend));
  return {gi.to(input.dtype()), gw.to(input.dtype()), gb.to(input.dtype())};
}

}  // namespace glassbox::native
