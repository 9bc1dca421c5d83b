#pragma once
// The element types a tensor can hold, their C++ types, and PyTorch's promotion rules.
#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/core/half.h"

namespace glassbox {

enum class ScalarType : int8_t {
  Float32,
  Float64,
  Float16,
  BFloat16,
  Int64,
  Int32,
  Int16,
  Int8,
  UInt8,
  Bool,
  NumTypes,
};
inline constexpr int kNumScalarTypes = static_cast<int>(ScalarType::NumTypes);

// "float32", "int64", ... (the names gb.float32 etc. use).
std::string_view to_string(ScalarType t);
std::optional<ScalarType> parse_scalar_type(std::string_view name);
// Inline: the element-wise and allocation paths ask these on every call.
constexpr size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Float64:
    case ScalarType::Int64: return 8;
    case ScalarType::Float32:
    case ScalarType::Int32: return 4;
    case ScalarType::Float16:
    case ScalarType::BFloat16:
    case ScalarType::Int16: return 2;
    case ScalarType::Int8:
    case ScalarType::UInt8:
    case ScalarType::Bool: return 1;
    case ScalarType::NumTypes: break;
  }
  return 0;
}
constexpr bool is_floating_point(ScalarType t) {
  return t == ScalarType::Float32 || t == ScalarType::Float64 || t == ScalarType::Float16 || t == ScalarType::BFloat16;
}
bool is_integral(ScalarType t, bool include_bool);

// The smallest type both a and b convert to without losing their category
// (bool < integer < floating point), as torch.promote_types.
ScalarType promote_types(ScalarType a, ScalarType b);

// The type that PyTorch's default dtype plays for Python floats.
inline constexpr ScalarType kDefaultFloat = ScalarType::Float32;

template <class T>
struct CppTypeToScalarType;
#define GB_CPP_TO_SCALAR_TYPE(CPP, ST)                  \
  template <>                                           \
  struct CppTypeToScalarType<CPP> {                     \
    static constexpr ScalarType value = ScalarType::ST; \
  };
GB_CPP_TO_SCALAR_TYPE(float, Float32)
GB_CPP_TO_SCALAR_TYPE(double, Float64)
GB_CPP_TO_SCALAR_TYPE(Half, Float16)
GB_CPP_TO_SCALAR_TYPE(BFloat16, BFloat16)
GB_CPP_TO_SCALAR_TYPE(int64_t, Int64)
GB_CPP_TO_SCALAR_TYPE(int32_t, Int32)
GB_CPP_TO_SCALAR_TYPE(int16_t, Int16)
GB_CPP_TO_SCALAR_TYPE(int8_t, Int8)
GB_CPP_TO_SCALAR_TYPE(uint8_t, UInt8)
GB_CPP_TO_SCALAR_TYPE(bool, Bool)
#undef GB_CPP_TO_SCALAR_TYPE

// Calls f.template operator()<T>() with T the C++ type of `t`:
//   visit_scalar_type(t, [&]<class T>() { ... });
template <class F>
decltype(auto) visit_scalar_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float32: return f.template operator()<float>();
    case ScalarType::Float64: return f.template operator()<double>();
    case ScalarType::Float16: return f.template operator()<Half>();
    case ScalarType::BFloat16: return f.template operator()<BFloat16>();
    case ScalarType::Int64: return f.template operator()<int64_t>();
    case ScalarType::Int32: return f.template operator()<int32_t>();
    case ScalarType::Int16: return f.template operator()<int16_t>();
    case ScalarType::Int8: return f.template operator()<int8_t>();
    case ScalarType::UInt8: return f.template operator()<uint8_t>();
    case ScalarType::Bool: return f.template operator()<bool>();
    case ScalarType::NumTypes: break;
  }
  return f.template operator()<float>();  // unreachable for valid types
}

}  // namespace glassbox
