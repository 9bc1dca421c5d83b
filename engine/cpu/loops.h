#pragma once
// Inner loops for element-wise CPU kernels. The functor sees values (float16/bfloat16 as float);
// the contiguous case is a plain indexed loop the compiler vectorises. Outputs larger than the
// last-level cache are written with streaming stores (engine/cpu/streaming_store.h).
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "engine/core/half.h"
#include "engine/cpu/cpu_features.h"
#include "engine/cpu/streaming_store.h"
#include "engine/ops/tensor_iterator.h"

namespace glassbox::cpu {

// The type a loop computes in: float for float16/bfloat16 (the same name as CUDA's, cuda_types.cuh).
template <class T>
using opmath_t = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <class T>
inline opmath_t<T> load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<opmath_t<T>>(v);
}
template <class T, class V>
inline void store(char* p, V v) {
  const T t = static_cast<T>(v);
  std::memcpy(p, &t, sizeof(T));
}

#if defined(__x86_64__) && defined(__GNUC__)
#define GLASSBOX_X86_DISPATCH 1
// The build targets baseline x86-64 (SSE2); where the CPU has AVX2 (with FMA) the contiguous loops
// run a copy compiled for it (twice the vector width), chosen once at run time (cpu_features.h).
inline bool cpu_has_avx2() {
  static const bool has = cpu_capability() >= CpuCapability::Avx2;
  return has;
}
// AVX-512 (the x86-64-v4 set): the transcendental loops, which are bound by arithmetic rather
// than memory, run a copy with 16 float lanes.
inline bool cpu_has_avx512() {
  static const bool has = cpu_capability() >= CpuCapability::Avx512;
  return has;
}
#endif

// Whether a loop over `it` writing elements of `out_size` bytes should stream its output. Not
// into outputs the iterator allocated: fresh from the kernel, their page faults have just zeroed
// them through the caches, where ordinary stores land for less. (A block the allocator hands out
// again would stream well, but the iterator cannot tell the two apart.)
inline bool streams_output(const TensorIterator& it, size_t out_size) {
  return !it.allocated_outputs() && it.numel() * static_cast<int64_t>(out_size) >= streaming_store_threshold();
}

// out[i] = value(i) for i in [0, n): plain stores, or (kStream) tile by tile through a buffer in
// L1 that is streamed out. Always inlined, so each target's copy of a loop vectorises it.
template <bool kStream, bool kAvx2, class Out, class Value>
[[gnu::always_inline]] inline void write_run(Out* out, int64_t n, const Value& value) {
  if constexpr (!kStream) {
    for (int64_t i = 0; i < n; ++i) out[i] = value(i);
  } else {
    constexpr int64_t kTile = kStreamTileBytes / static_cast<int64_t>(sizeof(Out));
    alignas(64) Out tile[kTile];
    for (int64_t i0 = 0; i0 < n; i0 += kTile) {
      const int64_t m = std::min(kTile, n - i0);
      for (int64_t j = 0; j < m; ++j) tile[j] = value(i0 + j);
      const int64_t bytes = m * static_cast<int64_t>(sizeof(Out));
      if constexpr (kAvx2)
        stream_bytes_avx2(reinterpret_cast<char*>(out + i0), reinterpret_cast<const char*>(tile), bytes);
      else stream_bytes(reinterpret_cast<char*>(out + i0), reinterpret_cast<const char*>(tile), bytes);
    }
    streaming_store_fence();
  }
}

#ifdef GLASSBOX_X86_DISPATCH
template <bool kStream, class Run>
__attribute__((target("avx2"))) void run_avx2(const Run& run) {
  run.template operator()<kStream, true>();
}
template <bool kStream, class Run>
__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,prefer-vector-width=512"))) void run_avx512(const Run& run) {
  run.template operator()<kStream, true>();
}
#endif

// A contiguous run of n elements: `run.template operator()<kStream, kAvx2>()` in the copy for this
// CPU, streamed or not (run writes through write_run). kWide adds an AVX-512 copy.
template <bool kWide = false, class Run>
[[gnu::always_inline]] inline void dispatch_run(bool stream, int64_t n, const Run& run) {
#ifdef GLASSBOX_X86_DISPATCH
  if constexpr (kWide) {
    if (n >= 64 && cpu_has_avx512()) {
      if (stream) run_avx512<true>(run);
      else run_avx512<false>(run);
      return;
    }
  }
  if (n >= 64 && cpu_has_avx2()) {
    if (stream) run_avx2<true>(run);
    else run_avx2<false>(run);
    return;
  }
#endif
  if (stream) run.template operator()<true, false>();
  else run.template operator()<false, false>();
}

// out[i] = f(a[i], b[i]) over contiguous arrays, on this thread: what binary_loop runs on each
// contiguous run, for callers that need no iterator.
template <class Out, class In, class F>
void binary_contiguous(Out* out, const In* a, const In* b, int64_t n, const F& f) {
  using C = opmath_t<In>;
  dispatch_run(
      false, n, [&]<bool kStream, bool kAvx2>() __attribute__((always_inline)) {
        write_run<false, kAvx2>(
            out, n, [&](int64_t i) __attribute__((always_inline)) {
              return static_cast<Out>(f(static_cast<C>(a[i]), static_cast<C>(b[i])));
            });
      });
}

// out[i] = f(a[i]); Out is the output's element type, In the input's. `grain`: elements below
// which the loop stays on one thread; kWide: f is arithmetic-heavy (transcendentals) and gets
// the AVX-512 copy where the CPU has one.
template <class Out, class In, bool kWide = false, class F>
void vectorized_unary_loop(TensorIterator& it, F f, int64_t grain = kDefaultGrain) {
  const bool stream = streams_output(it, sizeof(Out));
  it.for_each(
      [f, stream](char** data, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      auto* out = reinterpret_cast<Out*>(data[0]);
      const auto* in = reinterpret_cast<const In*>(data[1]);
      const int64_t out_bytes = n * static_cast<int64_t>(sizeof(Out));
      dispatch_run<kWide>(
          stream && may_stream(out, out_bytes, in, n * static_cast<int64_t>(sizeof(In))),
          n, [&]<bool kStream, bool kAvx2>() __attribute__((always_inline)) {
            write_run<kStream, kAvx2>(
                out, n, [&](int64_t i) __attribute__((always_inline)) {
                  return static_cast<Out>(f(static_cast<opmath_t<In>>(in[i])));
                });
          });
      return;
    }
    for (int64_t i = 0; i < n; ++i) store<Out>(data[0] + i * s[0], f(load<In>(data[1] + i * s[1])));
      },
      grain);
  it.finish();
}

// out[i] = f(in[i]) over float32 for math whose vectorised form f.fast(x) is valid except where
// f.needs_exact(x) (huge arguments of sin and cos). Each tile of a contiguous run is checked
// first; only a tile holding such an element goes through f(x), element by element. The
// AVX-512 copy runs where the CPU has it.
template <class F>
void guarded_unary_loop(TensorIterator& it, F f, int64_t grain) {
  it.for_each(
      [f](char** data, const int64_t* s, int64_t n) {
    if (s[0] != sizeof(float) || s[1] != sizeof(float)) {
      for (int64_t i = 0; i < n; ++i) store<float>(data[0] + i * s[0], f(load<float>(data[1] + i * s[1])));
      return;
    }
    auto* out = reinterpret_cast<float*>(data[0]);
    const auto* in = reinterpret_cast<const float*>(data[1]);
    dispatch_run<true>(
        false, n, [&]<bool kStream, bool kAvx2>() __attribute__((always_inline)) {
          constexpr int64_t kTile = 256;
          for (int64_t i0 = 0; i0 < n; i0 += kTile) {
            const int64_t m = std::min(kTile, n - i0);
            int exact = 0;
            for (int64_t j = 0; j < m; ++j) exact |= f.needs_exact(in[i0 + j]);
            if (exact) {
              for (int64_t j = 0; j < m; ++j) out[i0 + j] = f(in[i0 + j]);
            } else {
              write_run<false, kAvx2>(
                  out + i0, m, [&](int64_t j) __attribute__((always_inline)) { return f.fast(in[i0 + j]); });
            }
          }
        });
      },
      grain);
  it.finish();
}

template <class Out, class In, class F>
void unary_loop(TensorIterator& it, F f) {
  vectorized_unary_loop<Out, In>(it, f);
}

// out[i] = f(a[i], b[i]), with fast paths for contiguous operands and a broadcast scalar on
// either side. `grain`: elements below which the loop stays on one thread; kWide as for
// vectorized_unary_loop (the contiguous path gets the AVX-512 copy).
template <class Out, class In, bool kWide = false, class F>
void binary_loop_grain(TensorIterator& it, F f, int64_t grain) {
  using C = opmath_t<In>;
  const bool stream = streams_output(it, sizeof(Out));
  it.for_each(
      [f, stream](char** data, const int64_t* s, int64_t n) {
    constexpr int64_t so = sizeof(Out), si = sizeof(In);
    auto* out = reinterpret_cast<Out*>(data[0]);
    const auto* a = reinterpret_cast<const In*>(data[1]);
    const auto* b = reinterpret_cast<const In*>(data[2]);
    const bool st =
        stream && may_stream(out, n * so, a, s[1] ? n * si : si) && may_stream(out, n * so, b, s[2] ? n * si : si);
    if (s[0] == so && s[1] == si && s[2] == si) {
      dispatch_run<kWide>(
          st, n, [&]<bool kStream, bool kAvx2>() __attribute__((always_inline)) {
            write_run<kStream, kAvx2>(
                out, n, [&](int64_t i) __attribute__((always_inline)) {
                  return static_cast<Out>(f(static_cast<C>(a[i]), static_cast<C>(b[i])));
                });
          });
    } else if (s[0] == so && s[1] == si && s[2] == 0) {
      const C y = static_cast<C>(b[0]);
      dispatch_run(
          st, n, [&]<bool kStream, bool kAvx2>() __attribute__((always_inline)) {
            write_run<kStream, kAvx2>(
                out, n, [&](int64_t i) __attribute__((always_inline)) {
                  return static_cast<Out>(f(static_cast<C>(a[i]), y));
                });
          });
    } else if (s[0] == so && s[1] == 0 && s[2] == si) {
      const C x = static_cast<C>(a[0]);
      dispatch_run(
          st, n, [&]<bool kStream, bool kAvx2>() __attribute__((always_inline)) {
            write_run<kStream, kAvx2>(
                out, n, [&](int64_t i) __attribute__((always_inline)) {
                  return static_cast<Out>(f(x, static_cast<C>(b[i])));
                });
          });
    } else {
      for (int64_t i = 0; i < n; ++i)
        store<Out>(data[0] + i * s[0], f(load<In>(data[1] + i * s[1]), load<In>(data[2] + i * s[2])));
    }
      },
      grain);
  it.finish();
}

template <class Out, class In, class F>
void binary_loop(TensorIterator& it, F f) {
  binary_loop_grain<Out, In>(it, f, kDefaultGrain);
}

// Element counts above which a loop of transcendental functions (exp, tanh, erf, ...) is worth
// spreading over threads: each element costs tens of cycles, not one.
inline constexpr int64_t kTranscendentalGrain = 4096;

// out[i] = f(a[i], b[i], c[i]); each input has its own element type (where reads a bool condition
// next to two value operands). Fast paths: all contiguous, and a contiguous first input with the
// other two broadcast scalars (clamp by numbers).
template <class Out, class A, class B, class C, class F>
void ternary_loop(TensorIterator& it, F f, int64_t grain = kDefaultGrain) {
  it.for_each(
      [f](char** data, const int64_t* s, int64_t n) {
    auto* out = reinterpret_cast<Out*>(data[0]);
    const auto* a = reinterpret_cast<const A*>(data[1]);
    const auto* b = reinterpret_cast<const B*>(data[2]);
    const auto* c = reinterpret_cast<const C*>(data[3]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == sizeof(B) && s[3] == sizeof(C)) {
      for (int64_t i = 0; i < n; ++i) {
        out[i] = static_cast<Out>(
            f(static_cast<opmath_t<A>>(a[i]), static_cast<opmath_t<B>>(b[i]), static_cast<opmath_t<C>>(c[i])));
      }
    } else if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == 0 && s[3] == 0) {
      const opmath_t<B> y = static_cast<opmath_t<B>>(b[0]);
      const opmath_t<C> z = static_cast<opmath_t<C>>(c[0]);
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(static_cast<opmath_t<A>>(a[i]), y, z));
    } else {
      for (int64_t i = 0; i < n; ++i) {
        store<Out>(data[0] + i * s[0],
                   f(load<A>(data[1] + i * s[1]), load<B>(data[2] + i * s[2]), load<C>(data[3] + i * s[3])));
      }
    }
      },
      grain);
  it.finish();
}

}  // namespace glassbox::cpu
