#pragma once
// The random fills, written once for both backends. Element i (row-major) of a call's contiguous
// output draws from Philox block i / kPerBlock of the call's (seed, offset), so its numbers depend
// on neither the device nor how the elements are split: RandomBlocks fills one block's elements,
// run by the CPU in a parallel loop over blocks (engine/cpu/for_each_index.h) and by CUDA one
// thread per block (engine/cuda/for_each_launch.cuh). The front end (engine/ops/random_ops.cpp)
// checks the arguments and describes the call in a RandomFill.
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "engine/core/generator.h"
#include "engine/core/host_device.h"
#include "engine/core/philox.h"
#include "engine/core/tensor.h"
#include "engine/ops/backend_table.h"
#include "engine/ops/kernels/element.h"

namespace glassbox::kernels {

// What one call draws; the front end fills it.
struct RandomFill {
  enum Kind { Uniform, Normal, Bernoulli, BernoulliTensor, Integers } kind;
  double a = 0, b = 0;  // Uniform: [a, b); Normal: mean a, std b; Bernoulli: probability a
  int bits = 24;        // Uniform: significand bits of the dtype (11 float16, 8 bfloat16), so that u < 1
  int64_t from = 0;     // Integers: from + (64 random bits mod range)
  uint64_t range = 0;
  const double* probs = nullptr;  // BernoulliTensor: element i's probability, contiguous
};

// Each draw maps block words w, position p and element index i to one element.
template <class T>
struct UniformDraw {
  static constexpr int kPerBlock = std::is_same_v<T, double> ? 2 : 4;
  RandomFill f;
  GLASSBOX_HOST_DEVICE T operator()(const uint32_t* w, int p, int64_t) const {
    double u;
    if constexpr (std::is_same_v<T, double>) u = unit_double(w[2 * p], w[2 * p + 1]);
    else u = unit_float(w[p], f.bits);
    // Rounding from + span * u can reach `to`; such rare draws become `from`, keeping [from, to).
    const double span = f.b - f.a;
    const T r = element_from<T>(f.a + span * u);
    return element_as_double(r) < f.b || span == 0.0 ? r : element_from<T>(f.a);
  }
};

// Box-Muller: two uniform numbers give two independent standard normal ones.
template <class R>
GLASSBOX_HOST_DEVICE R box_muller(R u_open_below, R u, bool second) {
  const R radius = std::sqrt(R(-2) * std::log(u_open_below));
  const R angle = R(2) * R(3.14159265358979323846) * u;
  return radius * (second ? std::sin(angle) : std::cos(angle));
}

// double: one block is two 53-bit uniforms, one Box-Muller pair; else four 24-bit ones, two pairs.
template <class T>
struct NormalDraw {
  static constexpr int kPerBlock = std::is_same_v<T, double> ? 2 : 4;
  RandomFill f;
  GLASSBOX_HOST_DEVICE T operator()(const uint32_t* w, int p, int64_t) const {
    if constexpr (std::is_same_v<T, double>) {
      return f.a + f.b * box_muller(1.0 - unit_double(w[0], w[1]), unit_double(w[2], w[3]), p == 1);
    } else {
      const int pair = p / 2;
      const float z = box_muller(1.0f - unit_float(w[2 * pair]), unit_float(w[2 * pair + 1]), (p & 1) != 0);
      return element_from<T>(f.a + f.b * static_cast<double>(z));
    }
  }
};

// u = word / 2^32 < p: exactly p's chance up to 2^-32 (always for p = 1, never for p = 0).
template <class T>
struct BernoulliDraw {
  static constexpr int kPerBlock = 4;
  RandomFill f;
  GLASSBOX_HOST_DEVICE T operator()(const uint32_t* w, int p, int64_t i) const {
    const double prob = f.kind == RandomFill::BernoulliTensor ? f.probs[i] : f.a;
    return element_from<T>(static_cast<double>(w[p]) * 0x1p-32 < prob ? 1 : 0);
  }
};

// The range may be the whole of int64 minus one, so it is counted unsigned; 64 random bits make
// the modulo's bias at most range / 2^64.
template <class T>
struct IntegerDraw {
  static constexpr int kPerBlock = 2;
  RandomFill f;
  GLASSBOX_HOST_DEVICE T operator()(const uint32_t* w, int p, int64_t) const {
    const uint64_t bits = (static_cast<uint64_t>(w[2 * p]) << 32) | w[2 * p + 1];
    return element_from<T>(static_cast<int64_t>(static_cast<uint64_t>(f.from) + bits % f.range));
  }
};

// The elements of Philox block `block`: out[i] = draw(words, i % kPerBlock, i).
template <class T, class Draw>
struct RandomBlocks {
  T* out;
  int64_t n;
  PhiloxState state;
  Draw draw;
  GLASSBOX_HOST_DEVICE void operator()(int64_t block) const {
    const PhiloxWords words = philox_block(state.seed, state.offset, static_cast<uint64_t>(block));
    const int64_t first = block * Draw::kPerBlock;
    for (int p = 0; p < Draw::kPerBlock; ++p)
      if (first + p < n) out[first + p] = draw(words.w, p, first + p);
  }
};

// run(RandomBlocks<T, Draw>{...}, block count) for the draw of `fill` (uniform and normal only
// for floating-point T).
template <class T, class Run>
void with_random_blocks(T* out, int64_t n, PhiloxState state, const RandomFill& fill, Run&& run) {
  auto go = [&]<class Draw>(Draw draw) {
    run(RandomBlocks<T, Draw>{out, n, state, draw}, (n + Draw::kPerBlock - 1) / Draw::kPerBlock);
  };
  switch (fill.kind) {
    case RandomFill::Uniform:
      if constexpr (!std::is_integral_v<T>) go(UniformDraw<T>{fill});
      return;
    case RandomFill::Normal:
      if constexpr (!std::is_integral_v<T>) go(NormalDraw<T>{fill});
      return;
    case RandomFill::Bernoulli:
    case RandomFill::BernoulliTensor: return go(BernoulliDraw<T>{fill});
    case RandomFill::Integers: return go(IntegerDraw<T>{fill});
  }
}

struct RandomBackend {
  // Writes the draws of `fill` into `out` (contiguous, not empty).
  void (*fill)(Tensor& out, const RandomFill& fill, PhiloxState state);
  // The first element of `probs` (contiguous float64) outside [0, 1], NaN included, if any.
  std::optional<int64_t> (*first_bad_probability)(const Tensor& probs);
};
using RandomBackends = BackendTable<RandomBackend>;

}  // namespace glassbox::kernels
