#include "engine/core/scalar_type.h"

#include <array>

namespace glassbox {

namespace {
struct TypeInfo {
  std::string_view name;
  size_t size;
  bool floating;
};
constexpr std::array<TypeInfo, static_cast<int>(ScalarType::NumTypes)> kTypes = {{
    {"float32", 4, true}, {"float64", 8, true}, {"float16", 2, true}, {"bfloat16", 2, true},
    {"int64", 8, false}, {"int32", 4, false}, {"int16", 2, false}, {"int8", 1, false},
    {"uint8", 1, false}, {"bool", 1, false},
}};
const TypeInfo* info(ScalarType t) {
  const int i = static_cast<int>(t);
  return i >= 0 && i < static_cast<int>(kTypes.size()) ? &kTypes[i] : nullptr;
}
}  // namespace

std::string_view to_string(ScalarType t) {
  const TypeInfo* i = info(t);
  return i ? i->name : std::string_view("<invalid ScalarType>");
}
std::optional<ScalarType> parse_scalar_type(std::string_view name) {
  for (size_t i = 0; i < kTypes.size(); ++i)
    if (kTypes[i].name == name) return static_cast<ScalarType>(i);
  return std::nullopt;
}
size_t element_size(ScalarType t) { return info(t) ? info(t)->size : 0; }
bool is_floating_point(ScalarType t) { return info(t) && info(t)->floating; }

}  // namespace glassbox
