// conv2d and its backward on the CPU, as im2col + gemm: each sample's receptive fields are laid
// out as the columns of a [C/groups * kh * kw, out_h * out_w] matrix, and one product per sample
// and group with the weight gives the output (the backward: the transposed products, and col2im
// to scatter column gradients back onto the input). The front end is engine/ops/conv.cpp; the
// taps are engine/ops/kernels/conv.h's, walked here row by row.
#include <algorithm>
#include <vector>

#include "engine/core/empty.h"
#include "engine/core/parallel.h"
#include "engine/cpu/blas.h"
#include "engine/cpu/conv_im2col.h"
#include "engine/ops/kernels/conv.h"
#include "glassbox/ops/Functions.h"

namespace glassbox::cpu {

namespace {
using kernels::ConvPlan;

// One sample and group: the plan with n = 1 and that group's channels.
struct Plane : ConvPlan {
  explicit Plane(const Conv2dShape& s) : ConvPlan(kernels::conv_plan(s)) {
    n = 1;
    c = s.in_channels / s.groups;
  }
  int64_t rows() const { return c * kh * kw; }
  // 1x1 kernels with unit stride and no padding read the input itself as the column matrix.
  bool pointwise() const { return kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0; }
};

// col[(c, ki, kj), (y, x)] = in[c, in_row(y, ki), in_col(x, kj)], 0 in the padding.
template <class T>
void im2col(const T* in, const Plane& p, T* col) {
  const int64_t cols = p.cols();
  parallel_for(0, p.rows(), std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(cols, 1)),
               [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t c = r / (p.kh * p.kw), ki = (r / p.kw) % p.kh, kj = r % p.kw;
      const T* src = in + c * p.h * p.w;
      for (int64_t y = 0; y < p.oh; ++y) {
        T* dst = col + r * cols + y * p.ow;
        const int64_t iy = p.in_row(y, ki);
        if (iy < 0 || iy >= p.h) {
          std::fill(dst, dst + p.ow, T(0));
          continue;
        }
        for (int64_t x = 0; x < p.ow; ++x) {
          const int64_t ix = p.in_col(x, kj);
          dst[x] = ix >= 0 && ix < p.w ? src[iy * p.w + ix] : T(0);
        }
      }
    }
  });
}

// The adjoint of im2col, scattered: in[c, iy, ix] += col[...] for every place im2col read it from.
template <class T>
void col2im(const T* col, const Plane& p, T* in) {
  const int64_t cols = p.cols();
  const int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(p.kh * p.kw * cols, 1));
  parallel_for(0, p.c, grain, [&](int64_t lo, int64_t hi) {  // channels never share a plane
    for (int64_t c = lo; c < hi; ++c) {
      T* dst = in + c * p.h * p.w;
      for (int64_t ki = 0; ki < p.kh; ++ki) {
        for (int64_t kj = 0; kj < p.kw; ++kj) {
          const T* src = col + ((c * p.kh + ki) * p.kw + kj) * cols;
          for (int64_t y = 0; y < p.oh; ++y) {
            const int64_t iy = p.in_row(y, ki);
            if (iy < 0 || iy >= p.h) continue;
            for (int64_t x = 0; x < p.ow; ++x) {
              const int64_t ix = p.in_col(x, kj);
              if (ix >= 0 && ix < p.w) dst[iy * p.w + ix] += src[y * p.ow + x];
            }
          }
        }
      }
    }
  });
}

template <class T>
void conv_forward(const Conv2dShape& s, const T* in, const T* weight, const T* bias, T* out) {
  const Plane p(s);
  const int64_t g_out = s.out_channels / s.groups, K = p.rows(), L = p.cols();
  const ScalarType dtype = CppTypeToScalarType<T>::value;
  std::vector<T> col(p.pointwise() ? 0 : K * L);
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t g = 0; g < s.groups; ++g) {
      const T* in_ng = in + (n * s.in_channels + g * p.c) * s.height * s.width;
      if (!p.pointwise()) im2col(in_ng, p, col.data());
      T* out_ng = out + (n * s.out_channels + g * g_out) * L;
      if (bias) {
        for (int64_t o = 0; o < g_out; ++o) std::fill(out_ng + o * L, out_ng + (o + 1) * L, bias[g * g_out + o]);
      }
      const MatrixView w{const_cast<T*>(weight) + g * g_out * K, g_out, K, K, 1};
      const MatrixView c{p.pointwise() ? const_cast<T*>(in_ng) : col.data(), K, L, L, 1};
      gemm(dtype, w, c, {out_ng, g_out, L, L, 1}, 1.0, bias ? 1.0 : 0.0);
    }
  }
}

template <class T>
void conv_backward(const Conv2dShape& s, const T* grad_out, const T* in, const T* weight, T* grad_in, T* grad_weight,
                   T* grad_bias) {
  const Plane p(s);
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
      const int64_t in_offset = (n * s.in_channels + g * p.c) * s.height * s.width;
      const T* in_ng = in + in_offset;
      if (!p.pointwise()) im2col(in_ng, p, col.data());
      const MatrixView go{const_cast<T*>(grad_out) + (n * s.out_channels + g * g_out) * L, g_out, L, L, 1};
      const MatrixView c{p.pointwise() ? const_cast<T*>(in_ng) : col.data(), K, L, L, 1};
      const MatrixView w{const_cast<T*>(weight) + g * g_out * K, g_out, K, K, 1};
      // grad_weight_g += grad_out_g @ col^T;  col_grad = weight_g^T @ grad_out_g.
      gemm(dtype, go, c.t(), {grad_weight + g * g_out * K, g_out, K, K, 1}, 1.0, 1.0);
      T* cg = p.pointwise() ? grad_in + in_offset : col_grad.data();
      gemm(dtype, w.t(), go, {cg, K, L, L, 1}, 1.0, 0.0);
      if (!p.pointwise()) col2im(col_grad.data(), p, grad_in + in_offset);
    }
  }
}

}  // namespace

Tensor im2col_conv_forward(const Conv2dShape& s, const Tensor& in, const Tensor& weight, const Tensor& bias) {
  Tensor out = empty_tensor(s.output, in.dtype(), in.device());
  visit_scalar_type(in.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      conv_forward<T>(s, in.data<T>(), weight.data<T>(), bias.defined() ? bias.data<T>() : nullptr, out.data<T>());
  });
  return out;
}

std::tuple<Tensor, Tensor, Tensor> im2col_conv_backward(const Conv2dShape& s, const Tensor& grad_out, const Tensor& in,
                                                        const Tensor& weight) {
  Tensor grad_in = glassbox::zeros(in.sizes(), in.dtype(), in.device());
  Tensor grad_w = empty_tensor(weight.sizes(), in.dtype(), in.device());
  const int64_t bias_shape[] = {s.out_channels};
  Tensor grad_b = empty_tensor(bias_shape, in.dtype(), in.device());
  visit_scalar_type(in.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      conv_backward<T>(s, grad_out.data<T>(), in.data<T>(), weight.data<T>(), grad_in.data<T>(), grad_w.data<T>(),
                       grad_b.data<T>());
  });
  return {grad_in, grad_w, grad_b};
}

}  // namespace glassbox::cpu
