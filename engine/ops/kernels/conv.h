#pragma once
// conv2d as im2col + matrix products, the parts written once for both backends: the plan, where
// an output position's kernel tap reads the input, and im2col / col2im one element at a time
// (CUDA runs them one thread per element; the CPU walks the same taps row by row). The front end
// (engine/ops/conv.cpp) checks, converts the operands to the compute dtype and calls ConvBackend.
#include <cstdint>
#include <tuple>

#include "engine/core/host_device.h"
#include "engine/core/tensor.h"
#include "engine/ops/backend_table.h"
#include "engine/ops/linalg_shape.h"

namespace glassbox::kernels {

// n samples of c channels, h x w in, oh x ow out; kernel kh x kw, stride, padding, dilation.
struct ConvPlan {
  int64_t n, c, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
  GLASSBOX_HOST_DEVICE int64_t cols() const { return oh * ow; }
  // The input row (column) that output row oy (column ox) reads through kernel row ki (column kj);
  // outside [0, h) ([0, w)) it is padding.
  GLASSBOX_HOST_DEVICE int64_t in_row(int64_t oy, int64_t ki) const { return oy * sh - ph + ki * dh; }
  GLASSBOX_HOST_DEVICE int64_t in_col(int64_t ox, int64_t kj) const { return ox * sw - pw + kj * dw; }
};
inline ConvPlan conv_plan(const Conv2dShape& s) {
  const Window2d& w = s.window;
  return {s.batch,     s.in_channels, s.height,    s.width,      s.out_height, s.out_width,   w.kernel[0],
          w.kernel[1], w.stride[0],   w.stride[1], w.padding[0], w.padding[1], w.dilation[0], w.dilation[1]};
}

// col[(c, ki, kj), (s, oy, ox)] = in[s, c, in_row(oy, ki), in_col(ox, kj)], 0 in the padding.
template <class T>
struct Im2col {
  ConvPlan g;
  const T* in;
  T* col;
  GLASSBOX_HOST_DEVICE void operator()(int64_t i) const {
    const int64_t L = g.cols(), l = i % L, s = i / L % g.n, r = i / L / g.n;
    const int64_t c = r / (g.kh * g.kw), ki = r / g.kw % g.kh, kj = r % g.kw;
    const int64_t iy = g.in_row(l / g.ow, ki), ix = g.in_col(l % g.ow, kj);
    col[i] = iy >= 0 && iy < g.h && ix >= 0 && ix < g.w ? in[((s * g.c + c) * g.h + iy) * g.w + ix] : T(0);
  }
};

// The adjoint, gathered: in[s, c, y, x] = the sum of the col entries im2col read from there.
template <class T>
struct Col2im {
  ConvPlan g;
  const T* col;
  T* in;
  GLASSBOX_HOST_DEVICE void operator()(int64_t i) const {
    const int64_t x = i % g.w, y = i / g.w % g.h, c = i / g.w / g.h % g.c, s = i / g.w / g.h / g.c;
    const int64_t L = g.cols();
    T acc = 0;
    for (int64_t ki = 0; ki < g.kh; ++ki) {
      const int64_t ty = y + g.ph - ki * g.dh;
      if (ty < 0 || ty % g.sh != 0 || ty / g.sh >= g.oh) continue;
      for (int64_t kj = 0; kj < g.kw; ++kj) {
        const int64_t tx = x + g.pw - kj * g.dw;
        if (tx < 0 || tx % g.sw != 0 || tx / g.sw >= g.ow) continue;
        acc += col[((c * g.kh + ki) * g.kw + kj) * (g.n * L) + s * L + ty / g.sh * g.ow + tx / g.sw];
      }
    }
    in[i] = acc;
  }
};

// A backend's convolution on contiguous operands in the compute dtype: float32 or float64, and
// float16/bfloat16 as they are where reduced_precision() says so (otherwise in float32).
struct ConvBackend {
  // The output (shape s.output); bias may be undefined.
  Tensor (*forward)(const Conv2dShape& s, const Tensor& in, const Tensor& weight, const Tensor& bias);
  // (grad_input, grad_weight, grad_bias).
  std::tuple<Tensor, Tensor, Tensor> (*backward)(const Conv2dShape& s, const Tensor& grad_out, const Tensor& in,
                                                 const Tensor& weight);
  // Whether float16 and bfloat16 operands come as they are (cuDNN takes them); nullptr: never.
  bool (*reduced_precision)() = nullptr;
  // What computes it now: "im2col + gemm", "oneDNN", "cuDNN", ... (gb.backends.convolution_library).
  const char* (*library)() = nullptr;
};
using ConvBackends = BackendTable<ConvBackend>;

}  // namespace glassbox::kernels
