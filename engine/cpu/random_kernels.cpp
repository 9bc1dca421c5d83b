// CPU kernels of the random operators. Element i (in row-major order) draws its numbers from
// Philox block i / PerBlock of the call's (seed, offset), so results never depend on how the
// elements are split across threads.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

#include "engine/core/error.h"
#include "engine/core/generator.h"
#include "engine/core/parallel.h"
#include "engine/core/philox.h"
#include "engine/cpu/loops.h"
#include "engine/ops/copy.h"
#include "engine/ops/random_ops.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/bernoulli.h"
#include "glassbox/ops/native/normal.h"
#include "glassbox/ops/native/random.h"
#include "glassbox/ops/native/uniform.h"

namespace glassbox::native {

namespace {

// Drawing costs about ten times a copy per element: smaller chunks still pay for a thread.
constexpr int64_t kRandomGrain = kDefaultGrain / 8;

// f(i, words, p) for every i in [0, n): words = Philox block i / PerBlock, p = i % PerBlock.
template <int PerBlock, class F>
void for_each_draw(int64_t n, PhiloxState state, const F& f) {
  parallel_for(0, n, kRandomGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end;) {
      const int64_t block = i / PerBlock;
      const PhiloxWords words = philox_block(state.seed, state.offset, static_cast<uint64_t>(block));
      const int64_t stop = std::min(end, (block + 1) * PerBlock);
      for (; i < stop; ++i) f(i, words.w, static_cast<int>(i - block * PerBlock));
    }
  });
}

// Writes value(i, words, p) of type T into every element of self, in row-major order. A
// non-contiguous self is filled through a contiguous temporary.
template <class T, int PerBlock, class F>
Tensor& fill_random(Tensor& self, PhiloxState state, const F& value) {
  Tensor target = self.is_contiguous() ? self : glassbox::empty(self.sizes(), self.dtype(), self.device());
  T* out = static_cast<T*>(target.data_ptr());
  for_each_draw<PerBlock>(target.numel(), state, [&](int64_t i, const uint32_t* w, int p) { out[i] = value(w, p); });
  if (!target.is_same(self)) glassbox::copy_(self, target, false);
  else if (self.unsafe_impl()->storage()) self.unsafe_impl()->storage()->bump_version();
  return self;
}

// Calls f.template operator()<T>() for the floating-point dtypes only.
template <class F>
void visit_floating(ScalarType dtype, F&& f) {
  visit_scalar_type(dtype, [&]<class T>() {
    if constexpr (!std::is_integral_v<T>) f.template operator()<T>();
  });
}

// Significand bits of the float types: uniform numbers use no more, so they stay below 1.
template <class T>
constexpr int significand_bits() {
  if constexpr (std::is_same_v<T, Half>) return 11;
  else if constexpr (std::is_same_v<T, BFloat16>) return 8;
  else return 24;
}

// Box-Muller: two uniform numbers give two independent standard normal ones.
template <class R>
R box_muller(R u_open_below, R u, bool second) {
  const R radius = std::sqrt(R(-2) * std::log(u_open_below));
  const R angle = R(2) * std::numbers::pi_v<R> * u;
  return radius * (second ? std::sin(angle) : std::cos(angle));
}

}  // namespace

Tensor& uniform_cpu_(Tensor& self, double from, double to) {
  check_floating_dtype("uniform_", self.dtype());
  check_uniform_range("uniform_", from, to);
  const PhiloxState state = default_generator().next_call();
  const double span = to - from;
  visit_floating(self.dtype(), [&]<class T>() {
    // Rounding from + span * u can reach `to`; such rare draws become `from`, keeping [from, to).
    const auto place = [=](double u) {
      const T r = convert_value<T>(from + span * u);
      return static_cast<double>(r) < to || span == 0.0 ? r : convert_value<T>(from);
    };
    if constexpr (std::is_same_v<T, double>) {
      fill_random<T, 2>(self, state,
                        [&](const uint32_t* w, int p) { return place(unit_double(w[2 * p], w[2 * p + 1])); });
    } else {
      fill_random<T, 4>(self, state,
                        [&](const uint32_t* w, int p) { return place(unit_float(w[p], significand_bits<T>())); });
    }
  });
  return self;
}

Tensor& normal_cpu_(Tensor& self, double mean, double std) {
  check_floating_dtype("normal_", self.dtype());
  check_normal_std("normal_", std);
  const PhiloxState state = default_generator().next_call();
  visit_floating(self.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, double>) {
      // One block: two 53-bit uniforms, so one Box-Muller pair (elements 2k and 2k+1).
      fill_random<T, 2>(self, state, [&](const uint32_t* w, int p) {
        const double z = box_muller(1.0 - unit_double(w[0], w[1]), unit_double(w[2], w[3]), p == 1);
        return mean + std * z;
      });
    } else {
      // One block: four 24-bit uniforms, two Box-Muller pairs.
      fill_random<T, 4>(self, state, [&](const uint32_t* w, int p) {
        const int pair = p / 2;
        const float z = box_muller(1.0f - unit_float(w[2 * pair]), unit_float(w[2 * pair + 1]), (p & 1) != 0);
        return convert_value<T>(mean + std * static_cast<double>(z));
      });
    }
  });
  return self;
}

Tensor& bernoulli_float_cpu_(Tensor& self, double p) {
  check_probability("bernoulli_", p);
  const PhiloxState state = default_generator().next_call();
  visit_scalar_type(self.dtype(), [&]<class T>() {
    const T one = convert_value<T>(int64_t{1}), zero = convert_value<T>(int64_t{0});
    // u = word / 2^32 < p: exactly p's chance up to 2^-32 (always for p = 1, never for p = 0).
    fill_random<T, 4>(self, state,
                      [&](const uint32_t* w, int i) { return static_cast<double>(w[i]) * 0x1p-32 < p ? one : zero; });
  });
  return self;
}

Tensor bernoulli_cpu(const Tensor& self) {
  check_floating_dtype("bernoulli", self.dtype());
  // The probabilities as contiguous float64, checked before anything is drawn.
  Tensor probs = glassbox::empty(self.sizes(), ScalarType::Float64, self.device());
  glassbox::copy_(probs, self, false);
  const double* pr = probs.data<double>();
  for (int64_t i = 0; i < probs.numel(); ++i) {
    if (!(pr[i] >= 0.0 && pr[i] <= 1.0)) {
      throw Error(detail::str_cat("bernoulli: every probability must be in [0, 1], but element ", i,
                                  " of the input (shape ", shape_to_string(self.sizes()), ", ", to_string(self.dtype()),
                                  ") is ", pr[i]));
    }
  }
  Tensor out = glassbox::empty(self.sizes(), self.dtype(), self.device());
  const PhiloxState state = default_generator().next_call();
  visit_floating(self.dtype(), [&]<class T>() {
    const T one = convert_value<T>(int64_t{1}), zero = convert_value<T>(int64_t{0});
    T* o = out.data<T>();
    for_each_draw<4>(out.numel(), state, [&](int64_t i, const uint32_t* w, int p) {
      o[i] = static_cast<double>(w[p]) * 0x1p-32 < pr[i] ? one : zero;
    });
  });
  return out;
}

Tensor& random_from_cpu_(Tensor& self, int64_t from, int64_t to) {
  check_random_range("random_", self.dtype(), from, to);
  const PhiloxState state = default_generator().next_call();
  // The range may be the whole of int64 minus one, so count it unsigned; 64 random bits make the
  // modulo's bias at most range / 2^64.
  const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  visit_scalar_type(self.dtype(), [&]<class T>() {
    fill_random<T, 2>(self, state, [&](const uint32_t* w, int p) {
      const uint64_t bits = (static_cast<uint64_t>(w[2 * p]) << 32) | w[2 * p + 1];
      return convert_value<T>(static_cast<int64_t>(static_cast<uint64_t>(from) + bits % range));
    });
  });
  return self;
}

}  // namespace glassbox::native
