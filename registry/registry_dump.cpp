#include "registry/registry_dump.h"

#include "registry/json_writer.h"

namespace glassbox {

namespace {
std::string slot_line(const SlotInfo& s) {
  std::string line = std::string(to_string(s.key)) + ": ";
  if (s.provenance == Provenance::Missing) return line + "[missing]";
  if (s.provenance == Provenance::Fallthrough) line += "fallthrough ";
  line += "registered at " + s.debug;
  if (s.source_key != s.key && s.provenance != Provenance::BackendFallback)
    line += " as " + std::string(to_string(s.source_key));
  return line + " [" + std::string(to_string(s.provenance)) + "]";
}

std::string kernel_line(const KernelInfo& k) {
  std::string line = std::string(to_string(k.key)) + (is_alias_key(k.key) ? "[alias]" : "") + ": registered at " +
                     k.debug + " [" + k.kind;
  if (!k.cpp_signature.empty()) line += ": " + k.cpp_signature;
  line += "]";
  if (!k.active) line += " (replaced by a later registration)";
  return line;
}

void write_operator(JsonWriter& w, const OperatorInfo& op) {
  w.begin_object();
  w.field("name", op.name.full()).field("namespace", op.name.ns).field("base_name", op.name.name);
  w.field("overload", op.name.overload);
  w.key("schema");
  if (op.schema) w.value(*op.schema);
  else w.null();
  w.field("defined_at", op.schema_debug);
  w.key("tags").begin_array();
  for (const auto& t : op.tags) w.value(t);
  w.end_array();
  w.key("kernels").begin_array();
  for (const KernelInfo& k : op.kernels) {
    w.begin_object();
    w.field("key", std::string(to_string(k.key))).field("alias", is_alias_key(k.key));
    w.field("registered_at", k.debug).field("kind", k.kind).field("cpp_signature", k.cpp_signature);
    w.field("active", k.active);
    w.end_object();
  }
  w.end_array();
  w.key("table").begin_array();
  for (const SlotInfo& s : op.table) {
    w.begin_object();
    w.field("key", std::string(to_string(s.key))).field("provenance", std::string(to_string(s.provenance)));
    w.field("source_key", std::string(to_string(s.source_key))).field("registered_at", s.debug);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}
}  // namespace

std::string dump(const OperatorHandle& op) {
  const OperatorInfo info = Dispatcher::singleton().info(op);
  std::string out = "operator: " + info.name.full() + "\n";
  if (info.schema) out += "schema: " + *info.schema + "\n  defined at " + info.schema_debug + "\n";
  else out += "schema: (none: no def yet)\n";
  if (!info.tags.empty()) {
    out += "tags:";
    for (const auto& t : info.tags) out += " " + t;
    out += "\n";
  }
  out += "kernels:\n";
  if (info.kernels.empty()) out += "  (none)\n";
  for (const KernelInfo& k : info.kernels) out += "  " + kernel_line(k) + "\n";
  return out;
}

std::string dump_table(const OperatorHandle& op) {
  const OperatorInfo info = Dispatcher::singleton().info(op);
  std::string out;
  for (const SlotInfo& s : info.table) out += slot_line(s) + "\n";
  return out;
}

std::string dump_registrations(DispatchKey key) {
  std::string out = "registrations for dispatch key " + std::string(to_string(key)) + ":\n";
  const auto ops = Dispatcher::singleton().registrations_for(key);
  if (ops.empty()) out += "  (no kernels)\n";
  for (const OperatorInfo& op : ops)
    for (const KernelInfo& k : op.kernels)
      out += "  " + op.name.full() + ": registered at " + k.debug + " [" + k.kind + "]" +
             (k.active ? "" : " (replaced)") + "\n";
  for (const FallbackInfo& f : Dispatcher::singleton().info().fallbacks)
    if (f.key == key)
      out += "  fallback: " + std::string(f.fallthrough ? "fallthrough " : "") + "registered at " + f.debug + "\n";
  return out;
}

std::string operator_to_json(const OperatorHandle& op, int indent) {
  JsonWriter w(indent);
  write_operator(w, Dispatcher::singleton().info(op));
  return w.str();
}

std::string registry_to_json(int indent) {
  const RegistryInfo info = Dispatcher::singleton().info();
  JsonWriter w(indent);
  w.begin_object();
  w.field("format", "glassbox-registry").field("version", 1);
  w.key("dispatch_keys").begin_array();
  for (int i = 1; i < kNumKeys; ++i) w.value(std::string(to_string(static_cast<DispatchKey>(i))));
  w.end_array();
  w.key("libraries").begin_array();
  for (const LibraryInfo& l : info.libraries) {
    w.begin_object().field("kind", l.kind).field("namespace", l.ns);
    w.key("key");
    if (l.key) w.value(std::string(to_string(*l.key)));
    else w.null();
    w.field("defined_at", l.debug).end_object();
  }
  w.end_array();
  w.key("fallbacks").begin_array();
  for (const FallbackInfo& f : info.fallbacks) {
    w.begin_object().field("key", std::string(to_string(f.key))).field("registered_at", f.debug);
    w.field("fallthrough", f.fallthrough).end_object();
  }
  w.end_array();
  w.key("operators").begin_array();
  for (const OperatorInfo& op : info.operators) write_operator(w, op);
  w.end_array();
  w.end_object();
  return w.str();
}

}  // namespace glassbox
