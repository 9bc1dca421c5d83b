// Layer normalisation on the CPU: each row (the trailing normalized_shape dims, flattened) is
// normalised to zero mean and unit variance, then scaled and shifted. Rows are spread over
// threads; sums accumulate in double so long rows of float32 (and halves) keep their precision,
// in independent lanes (row_sums.h): the forward of 512 rows of 128 went from 127 to 61 us.
#include <algorithm>
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

// Rows per chunk: an element costs several passes and a double sum here, some ten times an
// addition's, so a chunk holds an eighth of the default grain (a GPT's 512 rows of 128 went to 2
// of 16 threads with the default).
int64_t row_grain(int64_t cols) { return std::max<int64_t>(1, kDefaultGrain / 8 / std::max<int64_t>(cols, 1)); }

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
// grad_bias = sum over rows of grad_out. One pass over x and grad_out: the rows are cut into
// blocks (up to 64, by the shape alone, so the sums do not depend on the thread count), each block
// adds its rows' grad_out * xhat and grad_out into column sums of its own, and the blocks' sums
// are added up at the end. (A second pass for the column sums, each thread walking every row, took
// half the backward's time on 16 threads.)
void backward(LayerNormBackwardOperands& o) {
  const int64_t N = o.s.cols, M = o.s.rows;
  const int64_t blocks = std::clamp<int64_t>(M / row_grain(N), 1, 64);
  std::vector<double> partial(static_cast<size_t>(2 * blocks * N));  // per block: N for w, N for b
  visit_scalar_type(o.x.dtype(), [&]<class T>() {
    using C = opmath_t<T>;
    if constexpr (std::is_floating_point_v<C>) {
      const T* wp = data_or_null<T>(o.w);
      const T *gp = o.g.data<T>(), *xp = o.x.data<T>(), *mp = o.mu.data<T>(), *rp = o.rs.data<T>();
      parallel_for(0, blocks, 1, [&](int64_t b_lo, int64_t b_hi) {
        // Per element in the compute type (float for float32, as PyTorch), the sums in double.
        std::vector<C> gw(static_cast<size_t>(N)), xhat(static_cast<size_t>(N));
        C *gwp = gw.data(), *xhp = xhat.data();
        for (int64_t block = b_lo; block < b_hi; ++block) {
          double* sw = partial.data() + 2 * block * N;
          double* sb = sw + N;
          for (int64_t r = M * block / blocks; r < M * (block + 1) / blocks; ++r) {
            const C m = static_cast<C>(mp[r]), rsd = static_cast<C>(rp[r]);
            const T *xr = xp + r * N, *gr = gp + r * N;
            // The row lambdas capture by value: GCC could not rule out that the stores alias a
            // captured reference, and kept the loop scalar, reloading m and rsd every element.
            write_row(N, [=](int64_t j) {
              xhp[j] = (static_cast<C>(xr[j]) - m) * rsd;
              gwp[j] = static_cast<C>(gr[j]) * (wp ? static_cast<C>(wp[j]) : C(1));
            });
            // The block's column sums, one loop each: both in one loop, GCC cannot rule out that
            // sw and sb overlap.
            write_row(N, [=](int64_t j) { sw[j] += static_cast<double>(static_cast<C>(gr[j]) * xhp[j]); });
            write_row(N, [=](int64_t j) { sb[j] += static_cast<double>(static_cast<C>(gr[j])); });
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
        }
      });
      T *dw = o.grad_w.data<T>(), *db = o.grad_b.data<T>();
      const double* part = partial.data();
      parallel_for(0, N, std::max<int64_t>(1, kDefaultGrain / blocks), [&](int64_t lo, int64_t hi) {
        for (int64_t j = lo; j < hi; ++j) {
          double w = 0, b = 0;
          for (int64_t block = 0; block < blocks; ++block)
            w += part[2 * block * N + j], b += part[2 * block * N + N + j];
          dw[j] = static_cast<T>(w);
          db[j] = static_cast<T>(b);
        }
      });
    }
  });
}

const LayerNormBackend kLayerNorm{forward, backward};
const LayerNormBackends::Registration kRegistered(DeviceType::CPU, kLayerNorm);
}  // namespace

}  // namespace glassbox::cpu
