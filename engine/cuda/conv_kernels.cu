// conv2d and its backward on CUDA. Through cuDNN when glassbox is built with it and it is enabled
// (the operators cudnn_convolution and cudnn_convolution_backward, engine/cuda/cudnn_convolution.cpp;
// a dispatch trace shows the call); otherwise, and for tensors too large for cuDNN's descriptors,
// as im2col + cuBLAS (through the CUDA bmm), in float32 or float64. The columns of the
// whole batch form one matrix per group, [G, C/G * kh * kw, N * out_h * out_w], so one batched
// product per call does every sample: out = weight_g @ col_g (then samples moved first), and the
// backward grad_weight_g = grad_out_g @ col_g^T (already summed over samples) and
// col_grad_g = weight_g^T @ grad_out_g, gathered back onto the input by col2im (one thread per
// input element, no atomics). im2col and col2im are engine/ops/kernels/conv.h's; the front end is
// engine/ops/conv.cpp.
#include <limits>

#include "engine/core/empty.h"
#include "engine/cuda/cudnn_settings.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/cuda/for_each_launch.cuh"
#include "engine/ops/kernels/conv.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::cuda {

namespace {
using namespace kernels;

// The columns of `in` as [groups, rows / groups, N * L].
Tensor im2col(const Tensor& in, const ConvPlan& g, int64_t groups) {
  const int64_t rows = g.c * g.kh * g.kw;
  const int64_t sizes[] = {groups, rows / groups, g.n * g.cols()};
  Tensor col = empty_tensor(sizes, in.dtype(), in.device());
  visit_floating_device_type(in.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      for_each_index(in.device().index, col.numel(), Im2col<T>{g, in.template data<T>(), col.template data<T>()});
  });
  return col;
}

// Whether cuDNN does this convolution: enabled, something to compute, and every tensor's element
// count within its descriptors' int.
bool through_cudnn(const Conv2dShape& s, const Tensor& in, const Tensor& weight) {
  if (!use_cudnn() || in.numel() == 0 || weight.numel() == 0) return false;
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  return in.numel() <= kMax && weight.numel() <= kMax && s.batch * s.out_channels * s.out_height * s.out_width <= kMax;
}

bool is_reduced(ScalarType t) { return t == ScalarType::Float16 || t == ScalarType::BFloat16; }
Tensor in_float32(const Tensor& t) { return t.defined() && is_reduced(t.dtype()) ? t.to(ScalarType::Float32) : t; }

Tensor im2col_forward(const Conv2dShape& s, const Tensor& in, const Tensor& weight, const Tensor& bias);
std::tuple<Tensor, Tensor, Tensor> im2col_backward(const Conv2dShape& s, const Tensor& grad_out, const Tensor& in,
                                                   const Tensor& weight);

// The front end (engine/ops/conv.cpp) converts the results back to the operands' dtype.
Tensor forward(const Conv2dShape& s, const Tensor& in, const Tensor& weight, const Tensor& bias) {
  if (through_cudnn(s, in, weight)) {
    const Window2d& w = s.window;
    return glassbox::cudnn_convolution(in, weight, bias.defined() ? std::optional<Tensor>(bias) : std::nullopt,
                                       w.stride, w.padding, w.dilation, s.groups);
  }
  return im2col_forward(s, in_float32(in), in_float32(weight), in_float32(bias));
}

std::tuple<Tensor, Tensor, Tensor> backward(const Conv2dShape& s, const Tensor& grad_out, const Tensor& in,
                                            const Tensor& weight) {
  if (through_cudnn(s, in, weight)) {
    const Window2d& w = s.window;
    return glassbox::cudnn_convolution_backward(grad_out, in, weight, w.stride, w.padding, w.dilation, s.groups);
  }
  return im2col_backward(s, in_float32(grad_out), in_float32(in), in_float32(weight));
}

Tensor im2col_forward(const Conv2dShape& s, const Tensor& in, const Tensor& weight, const Tensor& bias) {
  DeviceGuard guard(in.device().index);
  const ConvPlan g = conv_plan(s);
  const int64_t O = s.out_channels, L = g.cols(), K = g.c / s.groups * g.kh * g.kw;
  const int64_t w_sizes[] = {s.groups, O / s.groups, K};
  const Tensor prod = glassbox::bmm(glassbox::reshape(weight, w_sizes), im2col(in, g, s.groups));  // [G, O/G, N*L]
  const int64_t onl[] = {O, g.n, L}, perm[] = {1, 0, 2}, nol[] = {g.n, O, L};
  Tensor out = glassbox::permute(glassbox::reshape(prod, onl), perm);
  if (bias.defined()) {
    const int64_t b_sizes[] = {1, O, 1};
    out = glassbox::add(out, glassbox::reshape(bias, b_sizes));
  }
  Tensor result = empty_tensor(nol, in.dtype(), in.device());
  copy_between(result, out);
  return glassbox::reshape(result, s.output);
}

std::tuple<Tensor, Tensor, Tensor> im2col_backward(const Conv2dShape& s, const Tensor& grad_out, const Tensor& in,
                                                   const Tensor& weight) {
  DeviceGuard guard(in.device().index);
  const ConvPlan g = conv_plan(s);
  const int64_t O = s.out_channels, L = g.cols(), K = g.c / s.groups * g.kh * g.kw;
  // grad_output as [G, O/G, N*L]: channels first.
  const int64_t nol[] = {g.n, O, L}, perm[] = {1, 0, 2}, go_sizes[] = {s.groups, O / s.groups, g.n * L};
  const Tensor go = glassbox::reshape(glassbox::permute(glassbox::reshape(grad_out, nol), perm).contiguous(), go_sizes);
  const int64_t w_sizes[] = {s.groups, O / s.groups, K};
  const Tensor w3 = glassbox::reshape(weight, w_sizes);
  const Tensor col = im2col(in, g, s.groups);
  const Tensor grad_w = glassbox::reshape(glassbox::bmm(go, glassbox::transpose(col, 1, 2)), weight.sizes());
  const Tensor col_grad = glassbox::bmm(glassbox::transpose(w3, 1, 2), go).contiguous();  // [G, K, N*L]
  Tensor grad_in = empty_tensor(in.sizes(), in.dtype(), in.device());
  visit_floating_device_type(in.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      for_each_index(in.device().index, grad_in.numel(),
                     Col2im<T>{g, col_grad.template data<T>(), grad_in.template data<T>()});
    }
  });
  const int64_t o_sizes[] = {O, g.n * L}, last[] = {1};
  return {grad_in, grad_w, glassbox::sum(glassbox::reshape(go, o_sizes), IntArrayRef(last))};
}

const char* library() { return use_cudnn() ? "cuDNN" : "im2col + gemm (cuBLAS)"; }
// float16 and bfloat16 stay as they are while cuDNN takes them.
const ConvBackend kConv{forward, backward, use_cudnn, library};
const ConvBackends::Registration kRegistered(DeviceType::CUDA, kConv);
}  // namespace

}  // namespace glassbox::cuda
