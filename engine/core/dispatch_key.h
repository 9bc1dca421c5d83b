#pragma once
// Dispatch keys: the runtime keys, lowest to highest priority, then the alias keys that stand for
// several runtime keys at registration time. A DispatchKeySet bit index is the key's value.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace glassbox {

enum class DispatchKey : uint8_t {
  Undefined = 0,
  // Runtime keys, lowest priority first.
  CPU,
  CUDA,
  Meta,  // shape and dtype only, no data
  AutogradCPU,
  AutogradCUDA,
  Trace,   // records calls, then redispatches
  Python,  // kernels registered from Python
  EndOfRuntimeKeys,
  // Alias keys: registration only, never in a DispatchKeySet.
  Autograd = EndOfRuntimeKeys,  // -> AutogradCPU, AutogradCUDA
  CompositeImplicitAutograd,    // -> every backend and autograd key ("math kernel")
  CompositeExplicitAutograd,    // -> every backend key ("default backend kernel")
  EndOfKeys,
};

inline constexpr int kNumRuntimeKeys = static_cast<int>(DispatchKey::EndOfRuntimeKeys);
inline constexpr int kNumKeys = static_cast<int>(DispatchKey::EndOfKeys);

constexpr int index_of(DispatchKey k) { return static_cast<int>(k); }
constexpr bool is_runtime_key(DispatchKey k) {
  return k != DispatchKey::Undefined && k < DispatchKey::EndOfRuntimeKeys;
}
constexpr bool is_alias_key(DispatchKey k) { return k >= DispatchKey::EndOfRuntimeKeys && k < DispatchKey::EndOfKeys; }
constexpr bool is_backend_key(DispatchKey k) {
  return k == DispatchKey::CPU || k == DispatchKey::CUDA || k == DispatchKey::Meta;
}
constexpr bool is_autograd_key(DispatchKey k) {
  return k == DispatchKey::AutogradCPU || k == DispatchKey::AutogradCUDA;
}
// AutogradCPU -> CPU, AutogradCUDA -> CUDA; Undefined for other keys.
constexpr DispatchKey backend_of_autograd_key(DispatchKey k) {
  switch (k) {
    case DispatchKey::AutogradCPU: return DispatchKey::CPU;
    case DispatchKey::AutogradCUDA: return DispatchKey::CUDA;
    default: return DispatchKey::Undefined;
  }
}
// CPU -> AutogradCPU, CUDA -> AutogradCUDA; Undefined for keys without an autograd key (Meta).
constexpr DispatchKey autograd_key_of_backend(DispatchKey k) {
  switch (k) {
    case DispatchKey::CPU: return DispatchKey::AutogradCPU;
    case DispatchKey::CUDA: return DispatchKey::AutogradCUDA;
    default: return DispatchKey::Undefined;
  }
}

std::string_view to_string(DispatchKey k);
// Accepts the names printed by to_string; nullopt for anything else.
std::optional<DispatchKey> parse_dispatch_key(std::string_view name);
// Like parse_dispatch_key, but throws an Error listing the known keys.
DispatchKey dispatch_key_from_string(std::string_view name);

}  // namespace glassbox
