// Layer normalisation on the CPU: each row (the trailing normalized_shape dims, flattened) is
// normalised to zero mean and unit variance, then scaled and shifted. Rows are spread over
// threads; sums accumulate in double so long rows of float32 (and halves) keep their precision.
#include <cmath>
#include <type_traits>
#include <vector>

#include "engine/core/empty.h"
#include "engine/core/parallel.h"
#include "engine/cpu/loops.h"
#include "engine/ops/layer_norm_operands.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/native_layer_norm.h"
#include "glassbox/ops/native/native_layer_norm_backward.h"

namespace glassbox::native {

namespace {

int64_t row_grain(int64_t cols) { return std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(cols, 1)); }

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_cpu(const Tensor& input, IntArrayRef normalized_shape,
                                                         const std::optional<Tensor>& weight,
                                                         const std::optional<Tensor>& bias, double eps) {
  LayerNormOperands o = layer_norm_operands(input, normalized_shape, weight, bias);
  const int64_t N = o.s.cols;
  visit_scalar_type(input.dtype(), [&]<class T>() {
    using C = cpu::opmath_t<T>;
    if constexpr (std::is_floating_point_v<C>) {
      const T* wp = data_or_null<T>(o.w);
      const T* bp = data_or_null<T>(o.b);
      parallel_for(0, o.s.rows, row_grain(N), [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          const T* xr = o.x.data<T>() + r * N;
          T* yr = o.out.data<T>() + r * N;
          double sum = 0, sq = 0;
          for (int64_t j = 0; j < N; ++j) sum += static_cast<double>(static_cast<C>(xr[j]));
          const double mu = sum / static_cast<double>(N);
          for (int64_t j = 0; j < N; ++j) {
            const double d = static_cast<double>(static_cast<C>(xr[j])) - mu;
            sq += d * d;
          }
          const double rs = 1.0 / std::sqrt(sq / static_cast<double>(N) + eps);
          const C mu_c = static_cast<C>(mu), rs_c = static_cast<C>(rs);
          for (int64_t j = 0; j < N; ++j) {
            C y = (static_cast<C>(xr[j]) - mu_c) * rs_c;
            if (wp) y *= static_cast<C>(wp[j]);
            if (bp) y += static_cast<C>(bp[j]);
            yr[j] = static_cast<T>(y);
          }
          o.mean.data<T>()[r] = static_cast<T>(mu);
          o.rstd.data<T>()[r] = static_cast<T>(rs);
        }
      });
    }
  });
  return {o.out, o.mean, o.rstd};
}

// With xhat = (x - mean) * rstd and g = grad_out * weight (weight 1 when absent), per row of N:
//   grad_input = rstd * (g - mean(g) - xhat * mean(g * xhat))
//   grad_weight = sum over rows of grad_out * xhat,  grad_bias = sum over rows of grad_out.
// grad_weight and grad_bias are always returned (shape normalized_shape), weight and bias given or not.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_cpu(const Tensor& grad_out, const Tensor& input,
                                                                  IntArrayRef normalized_shape, const Tensor& mean,
                                                                  const Tensor& rstd,
                                                                  const std::optional<Tensor>& weight,
                                                                  const std::optional<Tensor>& bias) {
  LayerNormBackwardOperands o =
      layer_norm_backward_operands(grad_out, input, normalized_shape, mean, rstd, weight, bias);
  const int64_t N = o.s.cols, M = o.s.rows;
  visit_scalar_type(input.dtype(), [&]<class T>() {
    using C = cpu::opmath_t<T>;
    if constexpr (std::is_floating_point_v<C>) {
      const T* wp = data_or_null<T>(o.w);
      const T *gp = o.g.data<T>(), *xp = o.x.data<T>(), *mp = o.mu.data<T>(), *rp = o.rs.data<T>();
      parallel_for(0, M, row_grain(N), [&](int64_t lo, int64_t hi) {
        std::vector<double> gw(static_cast<size_t>(N)), xhat(static_cast<size_t>(N));
        for (int64_t r = lo; r < hi; ++r) {
          const double m = static_cast<C>(mp[r]), rsd = static_cast<C>(rp[r]);
          double sum_g = 0, sum_gx = 0;
          for (int64_t j = 0; j < N; ++j) {
            xhat[j] = (static_cast<C>(xp[r * N + j]) - m) * rsd;
            gw[j] = static_cast<double>(static_cast<C>(gp[r * N + j])) *
                    (wp ? static_cast<double>(static_cast<C>(wp[j])) : 1.0);
            sum_g += gw[j];
            sum_gx += gw[j] * xhat[j];
          }
          const double mean_g = sum_g / static_cast<double>(N), mean_gx = sum_gx / static_cast<double>(N);
          T* dst = o.grad_in.data<T>() + r * N;
          for (int64_t j = 0; j < N; ++j) dst[j] = static_cast<T>(rsd * (gw[j] - mean_g - xhat[j] * mean_gx));
        }
      });
      // Column sums: each thread owns a range of columns and walks every row.
      parallel_for(0, N, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(M, 1)), [&](int64_t lo, int64_t hi) {
        std::vector<double> sw(static_cast<size_t>(hi - lo)), sb(static_cast<size_t>(hi - lo));
        for (int64_t r = 0; r < M; ++r) {
          const double m = static_cast<C>(mp[r]), rsd = static_cast<C>(rp[r]);
          for (int64_t j = lo; j < hi; ++j) {
            const double gj = static_cast<C>(gp[r * N + j]);
            sw[j - lo] += gj * (static_cast<C>(xp[r * N + j]) - m) * rsd;
            sb[j - lo] += gj;
          }
        }
        for (int64_t j = lo; j < hi; ++j) {
          o.grad_w.data<T>()[j] = static_cast<T>(sw[j - lo]);
          o.grad_b.data<T>()[j] = static_cast<T>(sb[j - lo]);
        }
      });
    }
  });
  return {o.grad_in, o.grad_w, o.grad_b};
}

}  // namespace glassbox::native
