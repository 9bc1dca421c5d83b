#include "graphs/text.h"

#include <cstdio>

namespace glassbox::graphs::text {

std::string format_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char buffer[32];
  if (unit == 0) std::snprintf(buffer, sizeof buffer, "%.0f B", bytes);
  else std::snprintf(buffer, sizeof buffer, "%.1f %s", bytes, kUnits[unit]);
  return buffer;
}

std::string format_milliseconds(double ms) {
  char buffer[32];
  if (ms < 1000) std::snprintf(buffer, sizeof buffer, "%.0f ms", ms);
  else std::snprintf(buffer, sizeof buffer, "%.2f s", ms / 1000);
  return buffer;
}

}  // namespace glassbox::graphs::text
