// Batch normalisation on the CPU: channels are spread over threads; each walks its channel's N
// rows of `spatial` contiguous elements, first for the sums (double accumulators in lanes), then to write
// the output or grad_input as one multiply-add per element (engine/ops/kernels/batch_norm.h).
#include <algorithm>
#include <type_traits>

#include "engine/core/parallel.h"
#include "engine/cpu/loops.h"
#include "engine/cpu/row_sums.h"
#include "engine/ops/kernels/batch_norm.h"

namespace glassbox::cpu {

namespace {
using namespace kernels;

int64_t channel_grain(int64_t count) { return std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(count, 1)); }

template <class C>
const C* data_or_null(const Tensor& t) {
  return t.defined() ? t.data<C>() : nullptr;
}

struct TermPair {
  double a, b;
};

void forward(BatchNormOperands& o) {
  const int64_t N = o.s.batch, C = o.s.channels, S = o.s.spatial, count = o.s.count();
  visit_scalar_type(o.x.dtype(), [&]<class T>() {
    using A = opmath_t<T>;  // compute type, also the per-channel tensors' element type
    if constexpr (std::is_floating_point_v<A>) {
      const T* x = o.x.data<T>();
      T* y = o.out.data<T>();
      const A *w = data_or_null<A>(o.w), *b = data_or_null<A>(o.b);
      A* rm = o.running_mean.defined() ? o.running_mean.data<A>() : nullptr;
      A* rv = o.running_var.defined() ? o.running_var.data<A>() : nullptr;
      A *save_mean = o.save_mean.data<A>(), *save_invstd = o.save_invstd.data<A>();
      parallel_for(0, C, channel_grain(count), [&](int64_t lo, int64_t hi) {
        for (int64_t c = lo; c < hi; ++c) {
          double mean, var;
          if (o.training) {
            const double shift = static_cast<A>(x[c * S]);
            ShiftedSums sums{0, 0};
            for (int64_t n = 0; n < N; ++n) {
              const T* row = x + (n * C + c) * S;
              add_row_sums(
                  S,
                  [&](int64_t s) {
                const double d = static_cast<double>(static_cast<A>(row[s])) - shift;
                return TermPair{d, d * d};
                  },
                  sums.sum, sums.squares);
            }
            const ChannelStats st = channel_stats(sums, shift, count);
            mean = st.mean, var = st.var;
            if (rm) rm[c] = static_cast<A>(running_update(rm[c], mean, o.momentum));
            if (rv) rv[c] = static_cast<A>(running_update(rv[c], unbiased_var(var, count), o.momentum));
          } else {
            mean = rm[c], var = rv[c];
          }
          const double invstd = batch_norm_invstd(var, o.eps);
          save_mean[c] = static_cast<A>(mean), save_invstd[c] = static_cast<A>(invstd);
          const Affine f = output_affine(mean, invstd, w ? w[c] : 1.0, b ? b[c] : 0.0);
          const A scale = static_cast<A>(f.scale), shift = static_cast<A>(f.shift);
          for (int64_t n = 0; n < N; ++n) {
            const T* in = x + (n * C + c) * S;
            T* out = y + (n * C + c) * S;
            write_row(S, [&](int64_t s) { out[s] = static_cast<T>(static_cast<A>(in[s]) * scale + shift); });
          }
        }
      });
    }
  });
}

void backward(BatchNormBackwardOperands& o) {
  const int64_t N = o.s.batch, C = o.s.channels, S = o.s.spatial, count = o.s.count();
  visit_scalar_type(o.x.dtype(), [&]<class T>() {
    using A = opmath_t<T>;
    if constexpr (std::is_floating_point_v<A>) {
      const T *x = o.x.data<T>(), *g = o.g.data<T>();
      T* gi = o.grad_in.data<T>();
      const A* w = data_or_null<A>(o.w);
      const A *mean_p = o.mean.data<A>(), *invstd_p = o.invstd.data<A>();
      A *gw = o.grad_w.data<A>(), *gb = o.grad_b.data<A>();
      parallel_for(0, C, channel_grain(count), [&](int64_t lo, int64_t hi) {
        for (int64_t c = lo; c < hi; ++c) {
          const double mean = mean_p[c], invstd = invstd_p[c];
          double sum_g = 0, sum_gd = 0;
          for (int64_t n = 0; n < N; ++n) {
            const T *gr = g + (n * C + c) * S, *xr = x + (n * C + c) * S;
            add_row_sums(
                S,
                [&](int64_t s) {
              const double gv = static_cast<A>(gr[s]);
              return TermPair{gv, gv * (static_cast<double>(static_cast<A>(xr[s])) - mean)};
                },
                sum_g, sum_gd);
          }
          gb[c] = static_cast<A>(sum_g);
          gw[c] = static_cast<A>(sum_gd * invstd);
          const GradInputCoefficients k =
              grad_input_coefficients(sum_g, sum_gd, mean, invstd, w ? w[c] : 1.0, count, o.training);
          const A kg = static_cast<A>(k.g), kx = static_cast<A>(k.x), k0 = static_cast<A>(k.constant);
          for (int64_t n = 0; n < N; ++n) {
            const int64_t at = (n * C + c) * S;
            write_row(S, [&](int64_t s) {
              gi[at + s] = static_cast<T>(static_cast<A>(g[at + s]) * kg + static_cast<A>(x[at + s]) * kx + k0);
            });
          }
        }
      });
    }
  });
}

const BatchNormBackend kBatchNorm{forward, backward};
const BatchNormBackends::Registration kRegistered(DeviceType::CPU, kBatchNorm);
}  // namespace

}  // namespace glassbox::cpu
