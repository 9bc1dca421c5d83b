#include "engine/core/dispatch_key_set.h"

namespace glassbox {

std::string DispatchKeySet::to_string() const {
  std::string out = "DispatchKeySet(";
  bool first = true;
  for (int i = 1; i < kNumRuntimeKeys; ++i) {
    const auto k = static_cast<DispatchKey>(i);
    if (!has(k)) continue;
    if (!first) out += ", ";
    out += glassbox::to_string(k);
    first = false;
  }
  return out + ")";
}

DispatchKeySet runtime_keys_of(DispatchKey k) {
  using K = DispatchKey;
  switch (k) {
    case K::Autograd: return {K::AutogradCPU, K::AutogradCUDA};
    case K::CompositeExplicitAutograd: return {K::CPU, K::CUDA, K::Meta};
    case K::CompositeImplicitAutograd: return {K::CPU, K::CUDA, K::Meta, K::AutogradCPU, K::AutogradCUDA};
    default: return is_runtime_key(k) ? DispatchKeySet(k) : DispatchKeySet();
  }
}

}  // namespace glassbox
