#include "registry/library.h"

namespace glassbox {

namespace {
const char* kind_name(Library::Kind k) {
  switch (k) {
    case Library::Kind::DEF: return "DEF";
    case Library::Kind::FRAGMENT: return "FRAGMENT";
    case Library::Kind::IMPL: return "IMPL";
  }
  return "?";
}
}  // namespace

std::string debug_string(const std::source_location& where) {
  return std::string(where.file_name()) + ":" + std::to_string(where.line());
}

Library::Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file, uint32_t line)
    : kind_(kind), ns_(std::move(ns)), key_(key), debug_(std::string(file) + ":" + std::to_string(line)) {
  GB_CHECK(kind != Kind::IMPL || key, "an IMPL library needs a dispatch key (", debug_, ")");
  GB_CHECK(kind == Kind::IMPL || ns_ != "_", "the wildcard namespace '_' is only for GLASSBOX_LIBRARY_IMPL (", debug_,
           ")");
  registrations_.push_back(Dispatcher::singleton().register_library(kind_name(kind), ns_, key, debug_));
}

std::string Library::block_name() const {
  switch (kind_) {
    case Kind::DEF: return "GLASSBOX_LIBRARY(" + ns_ + ")";
    case Kind::FRAGMENT: return "GLASSBOX_LIBRARY_FRAGMENT(" + ns_ + ")";
    case Kind::IMPL: return "GLASSBOX_LIBRARY_IMPL(" + ns_ + ", " + std::string(to_string(*key_)) + ")";
  }
  return "?";
}

OperatorName Library::qualify(std::string_view op, const std::string& where) const {
  OperatorName name = parse_schema_name(op);
  if (name.ns.empty()) name.ns = ns_;
  if (name.ns != ns_) {
    throw Error("operator " + name.full() + " at " + where + " is outside the namespace of the " + block_name() +
                " block at " + debug_);
  }
  return name;
}

Library& Library::def(std::string_view schema_text, std::vector<std::string> tags, std::source_location where) {
  const std::string at = debug_string(where);
  if (kind_ == Kind::IMPL) {
    throw Error(
        "def(\"" + std::string(schema_text) + "\") at " + at + " is not allowed in the " + block_name() + " block at " +
        debug_ +
        ": IMPL blocks only register kernels; define operators in GLASSBOX_LIBRARY or GLASSBOX_LIBRARY_FRAGMENT");
  }
  FunctionSchema schema;
  try {
    schema = parse_schema(schema_text);
  } catch (const SchemaParseError& e) {
    throw SchemaParseError(std::string(e.reason()) + " (in def at " + at + ")", e.schema(), e.column());
  }
  schema.name = qualify(schema.name.full(), at);
  registrations_.push_back(Dispatcher::singleton().register_def(std::move(schema), at, std::move(tags)));
  return *this;
}

Library& Library::impl_kernel(std::string_view op, std::optional<DispatchKey> key, KernelFunction kernel,
                              std::optional<CppSignature> sig, const std::source_location& where) {
  const std::string at = debug_string(where);
  if (ns_ == "_")
    throw Error("impl(\"" + std::string(op) + "\") at " + at + " needs a real namespace, not '_' (" + debug_ + ")");
  DispatchKey k = key ? *key : key_ ? *key_ : DispatchKey::CompositeImplicitAutograd;
  if (key && key_ && *key != *key_) {
    throw Error("impl(\"" + std::string(op) + "\", " + std::string(to_string(*key)) + ") at " + at +
                " names a key other than the " + block_name() + " block's (" + debug_ + ")");
  }
  registrations_.push_back(
      Dispatcher::singleton().register_impl(qualify(op, at), k, std::move(kernel), std::move(sig), at));
  return *this;
}

Library& Library::fallback_kernel(KernelFunction kernel, const std::source_location& where) {
  const std::string at = debug_string(where);
  if (kind_ != Kind::IMPL) {
    throw Error("fallback() at " + at + " is only allowed in a GLASSBOX_LIBRARY_IMPL block; the " + block_name() +
                " block at " + debug_ + " has no dispatch key");
  }
  registrations_.push_back(Dispatcher::singleton().register_fallback(*key_, std::move(kernel), at));
  return *this;
}

namespace detail {
LibraryInitializer::LibraryInitializer(Library::Kind kind, const char* ns, std::optional<DispatchKey> key,
                                       void (*body)(Library&), const char* file, uint32_t line) {
  try {
    library_.emplace(kind, ns, key, file, line);
    body(*library_);
  } catch (const std::exception& e) {
    Dispatcher::singleton().record_load_error(e.what());
  }
}
}  // namespace detail

}  // namespace glassbox
