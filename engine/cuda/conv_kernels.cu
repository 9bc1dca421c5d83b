// conv2d and its backward on CUDA, as im2col + cuBLAS (through the CUDA bmm). The columns of the
// whole batch form one matrix per group, [G, C/G * kh * kw, N * out_h * out_w], so one batched
// product per call does every sample: out = weight_g @ col_g (then samples moved first), and the
// backward grad_weight_g = grad_out_g @ col_g^T (already summed over samples) and
// col_grad_g = weight_g^T @ grad_out_g, gathered back onto the input by col2im (one thread per
// input element, no atomics). float16/bfloat16 compute in float32, as on the CPU.
#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/elementwise.cuh"
#include "engine/ops/linalg_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/NativeFunctions.h"

namespace glassbox::native {

namespace {
using namespace glassbox::cuda;

struct ConvGeometry {
  int64_t n, c, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
  __host__ __device__ int64_t cols() const { return oh * ow; }
};
ConvGeometry geometry_of(const Conv2dShape& s) {
  const Window2d& w = s.window;
  return {s.batch,     s.in_channels, s.height,    s.width,      s.out_height, s.out_width,   w.kernel[0],
          w.kernel[1], w.stride[0],   w.stride[1], w.padding[0], w.padding[1], w.dilation[0], w.dilation[1]};
}

// col[(c, ki, kj), (n, oy, ox)] = in[n, c, oy*sh - ph + ki*dh, ox*sw - pw + kj*dw], 0 outside.
template <class T>
__global__ void im2col_kernel(const T* in, T* col, ConvGeometry g, int64_t total) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const int64_t L = g.cols(), l = i % L, n = (i / L) % g.n, r = i / (L * g.n);
  const int64_t c = r / (g.kh * g.kw), ki = (r / g.kw) % g.kh, kj = r % g.kw;
  const int64_t iy = l / g.ow * g.sh - g.ph + ki * g.dh, ix = l % g.ow * g.sw - g.pw + kj * g.dw;
  col[i] = iy >= 0 && iy < g.h && ix >= 0 && ix < g.w ? in[((n * g.c + c) * g.h + iy) * g.w + ix] : T(0);
}

// The adjoint: in[n, c, y, x] = the sum of the col entries im2col read from there.
template <class T>
__global__ void col2im_kernel(const T* col, T* in, ConvGeometry g, int64_t total) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const int64_t x = i % g.w, y = (i / g.w) % g.h, c = (i / (g.w * g.h)) % g.c, n = i / (g.w * g.h * g.c);
  const int64_t L = g.cols();
  T acc = 0;
  for (int64_t ki = 0; ki < g.kh; ++ki) {
    const int64_t ty = y + g.ph - ki * g.dh;
    if (ty < 0 || ty % g.sh != 0 || ty / g.sh >= g.oh) continue;
    for (int64_t kj = 0; kj < g.kw; ++kj) {
      const int64_t tx = x + g.pw - kj * g.dw;
      if (tx < 0 || tx % g.sw != 0 || tx / g.sw >= g.ow) continue;
      acc += col[((c * g.kh + ki) * g.kw + kj) * (g.n * L) + n * L + ty / g.sh * g.ow + tx / g.sw];
    }
  }
  in[i] = acc;
}

ScalarType compute_dtype(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 ? ScalarType::Float32 : t;
}
Tensor prepared(const Tensor& t) { return t.to(compute_dtype(t.dtype())).contiguous(); }

unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + 255) / 256); }

// The columns of `in` (compute dtype, contiguous) as [groups, rows / groups, N * L].
Tensor im2col(const Tensor& in, const ConvGeometry& g, int64_t groups) {
  const int64_t rows = g.c * g.kh * g.kw, total = rows * g.n * g.cols();
  const int64_t sizes[] = {groups, rows / groups, g.n * g.cols()};
  Tensor col = empty_tensor(sizes, in.dtype(), in.device());
  if (total == 0) return col;
  visit_floating_device_type(in.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      im2col_kernel<T><<<blocks_for(total), 256, 0, current_stream(in.device().index).handle()>>>(
          in.template data<T>(), col.template data<T>(), g, total);
      GB_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
  return col;
}
}  // namespace

Tensor conv2d_cuda(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const Conv2dShape s = conv2d_shape("conv2d", input, weight, bias, stride, padding, dilation, groups);
  DeviceGuard guard(input.device().index);
  const ConvGeometry g = geometry_of(s);
  const Tensor in = prepared(input), w = prepared(weight);
  const int64_t O = s.out_channels, L = g.cols(), K = g.c / groups * g.kh * g.kw;
  const int64_t w_sizes[] = {groups, O / groups, K};
  const Tensor prod = glassbox::bmm(glassbox::reshape(w, w_sizes), im2col(in, g, groups));  // [G, O/G, N*L]
  const int64_t onl[] = {O, g.n, L}, perm[] = {1, 0, 2}, nol[] = {g.n, O, L};
  Tensor out = glassbox::permute(glassbox::reshape(prod, onl), perm);
  if (bias && bias->defined()) {
    const int64_t b_sizes[] = {1, O, 1};
    out = glassbox::add(out, glassbox::reshape(prepared(*bias), b_sizes));
  }
  Tensor result = empty_tensor(nol, in.dtype(), input.device());
  copy_between(result, out);
  return glassbox::reshape(result, s.output).to(input.dtype());
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_cuda(const Tensor& grad_output, const Tensor& input,
                                                             const Tensor& weight, IntArrayRef stride,
                                                             IntArrayRef padding, IntArrayRef dilation,
                                                             int64_t groups) {
  const Conv2dShape s =
      convolution_backward_shape("convolution_backward", grad_output, input, weight, stride, padding, dilation, groups);
  DeviceGuard guard(input.device().index);
  const ConvGeometry g = geometry_of(s);
  const Tensor in = prepared(input), w = prepared(weight);
  const ScalarType dtype = in.dtype();
  const int64_t O = s.out_channels, L = g.cols(), K = g.c / groups * g.kh * g.kw;
  // grad_output as [G, O/G, N*L]: channels first.
  const int64_t nol[] = {g.n, O, L}, perm[] = {1, 0, 2}, go_sizes[] = {groups, O / groups, g.n * L};
  const Tensor go =
      glassbox::reshape(glassbox::permute(glassbox::reshape(grad_output.to(dtype), nol), perm).contiguous(), go_sizes);
  const int64_t w_sizes[] = {groups, O / groups, K};
  const Tensor w3 = glassbox::reshape(w, w_sizes);
  const Tensor col = im2col(in, g, groups);
  const Tensor grad_w = glassbox::reshape(glassbox::bmm(go, glassbox::transpose(col, 1, 2)), weight.sizes());
  const Tensor col_grad = glassbox::bmm(glassbox::transpose(w3, 1, 2), go).contiguous();  // [G, K, N*L]
  Tensor grad_in = empty_tensor(input.sizes(), dtype, input.device());
  const int64_t total = grad_in.numel();
  if (total > 0) {
    visit_floating_device_type(dtype, [&]<class T>() {
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        col2im_kernel<T><<<blocks_for(total), 256, 0, current_stream(input.device().index).handle()>>>(
            col_grad.template data<T>(), grad_in.template data<T>(), g, total);
        GB_CUDA_KERNEL_LAUNCH_CHECK();
      }
    });
  }
  const int64_t o_sizes[] = {O, g.n * L}, last[] = {1};
  const Tensor grad_b = glassbox::sum(glassbox::reshape(go, o_sizes), IntArrayRef(last));
  return {grad_in.to(input.dtype()), grad_w.to(input.dtype()), grad_b.to(input.dtype())};
}

}  // namespace glassbox::native
