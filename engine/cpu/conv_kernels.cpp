// conv2d and its backward on the CPU, as im2col + gemm: each sample's receptive fields are laid
// out as the columns of a [C/groups * kh * kw, out_h * out_w] matrix, and one product per sample
// and group with the weight gives the output (the backward: the transposed products, and col2im
// to scatter column gradients back onto the input). float16/bfloat16 compute in float32.
#include <algorithm>
#include <vector>

#include "engine/core/empty.h"
#include "engine/core/parallel.h"
#include "engine/cpu/blas.h"
#include "engine/ops/linalg_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/conv2d.h"
#include "glassbox/ops/native/convolution_backward.h"

namespace glassbox::native {

namespace {

using cpu::MatrixView;

ScalarType compute_dtype(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 ? ScalarType::Float32 : t;
}
// t in the compute dtype, contiguous (a no-op for contiguous float32/float64 tensors).
Tensor prepared(const Tensor& t) { return t.to(compute_dtype(t.dtype())).contiguous(); }

// Geometry of one sample and group: channels, input plane, output plane, window.
struct Plane {
  int64_t channels, height, width, out_height, out_width;
  Window2d w;
  int64_t rows() const { return channels * w.kernel[0] * w.kernel[1]; }
  int64_t cols() const { return out_height * out_width; }
  // 1x1 kernels with unit stride and no padding read the input itself as the column matrix.
  bool pointwise() const {
    return w.kernel[0] == 1 && w.kernel[1] == 1 && w.stride[0] == 1 && w.stride[1] == 1 && w.padding[0] == 0 &&
           w.padding[1] == 0;
  }
};

Plane plane_of(const Conv2dShape& s) {
  return {s.in_channels / s.groups, s.height, s.width, s.out_height, s.out_width, s.window};
}

// col[(c, ki, kj), (y, x)] = in[c, y*stride - pad + ki*dilation, x*stride - pad + kj*dilation], 0 outside.
template <class T>
void im2col(const T* in, const Plane& p, T* col) {
  const int64_t kh = p.w.kernel[0], kw = p.w.kernel[1], cols = p.cols();
  parallel_for(0, p.rows(), std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(cols, 1)),
               [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t c = r / (kh * kw), ki = (r / kw) % kh, kj = r % kw;
      const T* src = in + c * p.height * p.width;
      for (int64_t y = 0; y < p.out_height; ++y) {
        T* dst = col + r * cols + y * p.out_width;
        const int64_t iy = y * p.w.stride[0] - p.w.padding[0] + ki * p.w.dilation[0];
        if (iy < 0 || iy >= p.height) {
          std::fill(dst, dst + p.out_width, T(0));
          continue;
        }
        for (int64_t x = 0; x < p.out_width; ++x) {
          const int64_t ix = x * p.w.stride[1] - p.w.padding[1] + kj * p.w.dilation[1];
          dst[x] = ix >= 0 && ix < p.width ? src[iy * p.width + ix] : T(0);
        }
      }
    }
  });
}

// The adjoint of im2col: in[c, iy, ix] += col[...] for every place im2col read it from.
template <class T>
void col2im(const T* col, const Plane& p, T* in) {
  const int64_t kh = p.w.kernel[0], kw = p.w.kernel[1], cols = p.cols();
  const int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(kh * kw * cols, 1));
  parallel_for(0, p.channels, grain, [&](int64_t lo, int64_t hi) {  // channels never share a plane
    for (int64_t c = lo; c < hi; ++c) {
      T* dst = in + c * p.height * p.width;
      for (int64_t ki = 0; ki < kh; ++ki) {
        for (int64_t kj = 0; kj < kw; ++kj) {
          const T* src = col + ((c * kh + ki) * kw + kj) * cols;
          for (int64_t y = 0; y < p.out_height; ++y) {
            const int64_t iy = y * p.w.stride[0] - p.w.padding[0] + ki * p.w.dilation[0];
            if (iy < 0 || iy >= p.height) continue;
            for (int64_t x = 0; x < p.out_width; ++x) {
              const int64_t ix = x * p.w.stride[1] - p.w.padding[1] + kj * p.w.dilation[1];
              if (ix >= 0 && ix < p.width) dst[iy * p.width + ix] += src[y * p.out_width + x];
            }
          }
        }
      }
    }
  });
}

template <class T>
void conv_forward(const Conv2dShape& s, const T* in, const T* weight, const T* bias, T* out) {
  const Plane p = plane_of(s);
  const int64_t g_out = s.out_channels / s.groups, K = p.rows(), L = p.cols();
  const ScalarType dtype = CppTypeToScalarType<T>::value;
  std::vector<T> col(p.pointwise() ? 0 : K * L);
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t g = 0; g < s.groups; ++g) {
      const T* in_ng = in + (n * s.in_channels + g * p.channels) * s.height * s.width;
      if (!p.pointwise()) im2col(in_ng, p, col.data());
      T* out_ng = out + (n * s.out_channels + g * g_out) * L;
      if (bias) {
        for (int64_t o = 0; o < g_out; ++o) std::fill(out_ng + o * L, out_ng + (o + 1) * L, bias[g * g_out + o]);
      }
      const MatrixView w{const_cast<T*>(weight) + g * g_out * K, g_out, K, K, 1};
      const MatrixView c{p.pointwise() ? const_cast<T*>(in_ng) : col.data(), K, L, L, 1};
      cpu::gemm(dtype, w, c, {out_ng, g_out, L, L, 1}, 1.0, bias ? 1.0 : 0.0);
    }
  }
}

template <class T>
void conv_backward(const Conv2dShape& s, const T* grad_out, const T* in, const T* weight, T* grad_in, T* grad_weight,
                   T* grad_bias) {
  const Plane p = plane_of(s);
  const int64_t g_out = s.out_channels / s.groups, K = p.rows(), L = p.cols();
  const ScalarType dtype = CppTypeToScalarType<T>::value;
  std::vector<T> col(p.pointwise() ? 0 : K * L), col_grad(p.pointwise() ? 0 : K * L);
  // grad_bias[o]: the sum of grad_output over samples and positions, accumulated in double.
  parallel_for(0, s.out_channels, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t o = lo; o < hi; ++o) {
      double sum = 0;
      for (int64_t n = 0; n < s.batch; ++n) {
        const T* src = grad_out + (n * s.out_channels + o) * L;
        for (int64_t i = 0; i < L; ++i) sum += src[i];
      }
      grad_bias[o] = static_cast<T>(sum);
    }
  });
  std::fill(grad_weight, grad_weight + s.out_channels * K, T(0));
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t g = 0; g < s.groups; ++g) {
      const int64_t in_offset = (n * s.in_channels + g * p.channels) * s.height * s.width;
      const T* in_ng = in + in_offset;
      if (!p.pointwise()) im2col(in_ng, p, col.data());
      const MatrixView go{const_cast<T*>(grad_out) + (n * s.out_channels + g * g_out) * L, g_out, L, L, 1};
      const MatrixView c{p.pointwise() ? const_cast<T*>(in_ng) : col.data(), K, L, L, 1};
      const MatrixView w{const_cast<T*>(weight) + g * g_out * K, g_out, K, K, 1};
      // grad_weight_g += grad_out_g @ col^T;  col_grad = weight_g^T @ grad_out_g.
      cpu::gemm(dtype, go, c.t(), {grad_weight + g * g_out * K, g_out, K, K, 1}, 1.0, 1.0);
      T* cg = p.pointwise() ? grad_in + in_offset : col_grad.data();
      cpu::gemm(dtype, w.t(), go, {cg, K, L, L, 1}, 1.0, 0.0);
      if (!p.pointwise()) col2im(col_grad.data(), p, grad_in + in_offset);
    }
  }
}

}  // namespace

Tensor conv2d_cpu(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const Conv2dShape s = conv2d_shape("conv2d", input, weight, bias, stride, padding, dilation, groups);
  const Tensor in = prepared(input), w = prepared(weight);
  const Tensor b = bias && bias->defined() ? prepared(*bias) : Tensor();
  Tensor out = empty_tensor(s.output, in.dtype(), input.device());
  visit_scalar_type(in.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      conv_forward<T>(s, in.data<T>(), w.data<T>(), b.defined() ? b.data<T>() : nullptr, out.data<T>());
  });
  return out.to(input.dtype());
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_cpu(const Tensor& grad_output, const Tensor& input,
                                                            const Tensor& weight, IntArrayRef stride,
                                                            IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const Conv2dShape s =
      convolution_backward_shape("convolution_backward", grad_output, input, weight, stride, padding, dilation, groups);
  const Tensor go = prepared(grad_output), in = prepared(input), w = prepared(weight);
  const ScalarType dtype = in.dtype();
  Tensor grad_in = glassbox::zeros(input.sizes(), dtype, input.device());
  Tensor grad_w = empty_tensor(weight.sizes(), dtype, input.device());
  const int64_t bias_shape[] = {s.out_channels};
  Tensor grad_b = empty_tensor(bias_shape, dtype, input.device());
  visit_scalar_type(dtype, [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      conv_backward<T>(s, go.data<T>(), in.data<T>(), w.data<T>(), grad_in.data<T>(), grad_w.data<T>(),
                       grad_b.data<T>());
  });
  return {grad_in.to(input.dtype()), grad_w.to(input.dtype()), grad_b.to(input.dtype())};
}

}  // namespace glassbox::native
