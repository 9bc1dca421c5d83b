#pragma once
// OperatorEntry: everything registered for one operator — its schema, its kernels per key (alias
// keys included) — and the computed dispatch table a call reads: one slot per runtime key.
// The table is rebuilt on every registration change and published with one atomic store, so a
// call never takes a lock and never sees a half-written table.
#include <array>
#include <atomic>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/dispatch_key_set.h"
#include "registry/cpp_signature.h"
#include "registry/function_schema.h"
#include "registry/kernel_function.h"
#include "registry/registry_info.h"

namespace glassbox {

struct DispatchTable {
  std::array<KernelFunction, kNumRuntimeKeys> slots;  // slot 0 (Undefined) is always "missing"
  DispatchKeySet non_fallthrough;                     // keys a call may stop at

  const KernelFunction& lookup(DispatchKeySet keys) const { return slots[index_of(keys.highest_priority_key())]; }
};

struct KernelRecord {
  DispatchKey key;
  KernelFunction kernel;
  std::optional<CppSignature> signature;  // nullopt for boxed kernels
  std::string debug;
};

struct FallbackRecord {
  KernelFunction kernel;
  std::string debug;
};
using FallbackTable = std::array<std::optional<FallbackRecord>, kNumRuntimeKeys>;

class OperatorEntry {
 public:
  using KernelList = std::list<KernelRecord>;

  explicit OperatorEntry(OperatorName name);
  OperatorEntry(const OperatorEntry&) = delete;
  OperatorEntry& operator=(const OperatorEntry&) = delete;

  const OperatorName& name() const { return name_; }
  bool has_schema() const { return schema_.has_value(); }
  // Throws when the operator has kernels but no def yet.
  const FunctionSchema& schema() const;
  const std::string& schema_debug() const { return schema_debug_; }

  // The current table: what calls read (lock-free).
  const DispatchTable& table() const { return *table_.load(std::memory_order_acquire); }

  // --- everything below runs under the dispatcher's registration lock ---
  // Checks every existing kernel against the schema; throws naming both registrations.
  void set_schema(FunctionSchema schema, std::string debug, std::vector<std::string> tags);
  void clear_schema();
  // Checks the kernel against the schema and the other kernels; returns where it is kept.
  // When it replaces an active kernel for the same key, *replaced_debug says where that one was.
  KernelList::iterator add_kernel(DispatchKey key, KernelFunction kernel, std::optional<CppSignature> signature,
                                  std::string debug, std::string* replaced_debug);
  void remove_kernel(DispatchKey key, KernelList::iterator it);
  void update_table(const FallbackTable& fallbacks);
  bool unused() const;  // no schema and no kernels: the dispatcher may drop the entry

  OperatorInfo info() const;
  // "CPU, AutogradCPU": the keys with kernels registered directly (for error messages).
  std::string registered_keys() const;
  // The exact C++ signature shared by the unboxed kernels, if there are any.
  const std::optional<CppSignature>& cpp_signature() const { return cpp_signature_; }

 private:
  void check_kernel(const KernelRecord& k) const;
  void refresh_cpp_signature();

  OperatorName name_;
  std::optional<FunctionSchema> schema_;
  std::string schema_debug_;
  std::vector<std::string> tags_;
  std::array<KernelList, kNumKeys> kernels_;  // per key (alias keys too); front() is active
  std::optional<CppSignature> cpp_signature_;
  std::string cpp_signature_debug_;
  std::array<SlotInfo, kNumRuntimeKeys> sources_{};

  std::atomic<const DispatchTable*> table_;
  // Tables are never freed while the entry lives: a call on another thread may still be reading
  // an older one. They are small (a few hundred bytes) and change only on registration.
  std::vector<std::unique_ptr<DispatchTable>> tables_;
};

}  // namespace glassbox
