#pragma once
// Batch normalisation, what both backends share: a channel's statistics from shifted sums, the
// per-channel coefficients that make the output and grad_input one multiply-add per element, and
// the backend table. How a channel's sums are gathered differs: a loop per channel on the CPU, a
// two-stage reduction over chunks of the channel on CUDA.
#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"
#include "engine/ops/backend_table.h"
#include "engine/ops/batch_norm_operands.h"

namespace glassbox::kernels {

// The sums of a channel's n values taken relative to a shift k (one of the values), so that the
// variance does not lose its digits to a large mean: sum (x - k) and sum (x - k)^2.
struct ShiftedSums {
  double sum, squares;
};

struct ChannelStats {
  double mean, var;  // var is the biased variance
};
GLASSBOX_HOST_DEVICE inline ChannelStats channel_stats(ShiftedSums s, double shift, int64_t n) {
  const double d = s.sum / static_cast<double>(n);
  const double var = s.squares / static_cast<double>(n) - d * d;
  return {shift + d, var > 0 ? var : 0.0};
}

GLASSBOX_HOST_DEVICE inline double batch_norm_invstd(double var, double eps) { return 1.0 / std::sqrt(var + eps); }

// running <- (1 - momentum) * running + momentum * batch; the variance moves towards the unbiased
// batch variance var * n / (n - 1) (n > 1: the front end refuses training on one value a channel).
GLASSBOX_HOST_DEVICE inline double running_update(double running, double batch, double momentum) {
  return (1.0 - momentum) * running + momentum * batch;
}
GLASSBOX_HOST_DEVICE inline double unbiased_var(double var, int64_t n) {
  return var * static_cast<double>(n) / static_cast<double>(n - 1);
}

// y = (x - mean) * invstd * w + b  ==  x * scale + shift.
struct Affine {
  double scale, shift;
};
GLASSBOX_HOST_DEVICE inline Affine output_affine(double mean, double invstd, double w, double b) {
  const double scale = invstd * w;
  return {scale, b - mean * scale};
}

// With g the incoming gradient, per channel of n values: sum_g = sum g and sum_gd = sum g * (x - mean).
// grad_bias = sum_g, grad_weight = sum_gd * invstd. grad_input, with a = w * invstd, is a * g in eval
// mode (the statistics are constants) and in training
//   a * (g - sum_g / n - (x - mean) * invstd^2 * sum_gd / n)
// == g * a + x * xk + c, returned as the three coefficients (a, xk, c).
struct GradInputCoefficients {
  double g, x, constant;
};
GLASSBOX_HOST_DEVICE inline GradInputCoefficients grad_input_coefficients(double sum_g, double sum_gd, double mean,
                                                                          double invstd, double w, int64_t n,
                                                                          bool training) {
  const double a = w * invstd;
  if (!training) return {a, 0.0, 0.0};
  const double k = invstd * invstd * sum_gd / static_cast<double>(n);
  return {a, -a * k, a * (mean * k - sum_g / static_cast<double>(n))};
}

struct BatchNormBackend {
  void (*forward)(BatchNormOperands& o);           // fills out, save_mean, save_invstd (and the running stats)
  void (*backward)(BatchNormBackwardOperands& o);  // fills grad_in, grad_w and grad_b
};
using BatchNormBackends = BackendTable<BatchNormBackend>;

}  // namespace glassbox::kernels
