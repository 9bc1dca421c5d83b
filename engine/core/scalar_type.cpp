#include "engine/core/scalar_type.h"

#include <array>

namespace glassbox {

namespace {
// Sizes and is_floating_point are constexpr in the header.
struct TypeInfo {
  std::string_view name;
  bool floating;
};
constexpr std::array<TypeInfo, kNumScalarTypes> kTypes = {{
    {"float32", true},
    {"float64", true},
    {"float16", true},
    {"bfloat16", true},
    {"int64", false},
    {"int32", false},
    {"int16", false},
    {"int8", false},
    {"uint8", false},
    {"bool", false},
}};
static_assert(element_size(ScalarType::Float16) == sizeof(Half) && element_size(ScalarType::Int64) == sizeof(int64_t));
const TypeInfo* info(ScalarType t) {
  const int i = static_cast<int>(t);
  return i >= 0 && i < kNumScalarTypes ? &kTypes[i] : nullptr;
}

// The promotion lattice, in the order of the enum: f4 f8 f2 bf i8 i4 i2 i1 u1 b1.
constexpr ScalarType f4 = ScalarType::Float32, f8 = ScalarType::Float64, f2 = ScalarType::Float16,
                     bf = ScalarType::BFloat16, i8 = ScalarType::Int64, i4 = ScalarType::Int32, i2 = ScalarType::Int16,
                     i1 = ScalarType::Int8, u1 = ScalarType::UInt8, b1 = ScalarType::Bool;
constexpr ScalarType kPromote[kNumScalarTypes][kNumScalarTypes] = {
    /* f4 */ {f4, f8, f4, f4, f4, f4, f4, f4, f4, f4},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
    /* f2 */ {f4, f8, f2, f4, f2, f2, f2, f2, f2, f2},
    /* bf */ {f4, f8, f4, bf, bf, bf, bf, bf, bf, bf},
    /* i8 */ {f4, f8, f2, bf, i8, i8, i8, i8, i8, i8},
    /* i4 */ {f4, f8, f2, bf, i8, i4, i4, i4, i4, i4},
    /* i2 */ {f4, f8, f2, bf, i8, i4, i2, i2, i2, i2},
    /* i1 */ {f4, f8, f2, bf, i8, i4, i2, i1, i2, i1},
    /* u1 */ {f4, f8, f2, bf, i8, i4, i2, i2, u1, u1},
    /* b1 */ {f4, f8, f2, bf, i8, i4, i2, i1, u1, b1},
};
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
bool is_integral(ScalarType t, bool include_bool) {
  return info(t) && !info(t)->floating && (include_bool || t != ScalarType::Bool);
}

ScalarType promote_types(ScalarType a, ScalarType b) { return kPromote[static_cast<int>(a)][static_cast<int>(b)]; }

}  // namespace glassbox
