#include "registry/operator_entry.h"

#include "registry/dispatcher.h"

namespace glassbox {

namespace {
constexpr DispatchKey kDefaultBackend = DispatchKey::CompositeExplicitAutograd;
constexpr DispatchKey kMath = DispatchKey::CompositeImplicitAutograd;

const KernelFunction& missing() {
  static const KernelFunction k = KernelFunction::from_boxed(&missing_kernel);
  return k;
}
}  // namespace

std::string_view to_string(Provenance p) {
  switch (p) {
    case Provenance::Kernel: return "kernel";
    case Provenance::DefaultBackendKernel: return "default backend kernel";
    case Provenance::MathKernel: return "math kernel";
    case Provenance::AutogradKernel: return "autograd kernel";
    case Provenance::BackendFallback: return "backend fallback";
    case Provenance::Fallthrough: return "fallthrough";
    case Provenance::Missing: return "missing";
  }
  return "?";
}

OperatorEntry::OperatorEntry(OperatorName name) : name_(std::move(name)) { update_table(FallbackTable{}); }

const FunctionSchema& OperatorEntry::schema() const {
  if (!schema_) {
    throw Error("operator " + name_.full() + " has no schema: kernels are registered (" + registered_keys() +
                ") but no GLASSBOX_LIBRARY or FRAGMENT block defines it with m.def(...)");
  }
  return *schema_;
}

void OperatorEntry::check_kernel(const KernelRecord& k) const {
  if (!k.signature) return;  // boxed kernels take any stack
  if (schema_) {
    const std::string why = signature_mismatch(*k.signature, *schema_);
    if (!why.empty()) {
      throw Error("kernel for " + name_.full() + " (dispatch key " + std::string(to_string(k.key)) +
                  ") registered at " + k.debug + " does not match the schema " + schema_->to_string() + " defined at " +
                  schema_debug_ + ": " + why + "; kernel signature: " + k.signature->to_string());
    }
  }
  if (cpp_signature_ && cpp_signature_->call_string() != k.signature->call_string()) {
    throw Error("kernel for " + name_.full() + " (dispatch key " + std::string(to_string(k.key)) + ") registered at " +
                k.debug + " has C++ signature " + k.signature->call_string() + ", but the kernel registered at " +
                cpp_signature_debug_ + " has " + cpp_signature_->call_string() +
                "; every unboxed kernel of an operator must have the same C++ signature");
  }
}

void OperatorEntry::set_schema(FunctionSchema schema, std::string debug, std::vector<std::string> tags) {
  schema_ = std::move(schema);
  schema_debug_ = std::move(debug);
  try {
    for (const auto& list : kernels_)
      for (const auto& k : list) check_kernel(k);
  } catch (...) {
    clear_schema();
    throw;
  }
  tags_ = std::move(tags);
}

void OperatorEntry::clear_schema() {
  schema_.reset();
  schema_debug_.clear();
  tags_.clear();
}

void OperatorEntry::refresh_cpp_signature() {
  cpp_signature_.reset();
  cpp_signature_debug_.clear();
  for (const auto& list : kernels_)
    for (const auto& k : list)
      if (k.signature && !cpp_signature_) {
        cpp_signature_ = k.signature;
        cpp_signature_debug_ = k.debug;
      }
}

OperatorEntry::KernelList::iterator OperatorEntry::add_kernel(DispatchKey key, KernelFunction kernel,
                                                              std::optional<CppSignature> signature, std::string debug,
                                                              std::string* replaced_debug) {
  KernelRecord record{key, std::move(kernel), std::move(signature), std::move(debug)};
  check_kernel(record);
  KernelList& list = kernels_[index_of(key)];
  if (replaced_debug) *replaced_debug = list.empty() ? std::string() : list.front().debug;
  list.push_front(std::move(record));
  refresh_cpp_signature();
  return list.begin();
}

void OperatorEntry::remove_kernel(DispatchKey key, KernelList::iterator it) {
  kernels_[index_of(key)].erase(it);
  refresh_cpp_signature();
}

bool OperatorEntry::unused() const {
  if (schema_) return false;
  for (const auto& list : kernels_)
    if (!list.empty()) return false;
  return true;
}

void OperatorEntry::update_table(const FallbackTable& fallbacks) {
  auto table = std::make_unique<DispatchTable>();
  auto active = [&](DispatchKey k) -> const KernelRecord* {
    const KernelList& l = kernels_[index_of(k)];
    return l.empty() ? nullptr : &l.front();
  };
  for (int i = 0; i < kNumRuntimeKeys; ++i) {
    const auto key = static_cast<DispatchKey>(i);
    const KernelRecord* chosen = nullptr;
    Provenance provenance = Provenance::Missing;
    // Resolution order per key. Backend keys: own kernel, CompositeExplicitAutograd,
    // CompositeImplicitAutograd. Autograd keys: own kernel, the Autograd alias, then the math
    // kernel when the backend has no kernel of its own (so the decomposition is differentiated).
    if (key == DispatchKey::Undefined) {
    } else if ((chosen = active(key))) {
      provenance = Provenance::Kernel;
    } else if (is_backend_key(key) && (chosen = active(kDefaultBackend))) {
      provenance = Provenance::DefaultBackendKernel;
    } else if (is_backend_key(key) && (chosen = active(kMath))) {
      provenance = Provenance::MathKernel;
    } else if (is_autograd_key(key) && (chosen = active(DispatchKey::Autograd))) {
      provenance = Provenance::AutogradKernel;
    } else if (is_autograd_key(key) && !active(backend_of_autograd_key(key)) && !active(kDefaultBackend) &&
               (chosen = active(kMath))) {
      provenance = Provenance::MathKernel;
    }

    SlotInfo& src = sources_[i];
    src.key = key;
    if (chosen) {
      table->slots[i] = chosen->kernel.unowned();
      src.source_key = chosen->key;
      src.debug = chosen->debug;
      if (chosen->kernel.is_fallthrough()) provenance = Provenance::Fallthrough;
    } else if (key != DispatchKey::Undefined && fallbacks[i]) {
      table->slots[i] = fallbacks[i]->kernel.unowned();
      src.source_key = key;
      src.debug = fallbacks[i]->debug;
      provenance = fallbacks[i]->kernel.is_fallthrough() ? Provenance::Fallthrough : Provenance::BackendFallback;
    } else {
      table->slots[i] = missing();
      src.source_key = key;
      src.debug.clear();
    }
    src.provenance = provenance;
    if (provenance != Provenance::Fallthrough) table->non_fallthrough = table->non_fallthrough.add(key);
  }
  table_.store(table.get(), std::memory_order_release);
  tables_.push_back(std::move(table));
}

std::string OperatorEntry::registered_keys() const {
  std::string out;
  for (int i = 1; i < kNumKeys; ++i) {
    if (kernels_[i].empty()) continue;
    if (!out.empty()) out += ", ";
    out += to_string(static_cast<DispatchKey>(i));
  }
  return out.empty() ? "none" : out;
}

OperatorInfo OperatorEntry::info() const {
  OperatorInfo info;
  info.name = name_;
  if (schema_) info.schema = schema_->to_string();
  info.schema_debug = schema_debug_;
  info.tags = tags_;
  for (int i = 1; i < kNumKeys; ++i) {
    bool first = true;
    for (const KernelRecord& k : kernels_[i]) {
      const std::string kind = k.kernel.is_fallthrough() ? "fallthrough" : k.kernel.has_unboxed() ? "unboxed" : "boxed";
      info.kernels.push_back({k.key, k.debug, kind, k.signature ? k.signature->to_string() : "", first});
      first = false;
    }
  }
  info.table.assign(sources_.begin() + 1, sources_.end());
  return info;
}

}  // namespace glassbox
