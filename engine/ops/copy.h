#pragma once
// copy_: element-wise copy with broadcasting of src and conversion between any two dtypes.
#include "engine/core/tensor.h"

namespace glassbox {

Tensor& copy_(Tensor& dst, const Tensor& src);

// Converts one value between element types (float16/bfloat16 go through float).
template <class To, class From>
inline To convert_value(From v) {
  constexpr bool from_reduced = std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>;
  if constexpr (std::is_same_v<To, bool>) {
    if constexpr (from_reduced) return static_cast<float>(v) != 0.0f;
    else return v != From(0);
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) return To(static_cast<float>(v));
  else if constexpr (from_reduced) return static_cast<To>(static_cast<float>(v));
  else return static_cast<To>(v);
}

}  // namespace glassbox
