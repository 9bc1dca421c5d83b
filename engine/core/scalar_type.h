#pragma once
// The element types a tensor can hold.
#include <cstdint>
#include <optional>
#include <string_view>

namespace glassbox {

enum class ScalarType : int8_t {
  Float32, Float64, Float16, BFloat16, Int64, Int32, Int16, Int8, UInt8, Bool,
  NumTypes,
};

// "float32", "int64", ... (the names gb.float32 etc. use).
std::string_view to_string(ScalarType t);
std::optional<ScalarType> parse_scalar_type(std::string_view name);
size_t element_size(ScalarType t);
bool is_floating_point(ScalarType t);

}  // namespace glassbox
