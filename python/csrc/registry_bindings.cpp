// The registry from Python: dumps, JSON, schemas, keys and the dispatch trace.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "registry/dispatcher.h"
#include "registry/registry_dump.h"

namespace py = pybind11;
using namespace glassbox;

namespace {
OperatorHandle find(const std::string& name) {
  const OperatorName op = OperatorName::parse(name);
  if (auto found = Dispatcher::singleton().find_op(op)) return *found;
  return Dispatcher::singleton().find_schema_or_throw(name);  // throws with what exists instead
}
}  // namespace

void bind_registry(py::module_& m) {
  py::module_ r = m.def_submodule("_registry", "the operator registry and dispatcher");
  r.def(
      "dump", [](const std::string& op) { return dump(find(op)); }, py::arg("op"));
  r.def(
      "dump_table", [](const std::string& op) { return dump_table(find(op)); }, py::arg("op"));
  r.def(
      "dump_registrations", [](const std::string& key) { return dump_registrations(dispatch_key_from_string(key)); },
      py::arg("key"));
  r.def(
      "to_json", [](int indent) { return registry_to_json(indent); }, py::arg("indent") = 2);
  r.def(
      "operator_to_json", [](const std::string& op, int indent) { return operator_to_json(find(op), indent); },
      py::arg("op"), py::arg("indent") = 2);
  r.def("operators", [] {
    std::vector<std::string> names;
    for (const OperatorHandle& op : Dispatcher::singleton().operators()) names.push_back(op.name().full());
    return names;
  });
  r.def("load_errors", [] { return Dispatcher::singleton().load_errors(); });
  r.def("warnings", [] { return Dispatcher::singleton().warnings(); });
  r.def(
      "parse_schema", [](const std::string& text) { return parse_schema(text).to_string(); }, py::arg("schema"),
      "Parses a schema and prints it back in canonical form; raises ValueError pointing at the column.");
  r.def("dispatch_keys", [] {
    std::vector<std::string> keys;
    for (int i = 1; i < kNumKeys; ++i) keys.emplace_back(to_string(static_cast<DispatchKey>(i)));
    return keys;
  });
  r.def("set_dispatch_trace", &set_dispatch_trace, py::arg("on"));
  r.def("dispatch_trace_enabled", &dispatch_trace_enabled);
}
