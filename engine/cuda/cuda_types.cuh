#pragma once
// glassbox's element types as device code sees them: float16 and bfloat16 are CUDA's __half and
// __nv_bfloat16 (the same bits as glassbox::Half and glassbox::BFloat16) and compute in float,
// as on the CPU. Kernels are instantiated only for the dtypes their family supports.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <type_traits>

#include "engine/core/error.h"
#include "engine/core/scalar_type.h"

namespace glassbox::cuda {

template <class T>
struct device_type {
  using type = T;
};
template <>
struct device_type<Half> {
  using type = __half;
};
template <>
struct device_type<BFloat16> {
  using type = __nv_bfloat16;
};
// The device type of a host element type (Half -> __half, float -> float).
template <class T>
using device_t = typename device_type<T>::type;

template <class T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
// The type arithmetic on T happens in.
template <class T>
using opmath_t = std::conditional_t<is_reduced_float_v<T>, float, T>;

template <class T>
__device__ __forceinline__ opmath_t<T> to_opmath(T v) {
  if constexpr (std::is_same_v<T, __half>) return __half2float(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(v);
  else return v;
}
// Rounds to nearest even, as glassbox::Half and glassbox::BFloat16 do on the host.
template <class T, class C>
__device__ __forceinline__ T from_opmath(C v) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(static_cast<float>(v));
  else return static_cast<T>(v);
}

// A host value as its device type, bit for bit (glassbox::Half -> __half).
template <class T, class H>
T to_device_value(const H& v) {
  static_assert(sizeof(T) == sizeof(H));
  T t;
  std::memcpy(static_cast<void*>(&t), &v, sizeof(T));
  return t;
}

// f.template operator()<T>() with T the device type of `t`, for every dtype. The visitors are named as
// the host's (visit_scalar_type, cpu::visit_floating_type, cpu::visit_numeric_type) with "_device" added.
template <class F>
void visit_scalar_device_type(ScalarType t, F&& f) {
  visit_scalar_type(t, [&]<class H>() { f.template operator()<device_t<H>>(); });
}
// ... for the four floating-point dtypes only.
template <class F>
void visit_floating_device_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float32: f.template operator()<float>(); return;
    case ScalarType::Float64: f.template operator()<double>(); return;
    case ScalarType::Float16: f.template operator()<__half>(); return;
    case ScalarType::BFloat16: f.template operator()<__nv_bfloat16>(); return;
    default: GB_CHECK(false, "internal: ", to_string(t), " reached a floating-point-only CUDA kernel");
  }
}
// ... for every dtype but bool.
template <class F>
void visit_numeric_device_type(ScalarType t, F&& f) {
  GB_CHECK(t != ScalarType::Bool, "internal: bool reached a numeric-only CUDA kernel");
  visit_scalar_device_type(t, [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) f.template operator()<T>();
  });
}

// The glassbox dtype of a (host-compatible) arithmetic type: float, double, int64_t, ...
template <class T>
constexpr ScalarType scalar_type_of() {
  if constexpr (std::is_same_v<T, __half>) return ScalarType::Float16;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return ScalarType::BFloat16;
  else return CppTypeToScalarType<T>::value;
}

}  // namespace glassbox::cuda
