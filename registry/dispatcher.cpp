#include "registry/dispatcher.h"

#include <algorithm>
#include <cstdio>

#include "registry/debugger_hooks.h"

namespace glassbox {

Dispatcher& Dispatcher::singleton() {
  static Dispatcher* d = new Dispatcher();
  return *d;
}

OperatorEntry& Dispatcher::entry_for(const OperatorName& name) {
  auto found = by_name_.find(name);
  if (found != by_name_.end()) return *found->second;
  entries_.emplace_back(name);
  auto it = std::prev(entries_.end());
  by_name_.emplace(name, it);
  it->update_table(fallbacks_);
  return *it;
}

void Dispatcher::drop_if_unused(OperatorEntry& entry) {
  if (!entry.unused()) return;
  auto found = by_name_.find(entry.name());
  auto it = found->second;
  by_name_.erase(found);
  entries_.erase(it);
}

void Dispatcher::warn(std::string message) {
  std::fprintf(stderr, "glassbox warning: %s\n", message.c_str());
  warnings_.push_back(std::move(message));
}

RegistrationHandle Dispatcher::register_library(std::string kind, std::string ns, std::optional<DispatchKey> key,
                                                std::string debug) {
  std::lock_guard lock(mutex_);
  if (kind == "DEF") {
    for (const LibraryInfo& l : libraries_) {
      if (l.kind == "DEF" && l.ns == ns) {
        throw Error("GLASSBOX_LIBRARY(" + ns + ", ...) is defined twice: first at " + l.debug + ", again at " + debug +
                    "; a namespace has one GLASSBOX_LIBRARY block — add operators from other files with "
                    "GLASSBOX_LIBRARY_FRAGMENT(" +
                    ns + ", m)");
      }
    }
  }
  libraries_.push_back({std::move(kind), std::move(ns), key, std::move(debug)});
  auto it = std::prev(libraries_.end());
  return RegistrationHandle([this, it] {
    std::lock_guard lock(mutex_);
    libraries_.erase(it);
  });
}

RegistrationHandle Dispatcher::register_def(FunctionSchema schema, std::string debug, std::vector<std::string> tags) {
  std::lock_guard lock(mutex_);
  const OperatorName name = schema.name;
  OperatorEntry& entry = entry_for(name);
  if (entry.has_schema()) {
    throw Error("operator " + name.full() + " is defined twice: first at " + entry.schema_debug() + " (" +
                entry.schema().to_string() + "), again at " + debug + " (" + schema.to_string() + ")");
  }
  try {
    entry.set_schema(std::move(schema), std::move(debug), std::move(tags));
  } catch (...) {
    drop_if_unused(entry);
    throw;
  }
  detail::registration_event("def", &entry.name(), DispatchKey::Undefined, &entry.schema(), nullptr,
                             entry.schema_debug().c_str());
  OperatorEntry* e = &entry;
  return RegistrationHandle([this, e] {
    std::lock_guard lock(mutex_);
    e->clear_schema();
    drop_if_unused(*e);
  });
}

RegistrationHandle Dispatcher::register_impl(const OperatorName& op, DispatchKey key, KernelFunction kernel,
                                             std::optional<CppSignature> signature, std::string debug) {
  GB_CHECK(key != DispatchKey::Undefined && key < DispatchKey::EndOfKeys, "cannot register a kernel for ", op.full(),
           " under dispatch key ", to_string(key), " (at ", debug, ")");
  std::lock_guard lock(mutex_);
  OperatorEntry& entry = entry_for(op);
  std::string replaced;
  const std::string where = debug;
  OperatorEntry::KernelList::iterator it;
  try {
    it = entry.add_kernel(key, std::move(kernel), std::move(signature), std::move(debug), &replaced);
  } catch (...) {
    drop_if_unused(entry);
    throw;
  }
  if (!replaced.empty()) {
    warn("kernel for " + op.full() + " for dispatch key " + std::string(to_string(key)) + " registered at " + where +
         " replaces the kernel registered at " + replaced);
  }
  entry.update_table(fallbacks_);
  detail::registration_event("impl", &entry.name(), key, nullptr, &it->kernel, it->debug.c_str());
  OperatorEntry* e = &entry;
  return RegistrationHandle([this, e, key, it] {
    std::lock_guard lock(mutex_);
    e->remove_kernel(key, it);
    e->update_table(fallbacks_);
    drop_if_unused(*e);
  });
}

RegistrationHandle Dispatcher::register_fallback(DispatchKey key, KernelFunction kernel, std::string debug) {
  GB_CHECK(is_runtime_key(key), "a fallback needs a runtime dispatch key, not ", to_string(key), " (at ", debug, ")");
  std::lock_guard lock(mutex_);
  auto& slot = fallbacks_[index_of(key)];
  if (slot) {
    throw Error("a fallback for dispatch key " + std::string(to_string(key)) + " is already registered at " +
                slot->debug + "; second fallback at " + debug);
  }
  slot = FallbackRecord{std::move(kernel), std::move(debug)};
  for (OperatorEntry& e : entries_) e.update_table(fallbacks_);
  detail::registration_event("fallback", nullptr, key, nullptr, &slot->kernel, slot->debug.c_str());
  return RegistrationHandle([this, key] {
    std::lock_guard lock(mutex_);
    fallbacks_[index_of(key)].reset();
    for (OperatorEntry& e : entries_) e.update_table(fallbacks_);
  });
}

std::optional<OperatorHandle> Dispatcher::find_op(const OperatorName& name) const {
  std::lock_guard lock(mutex_);
  auto found = by_name_.find(name);
  if (found == by_name_.end()) return std::nullopt;
  return OperatorHandle(&*found->second);
}

OperatorHandle Dispatcher::find_schema_or_throw(std::string_view name, std::string_view overload) const {
  OperatorName op = OperatorName::parse(name);
  if (!overload.empty()) op.overload = std::string(overload);
  std::lock_guard lock(mutex_);
  auto found = by_name_.find(op);
  if (found != by_name_.end() && found->second->has_schema()) return OperatorHandle(&*found->second);
  std::string similar;
  for (const OperatorEntry& e : entries_) {
    if (e.name().ns == op.ns && e.name().name == op.name && e.has_schema())
      similar += (similar.empty() ? "" : ", ") + e.name().full();
  }
  std::string msg = "could not find the schema of operator " + op.full();
  if (found != by_name_.end()) msg += " (it has kernels for " + found->second->registered_keys() + " but no def)";
  if (!similar.empty()) msg += "; overloads that exist: " + similar;
  throw Error(msg);
}

std::vector<OperatorHandle> Dispatcher::operators() const {
  std::lock_guard lock(mutex_);
  std::vector<OperatorHandle> out;
  for (const OperatorEntry& e : entries_) out.emplace_back(const_cast<OperatorEntry*>(&e));
  std::sort(out.begin(), out.end(),
            [](const OperatorHandle& a, const OperatorHandle& b) { return a.name().full() < b.name().full(); });
  return out;
}

RegistryInfo Dispatcher::info() const {
  std::lock_guard lock(mutex_);
  RegistryInfo info;
  info.libraries.assign(libraries_.begin(), libraries_.end());
  for (int i = 1; i < kNumRuntimeKeys; ++i) {
    if (const auto& f = fallbacks_[i])
      info.fallbacks.push_back({static_cast<DispatchKey>(i), f->debug, f->kernel.is_fallthrough()});
  }
  for (const OperatorEntry& e : entries_) info.operators.push_back(e.info());
  std::sort(info.operators.begin(), info.operators.end(),
            [](const OperatorInfo& a, const OperatorInfo& b) { return a.name.full() < b.name.full(); });
  return info;
}

OperatorInfo Dispatcher::info(const OperatorHandle& op) const {
  std::lock_guard lock(mutex_);
  return op.entry().info();
}

std::vector<OperatorInfo> Dispatcher::registrations_for(DispatchKey key) const {
  std::vector<OperatorInfo> out;
  for (OperatorInfo& op : info().operators) {
    std::erase_if(op.kernels, [&](const KernelInfo& k) { return k.key != key; });
    if (!op.kernels.empty()) out.push_back(std::move(op));
  }
  return out;
}

std::vector<std::string> Dispatcher::warnings() const {
  std::lock_guard lock(mutex_);
  return warnings_;
}

std::vector<std::string> Dispatcher::load_errors() const {
  std::lock_guard lock(mutex_);
  return load_errors_;
}

void Dispatcher::record_load_error(std::string message) {
  std::fprintf(stderr, "glassbox error: %s\n", message.c_str());
  std::lock_guard lock(mutex_);
  load_errors_.push_back(std::move(message));
}

// ---- the boxed call path -------------------------------------------------------------------

namespace {
DispatchKeySet keys_of_stack(const OperatorHandle& op, const Stack& stack) {
  const FunctionSchema* schema = op.has_schema() && !op.schema().is_vararg ? &op.schema() : nullptr;
  const size_t n = schema ? std::min(stack.size(), schema->arguments.size()) : stack.size();
  const size_t base = stack.size() - n;
  DispatchKeySet keys;
  for (size_t i = base; i < stack.size(); ++i) {
    const IValue& v = stack[i];
    if (v.is_tensor()) keys = keys | v.to_tensor().key_set();
    else if (v.is_tensor_list()) detail::add_keys(keys, v.to_tensor_list());
    else if (v.is_optional_tensor_list()) detail::add_keys(keys, v.to_optional_tensor_list());
    else if (v.is_device()) detail::add_keys(keys, v.to_device());
    // `Device? device=None` means the CPU, as on the unboxed path.
    else if (v.is_none() && schema && schema->arguments[i - base].type.base == BaseType::Device)
      detail::add_keys(keys, std::optional<Device>());
  }
  return keys;
}

// `table` is read once per call, so the mask and the slot come from the same table.
void dispatch_boxed(const OperatorHandle& op, const DispatchTable& table, DispatchTraceEvent::Kind kind,
                    DispatchKeySet keys, Stack* stack) {
  const KernelFunction& kernel = table.lookup(keys);
  if (dispatch_trace_active()) [[unlikely]] {
    std::vector<Tensor> held;  // the stack's tensors, for a dispatch observer
    detail::TensorArgs tensors;
    for (const IValue& v : *stack) {
      if (v.is_tensor()) held.push_back(v.to_tensor());
      else if (v.is_tensor_list())
        for (const Tensor& t : v.to_tensor_list()) held.push_back(t);
    }
    for (const Tensor& t : held) tensors.push_back(&t);
    DispatchTraceScope scope(kind, op.name(), keys, kernel, tensors);
    kernel.call_boxed(op, keys, stack);
    return;
  }
  kernel.call_boxed(op, keys, stack);
}
}  // namespace

void OperatorHandle::call_boxed(Stack* stack) const {
  const DispatchTable& table = entry_->table();
  const DispatchKeySet keys = detail::apply_local_keys(keys_of_stack(*this, *stack), table.non_fallthrough);
  dispatch_boxed(*this, table, DispatchTraceEvent::Kind::Call, keys, stack);
}

void OperatorHandle::redispatch_boxed(DispatchKeySet keys, Stack* stack) const {
  const DispatchTable& table = entry_->table();
  dispatch_boxed(*this, table, DispatchTraceEvent::Kind::Redispatch, keys & table.non_fallthrough, stack);
}

void missing_kernel(const OperatorHandle& op, DispatchKeySet keys, Stack*) {
  const DispatchKey key = keys.highest_priority_key();
  if (key == DispatchKey::Undefined) {
    throw Error("cannot dispatch " + op.name().full() +
                ": the call has no dispatch key (no tensor or device argument, and no key included on this "
                "thread); registered: " +
                op.entry().registered_keys());
  }
  throw Error("no kernel for " + op.name().full() + " for dispatch key " + std::string(to_string(key)) +
              "; registered: " + op.entry().registered_keys());
}

namespace detail {
void fallthrough_boxed(const KernelFunction&, const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
  op.redispatch_boxed(keys.below(keys.highest_priority_key()), stack);
}

void throw_bad_argument(const OperatorHandle& op, size_t index, const std::exception& e) {
  std::string arg = "argument " + std::to_string(index + 1);
  if (op.has_schema() && index < op.schema().arguments.size()) arg += " '" + op.schema().arguments[index].name + "'";
  throw Error(op.name().full() + ": " + arg + ": " + e.what());
}
void throw_stack_too_short(const OperatorHandle& op, size_t have, size_t want) {
  throw Error(op.name().full() + ": the kernel takes " + std::to_string(want) + " arguments but the stack holds " +
              std::to_string(have));
}
void throw_wrong_result_count(const OperatorHandle& op, size_t have, size_t want) {
  throw Error(op.name().full() + ": the boxed kernel left " + std::to_string(have) + " values on the stack, expected " +
              std::to_string(want));
}
}  // namespace detail

}  // namespace glassbox
