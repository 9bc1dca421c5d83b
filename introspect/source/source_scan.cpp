// What the source scan shares with and without libclang: operator-name splitting, reading a build
// directory, and the JSON form of a scan.
#include "introspect/source/source_scan.h"

#include <nlohmann/json.hpp>

#include "introspect/build/file_api.h"

namespace glassbox::introspect {

std::string SourceRegistration::qualified_op() const {
  if (op.empty()) return "";
  return ns + "::" + op + (overload.empty() ? "" : "." + overload);
}

OperatorNameParts split_operator_name(std::string_view text) {
  OperatorNameParts parts;
  std::string_view name = text.substr(0, text.find('('));
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  if (auto sep = name.find("::"); sep != std::string_view::npos) {
    parts.ns = name.substr(0, sep);
    name = name.substr(sep + 2);
  }
  const auto dot = name.find('.');
  parts.op = name.substr(0, dot);
  if (dot != std::string_view::npos) parts.overload = name.substr(dot + 1);
  return parts;
}

SourceScan scan_build_dir(const std::filesystem::path& build_dir, SourceScanOptions options) {
  const CompileDatabase db = read_compile_database(build_dir);
  if (options.source_root.empty() && std::filesystem::is_directory(build_dir) && find_reply_index(build_dir)) {
    options.source_root = read_file_api(build_dir).codemodel.source_dir;
  }
  return scan_sources(db, options);
}

std::string source_scan_to_json(const SourceScan& scan, int indent) {
  nlohmann::ordered_json j;
  j["format"] = "glassbox-source-scan";
  j["source_root"] = scan.source_root;
  j["units"] = scan.units;
  j["skipped_units"] = scan.skipped_units;
  j["errors"] = nlohmann::ordered_json::array();
  for (const auto& e : scan.errors) j["errors"].push_back({{"file", e.file}, {"message", e.message}});
  j["registrations"] = nlohmann::ordered_json::array();
  for (const auto& r : scan.registrations) {
    j["registrations"].push_back({{"kind", r.kind}, {"block", r.block}, {"namespace", r.ns},
                                  {"dispatch_key", r.dispatch_key}, {"operator", r.qualified_op()},
                                  {"name", r.op}, {"overload", r.overload}, {"schema", r.schema},
                                  {"kernel", r.kernel}, {"kernel_file", r.kernel_file},
                                  {"kernel_line", r.kernel_line}, {"kernel_defined", r.kernel_defined},
                                  {"file", r.file}, {"line", r.line}, {"block_file", r.block_file},
                                  {"block_line", r.block_line}, {"yaml_file", r.yaml_file},
                                  {"yaml_line", r.yaml_line}, {"unit", r.unit}});
  }
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace glassbox::introspect
