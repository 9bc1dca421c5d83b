#include "engine/ops/fill_value.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "engine/core/error.h"

namespace glassbox {

namespace {
struct IntegerRange {
  int64_t lowest;
  uint64_t max;
};

IntegerRange integer_range(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::UInt8: return {0, 255};
    case ScalarType::Int8: return {-128, 127};
    case ScalarType::Int16: return {-32768, 32767};
    case ScalarType::Int32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

bool overflows(const Scalar& value, ScalarType dtype) {
  if (dtype == ScalarType::Bool || value.is_bool()) return false;
  if (is_floating_point(dtype)) {
    if (!value.is_floating_point() || dtype == ScalarType::Float16 || dtype == ScalarType::BFloat16) return false;
    const double v = value.to_double();
    return dtype == ScalarType::Float32 && std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max();
  }
  const IntegerRange range = integer_range(dtype);
  const bool is_unsigned = range.lowest == 0;
  if (value.is_integral()) {
    const int64_t v = value.to_int();
    if (v >= 0) return static_cast<uint64_t>(v) > range.max;
    if (is_unsigned) return 0 - static_cast<uint64_t>(v) > range.max;  // -max .. -1 wrap around
    return v < range.lowest;
  }
  // A floating value may reach up to (not including) max + 1, as PyTorch allows (127.9 gives 127 in int8),
  // but not below the lowest value (-128.1 overflows). max + 1 is exact in double, 2^63 for int64.
  const double v = value.to_double();
  if (std::isnan(v)) return true;
  return v < static_cast<double>(range.lowest) || v >= static_cast<double>(range.max) + 1.0;
}
}  // namespace

void check_fill_value(const char* op, const Scalar& value, ScalarType dtype) {
  if (overflows(value, dtype)) {
    char text[32];
    if (value.is_floating_point()) std::snprintf(text, sizeof text, "%.17g", value.to_double());
    throw Error(std::string(op) + ": value " + (value.is_floating_point() ? std::string(text) : value.to_string()) +
                " cannot be converted to type " + std::string(to_string(dtype)) + " without overflow");
  }
}

void check_alpha(const char* op, const Scalar& alpha, ScalarType dtype) {
  if (alpha.is_integral() && alpha.to_int() == 1) return;
  if (alpha.is_bool() && dtype != ScalarType::Bool) {
    throw Error(std::string(op) + ": a bool alpha is only supported for bool results, got alpha=" + alpha.to_string() +
                " for " + std::string(to_string(dtype)));
  }
  check_fill_value(op, alpha, dtype);
}

}  // namespace glassbox
