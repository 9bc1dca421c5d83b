#pragma once
// Inner loops for element-wise CPU kernels. The functor sees values (float16/bfloat16 as float);
// the contiguous case is a plain indexed loop the compiler vectorises.
#include <cstring>
#include <type_traits>

#include "engine/core/half.h"
#include "engine/ops/tensor_iterator.h"

namespace glassbox::cpu {

template <class T>
using compute_t = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <class T>
inline compute_t<T> load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<compute_t<T>>(v);
}
template <class T, class V>
inline void store(char* p, V v) {
  const T t = static_cast<T>(v);
  std::memcpy(p, &t, sizeof(T));
}

// out[i] = f(a[i]); Out is the output's element type, In the input's.
template <class Out, class In, class F>
void unary_loop(TensorIterator& it, F f) {
  it.for_each([f](char** data, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      auto* out = reinterpret_cast<Out*>(data[0]);
      const auto* in = reinterpret_cast<const In*>(data[1]);
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(static_cast<compute_t<In>>(in[i])));
      return;
    }
    for (int64_t i = 0; i < n; ++i) store<Out>(data[0] + i * s[0], f(load<In>(data[1] + i * s[1])));
  });
  it.finish();
}

#if defined(__x86_64__) && defined(__GNUC__)
#define GLASSBOX_X86_DISPATCH 1
// The build targets baseline x86-64 (SSE2); where the CPU has AVX2 the contiguous loops run a copy
// compiled for it (twice the vector width), chosen once at run time.
inline bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
template <class Out, class In, class F>
__attribute__((target("avx2"))) void contiguous_binary_avx2(Out* out, const In* a, const In* b, int64_t n, F& f) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = static_cast<Out>(f(static_cast<compute_t<In>>(a[i]), static_cast<compute_t<In>>(b[i])));
}
#endif

// out[i] = f(a[i], b[i]), with fast paths for contiguous operands and a broadcast scalar.
template <class Out, class In, class F>
void binary_loop(TensorIterator& it, F f) {
  it.for_each([f](char** data, const int64_t* s, int64_t n) {
    constexpr int64_t so = sizeof(Out), si = sizeof(In);
    auto* out = reinterpret_cast<Out*>(data[0]);
    const auto* a = reinterpret_cast<const In*>(data[1]);
    const auto* b = reinterpret_cast<const In*>(data[2]);
    if (s[0] == so && s[1] == si && s[2] == si) {
#ifdef GLASSBOX_X86_DISPATCH
      if (n >= 64 && cpu_has_avx2()) {
        contiguous_binary_avx2<Out, In>(out, a, b, n, f);
        return;
      }
#endif
      for (int64_t i = 0; i < n; ++i)
        out[i] = static_cast<Out>(f(static_cast<compute_t<In>>(a[i]), static_cast<compute_t<In>>(b[i])));
    } else if (s[0] == so && s[1] == si && s[2] == 0) {
      const compute_t<In> y = static_cast<compute_t<In>>(b[0]);
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(static_cast<compute_t<In>>(a[i]), y));
    } else if (s[0] == so && s[1] == 0 && s[2] == si) {
      const compute_t<In> x = static_cast<compute_t<In>>(a[0]);
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(x, static_cast<compute_t<In>>(b[i])));
    } else {
      for (int64_t i = 0; i < n; ++i)
        store<Out>(data[0] + i * s[0], f(load<In>(data[1] + i * s[1]), load<In>(data[2] + i * s[2])));
    }
  });
  it.finish();
}

// Element counts above which a loop of transcendental functions (exp, tanh, erf, ...) is worth
// spreading over threads: each element costs tens of cycles, not one.
inline constexpr int64_t kTranscendentalGrain = 4096;

#ifdef GLASSBOX_X86_DISPATCH
template <class Out, class In, class F>
__attribute__((target("avx2"))) void contiguous_unary_avx2(Out* out, const In* a, int64_t n, F& f) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(static_cast<compute_t<In>>(a[i])));
}
#endif

// out[i] = f(a[i]) as unary_loop does, plus the AVX2 copy of the contiguous loop and a grain the
// caller chooses.
template <class Out, class In, class F>
void vectorized_unary_loop(TensorIterator& it, F f, int64_t grain = kDefaultGrain) {
  it.for_each(
      [f](char** data, const int64_t* s, int64_t n) {
        if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
          auto* out = reinterpret_cast<Out*>(data[0]);
          const auto* in = reinterpret_cast<const In*>(data[1]);
#ifdef GLASSBOX_X86_DISPATCH
          if (n >= 64 && cpu_has_avx2()) {
            contiguous_unary_avx2<Out, In>(out, in, n, f);
            return;
          }
#endif
          for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(static_cast<compute_t<In>>(in[i])));
          return;
        }
        for (int64_t i = 0; i < n; ++i) store<Out>(data[0] + i * s[0], f(load<In>(data[1] + i * s[1])));
      },
      grain);
  it.finish();
}

// out[i] = f(a[i], b[i]) as binary_loop does, with a grain the caller chooses.
template <class Out, class In, class F>
void binary_loop_grain(TensorIterator& it, F f, int64_t grain) {
  it.for_each(
      [f](char** data, const int64_t* s, int64_t n) {
        constexpr int64_t so = sizeof(Out), si = sizeof(In);
        if (s[0] == so && s[1] == si && s[2] == si) {
          auto* out = reinterpret_cast<Out*>(data[0]);
          const auto* a = reinterpret_cast<const In*>(data[1]);
          const auto* b = reinterpret_cast<const In*>(data[2]);
          for (int64_t i = 0; i < n; ++i)
            out[i] = static_cast<Out>(f(static_cast<compute_t<In>>(a[i]), static_cast<compute_t<In>>(b[i])));
          return;
        }
        for (int64_t i = 0; i < n; ++i)
          store<Out>(data[0] + i * s[0], f(load<In>(data[1] + i * s[1]), load<In>(data[2] + i * s[2])));
      },
      grain);
  it.finish();
}

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
            out[i] = static_cast<Out>(f(static_cast<compute_t<A>>(a[i]), static_cast<compute_t<B>>(b[i]),
                                        static_cast<compute_t<C>>(c[i])));
          }
        } else if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == 0 && s[3] == 0) {
          const compute_t<B> y = static_cast<compute_t<B>>(b[0]);
          const compute_t<C> z = static_cast<compute_t<C>>(c[0]);
          for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(static_cast<compute_t<A>>(a[i]), y, z));
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
