#include "engine/core/dispatch_key.h"

#include <string>

#include "engine/core/error.h"

namespace glassbox {

namespace {
constexpr std::array<std::string_view, kNumKeys> kKeyNames = {
    "Undefined",
    "CPU",
    "CUDA",
    "Meta",
    "AutogradCPU",
    "AutogradCUDA",
    "Trace",
    "Python",
    "Autograd",
    "CompositeImplicitAutograd",
    "CompositeExplicitAutograd",
};
}  // namespace

std::string_view to_string(DispatchKey k) {
  const int i = index_of(k);
  return i >= 0 && i < kNumKeys ? kKeyNames[i] : std::string_view("<invalid DispatchKey>");
}

std::optional<DispatchKey> parse_dispatch_key(std::string_view name) {
  for (int i = 0; i < kNumKeys; ++i)
    if (kKeyNames[i] == name) return static_cast<DispatchKey>(i);
  return std::nullopt;
}

DispatchKey dispatch_key_from_string(std::string_view name) {
  if (auto k = parse_dispatch_key(name)) return *k;
  std::string known;
  for (int i = 1; i < kNumKeys; ++i) known += (i > 1 ? ", " : "") + std::string(kKeyNames[i]);
  throw Error("unknown dispatch key '" + std::string(name) + "'; known keys: " + known);
}

}  // namespace glassbox
