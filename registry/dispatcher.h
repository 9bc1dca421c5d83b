#pragma once
// The Dispatcher: the one registry of operators, kernels and fallbacks, and the call path.
//   call:       keys = (union of the arguments' key sets | thread-local included) - excluded,
//               masked by the operator's non-fallthrough keys; the highest key picks the slot.
//   redispatch: the same lookup on a key set the caller passes down (usually keys.below(K)).
// Registration takes a lock; calls take none.
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/core/local_dispatch_key_set.h"
#include "registry/dispatch_trace.h"
#include "registry/operator_entry.h"
#include "registry/registry_info.h"

namespace glassbox {

template <class Sig>
class TypedOperatorHandle;

// Deregisters what it stands for when destroyed (or when reset() is called). Move-only.
class RegistrationHandle {
 public:
  RegistrationHandle() = default;
  explicit RegistrationHandle(std::function<void()> undo) : undo_(std::move(undo)) {}
  RegistrationHandle(RegistrationHandle&& o) noexcept : undo_(std::exchange(o.undo_, nullptr)) {}
  RegistrationHandle& operator=(RegistrationHandle&& o) noexcept {
    if (this != &o) {
      reset();
      undo_ = std::exchange(o.undo_, nullptr);
    }
    return *this;
  }
  ~RegistrationHandle() { reset(); }
  void reset() {
    if (auto undo = std::exchange(undo_, nullptr)) undo();
  }

 private:
  std::function<void()> undo_;
};

class OperatorHandle {
 public:
  explicit OperatorHandle(OperatorEntry* entry) : entry_(entry) {}

  const OperatorName& name() const { return entry_->name(); }
  bool has_schema() const { return entry_->has_schema(); }
  const FunctionSchema& schema() const { return entry_->schema(); }
  OperatorEntry& entry() const { return *entry_; }

  // A handle for unboxed calls with C++ signature Sig, e.g. typed<Tensor(const Tensor&, int64_t)>().
  // Throws when Sig does not fit the schema or the registered kernels.
  template <class Sig>
  TypedOperatorHandle<Sig> typed() const;

  // Arguments on the stack in schema order; results replace them.
  void call_boxed(Stack* stack) const;
  void redispatch_boxed(DispatchKeySet keys, Stack* stack) const;

  bool operator==(const OperatorHandle& o) const { return entry_ == o.entry_; }

 protected:
  OperatorEntry* entry_;
};

namespace detail {
inline void add_keys(DispatchKeySet& ks, const Tensor& t) { ks = ks | t.key_set(); }
inline void add_keys(DispatchKeySet& ks, const std::optional<Tensor>& t) {
  if (t) ks = ks | t->key_set();
}
inline void add_keys(DispatchKeySet& ks, TensorList l) {
  for (const Tensor& t : l) ks = ks | t.key_set();
}
inline void add_keys(DispatchKeySet& ks, const std::vector<Tensor>& l) { add_keys(ks, TensorList(l)); }
inline void add_keys(DispatchKeySet& ks, OptionalTensorList l) {
  for (const std::optional<Tensor>& t : l) add_keys(ks, t);
}
inline void add_keys(DispatchKeySet& ks, const std::vector<std::optional<Tensor>>& l) {
  add_keys(ks, OptionalTensorList(l));
}
// A device argument (factory functions) contributes its backend key.
inline void add_keys(DispatchKeySet& ks, Device d) { ks = ks.add(backend_key(d.type)); }
// A factory call that names no device makes a CPU tensor, as in PyTorch.
inline void add_keys(DispatchKeySet& ks, const std::optional<Device>& d) { add_keys(ks, d.value_or(Device())); }
template <class T>
inline void add_keys(DispatchKeySet&, const T&) {}

// The tensor arguments of a call, for a dispatch observer (only on the traced path).
using TensorArgs = std::vector<const Tensor*>;
inline void add_tensors(TensorArgs& v, const Tensor& t) { v.push_back(&t); }
inline void add_tensors(TensorArgs& v, const std::optional<Tensor>& t) {
  if (t) v.push_back(&*t);
}
inline void add_tensors(TensorArgs& v, TensorList l) {
  for (const Tensor& t : l) v.push_back(&t);
}
inline void add_tensors(TensorArgs& v, const std::vector<Tensor>& l) { add_tensors(v, TensorList(l)); }
inline void add_tensors(TensorArgs& v, OptionalTensorList l) {
  for (const std::optional<Tensor>& t : l) add_tensors(v, t);
}
inline void add_tensors(TensorArgs& v, const std::vector<std::optional<Tensor>>& l) {
  add_tensors(v, OptionalTensorList(l));
}
template <class T>
inline void add_tensors(TensorArgs&, const T&) {}

inline DispatchKeySet apply_local_keys(DispatchKeySet from_args, DispatchKeySet mask) {
  const LocalDispatchKeySet& local = local_dispatch_key_set();
  return ((from_args | local.included) - local.excluded) & mask;
}
}  // namespace detail

template <class Ret, class... Args>
class TypedOperatorHandle<Ret(Args...)> : public OperatorHandle {
 public:
  Ret call(Args... args) const {
    const DispatchTable& table = entry_->table();
    DispatchKeySet keys;
    (detail::add_keys(keys, args), ...);
    keys = detail::apply_local_keys(keys, table.non_fallthrough);
    const KernelFunction& kernel = table.lookup(keys);
    if (dispatch_trace_active()) [[unlikely]]
      return traced(DispatchTraceEvent::Kind::Call, keys, kernel, std::forward<Args>(args)...);
    return kernel.template call<Ret, Args...>(*this, keys, std::forward<Args>(args)...);
  }

  // keys: what remains to dispatch on, e.g. keys.below(DispatchKey::AutogradCPU).
  Ret redispatch(DispatchKeySet keys, Args... args) const {
    const DispatchTable& table = entry_->table();
    keys = keys & table.non_fallthrough;
    const KernelFunction& kernel = table.lookup(keys);
    if (dispatch_trace_active()) [[unlikely]]
      return traced(DispatchTraceEvent::Kind::Redispatch, keys, kernel, std::forward<Args>(args)...);
    return kernel.template call<Ret, Args...>(*this, keys, std::forward<Args>(args)...);
  }

 private:
  friend class OperatorHandle;
  explicit TypedOperatorHandle(OperatorEntry* e) : OperatorHandle(e) {}

  // The traced path (dispatch trace, debugger hook, profiler), out of line so that the untraced
  // path inlined into every caller stays as small as it was without it.
  [[gnu::noinline]] Ret traced(DispatchTraceEvent::Kind kind, DispatchKeySet keys, const KernelFunction& kernel,
                               Args... args) const {
    detail::TensorArgs tensors;
    (detail::add_tensors(tensors, args), ...);
    DispatchTraceScope scope(kind, name(), keys, kernel, tensors);
    return kernel.template call<Ret, Args...>(*this, keys, std::forward<Args>(args)...);
  }
};

class Dispatcher {
 public:
  // The process-wide registry (never destroyed, so static destructors in any order may still
  // deregister from it).
  static Dispatcher& singleton();

  // One per GLASSBOX_LIBRARY/FRAGMENT/IMPL block; a second DEF block for a namespace throws.
  RegistrationHandle register_library(std::string kind, std::string ns, std::optional<DispatchKey> key,
                                      std::string debug);
  RegistrationHandle register_def(FunctionSchema schema, std::string debug, std::vector<std::string> tags = {});
  // key may be an alias key. signature: from KernelFunction::signature_of (nullopt if boxed).
  RegistrationHandle register_impl(const OperatorName& op, DispatchKey key, KernelFunction kernel,
                                   std::optional<CppSignature> signature, std::string debug);
  RegistrationHandle register_fallback(DispatchKey key, KernelFunction kernel, std::string debug);

  std::optional<OperatorHandle> find_op(const OperatorName& name) const;
  // name "ns::op" (or "ns::op.overload" with overload empty); throws naming what exists instead.
  OperatorHandle find_schema_or_throw(std::string_view name, std::string_view overload = "") const;
  std::vector<OperatorHandle> operators() const;  // sorted by name

  RegistryInfo info() const;
  OperatorInfo info(const OperatorHandle& op) const;
  std::vector<OperatorInfo> registrations_for(DispatchKey key) const;
  std::vector<std::string> warnings() const;
  // Errors raised by registrations in static initialisers (which cannot throw out of dlopen).
  std::vector<std::string> load_errors() const;
  void record_load_error(std::string message);

 private:
  Dispatcher() = default;
  OperatorEntry& entry_for(const OperatorName& name);  // lock held
  void drop_if_unused(OperatorEntry& entry);           // lock held
  void warn(std::string message);                      // lock held

  mutable std::mutex mutex_;
  std::list<OperatorEntry> entries_;  // stable addresses: handles point into it
  std::unordered_map<OperatorName, std::list<OperatorEntry>::iterator> by_name_;
  std::list<LibraryInfo> libraries_;
  FallbackTable fallbacks_;
  std::vector<std::string> warnings_;
  std::vector<std::string> load_errors_;
};

// The kernel of a "missing" slot: throws "no kernel for ns::op for dispatch key K; registered: ...".
void missing_kernel(const OperatorHandle& op, DispatchKeySet keys, Stack* stack);

template <class Sig>
TypedOperatorHandle<Sig> OperatorHandle::typed() const {
  const CppSignature sig = make_cpp_signature<Sig>();
  const auto& registered = entry_->cpp_signature();
  if (registered && registered->call_string() != sig.call_string()) {
    throw Error("typed<" + sig.call_string() + ">() for " + name().full() +
                ": the kernels of this operator have C++ signature " + registered->call_string());
  }
  if (entry_->has_schema()) {
    const std::string why = signature_mismatch(sig, schema());
    if (!why.empty())
      throw Error("typed<" + sig.to_string() + ">() does not match the schema " + schema().to_string() + ": " + why);
  }
  return TypedOperatorHandle<Sig>(entry_);
}

}  // namespace glassbox
