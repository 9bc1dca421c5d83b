#pragma once
// Plain snapshots of the registry, taken under the registration lock, for dumps, JSON and the
// Python side. Nothing here is on a call path.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/dispatch_key.h"
#include "registry/operator_name.h"

namespace glassbox {

// Why a dispatch-table slot holds what it holds.
enum class Provenance : uint8_t {
  Kernel,                // registered for exactly this key
  DefaultBackendKernel,  // from CompositeExplicitAutograd
  MathKernel,            // from CompositeImplicitAutograd
  AutogradKernel,        // from the Autograd alias key
  BackendFallback,       // the key's fallback (for every operator)
  Fallthrough,           // a fallthrough kernel or fallback: the call skips this key
  Missing,               // nothing: a call here is an error
};
std::string_view to_string(Provenance p);

struct KernelInfo {
  DispatchKey key;            // as registered (may be an alias key)
  std::string debug;          // "file:line"
  std::string kind;           // "unboxed", "boxed" or "fallthrough"
  std::string cpp_signature;  // empty for boxed kernels
  bool active;                // false when a later registration for the same key replaced it
};

struct SlotInfo {
  DispatchKey key;  // the runtime key
  Provenance provenance;
  DispatchKey source_key;  // the key the kernel was registered under (alias or fallback key)
  std::string debug;       // where that registration happened; empty when missing
};

struct OperatorInfo {
  OperatorName name;
  std::optional<std::string> schema;  // printed schema, nullopt when only impls exist
  std::string schema_debug;
  std::vector<std::string> tags;
  std::vector<KernelInfo> kernels;
  std::vector<SlotInfo> table;  // one per runtime key, CPU first
};

struct FallbackInfo {
  DispatchKey key;
  std::string debug;
  bool fallthrough;
};

struct LibraryInfo {
  std::string kind;  // "DEF", "FRAGMENT", "IMPL"
  std::string ns;
  std::optional<DispatchKey> key;
  std::string debug;
};

struct RegistryInfo {
  std::vector<LibraryInfo> libraries;
  std::vector<FallbackInfo> fallbacks;
  std::vector<OperatorInfo> operators;  // sorted by name
};

}  // namespace glassbox
