// What the source scan shares with and without libclang: operator-name splitting, reading a build
// directory, and the JSON form of a scan.
#include "introspect/source/source_scan.h"

#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "introspect/buildtree/file_api.h"

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

namespace {

// The compile database, entry by entry: an entry that cannot be read (not an object, no "file",
// neither "command" nor "arguments"...) is left out with a warning naming it, instead of failing
// the whole scan. A file that is not a JSON array still fails, with the reader's own message.
CompileDatabase read_entries_leniently(const std::filesystem::path& build_dir, std::vector<std::string>& warnings) {
  try {
    return read_compile_database(build_dir);
  } catch (const std::exception&) {
    const std::filesystem::path file =
        std::filesystem::is_directory(build_dir) ? build_dir / "compile_commands.json" : build_dir;
    std::ifstream in(file, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const nlohmann::json all = nlohmann::json::parse(text, nullptr, false);
    if (!in || all.is_discarded() || !all.is_array()) throw;
    CompileDatabase db;
    db.file = file.string();
    for (std::size_t i = 0; i < all.size(); ++i) {
      try {
        CompileDatabase one = parse_compile_database(nlohmann::json::array({all[i]}).dump(), file.string());
        for (auto& c : one.commands) db.commands.push_back(std::move(c));
        for (auto& w : one.warnings) db.warnings.push_back(std::move(w));
      } catch (const std::exception& e) {
        // The reader numbers the entry of its one-entry array 0: say which entry of the file it is.
        std::string why = e.what();
        if (const auto at = why.find(": entry 0"); at != std::string::npos)
          why.replace(at, 9, ": entry " + std::to_string(i));
        warnings.push_back("skipped a compile-database entry: " + why);
      }
    }
    return db;
  }
}

}  // namespace

SourceScan scan_build_dir(const std::filesystem::path& build_dir, SourceScanOptions options) {
  std::vector<std::string> warnings;
  const CompileDatabase db = read_entries_leniently(build_dir, warnings);
  if (options.source_root.empty() && std::filesystem::is_directory(build_dir) && find_reply_index(build_dir)) {
    options.source_root = read_file_api(build_dir).codemodel.source_dir;
  }
  SourceScan scan = scan_sources(db, options);
  scan.warnings.insert(scan.warnings.begin(), warnings.begin(), warnings.end());
  return scan;
}

std::string source_scan_to_json(const SourceScan& scan, int indent) {
  nlohmann::ordered_json j;
  j["format"] = "glassbox-source-scan";
  j["source_root"] = scan.source_root;
  j["units"] = scan.units;
  j["skipped_units"] = scan.skipped_units;
  j["warnings"] = scan.warnings;
  j["errors"] = nlohmann::ordered_json::array();
  for (const auto& e : scan.errors) {
    j["errors"].push_back({{"file", e.file},
                           {"message", e.message},
                           {"parsed", e.parsed},
                           {"diagnostics", e.diagnostics},
                           {"registrations", e.registrations}});
  }
  j["registrations"] = nlohmann::ordered_json::array();
  for (const auto& r : scan.registrations) {
    j["registrations"].push_back({{"kind", r.kind},
                                  {"block", r.block},
                                  {"namespace", r.ns},
                                  {"dispatch_key", r.dispatch_key},
                                  {"operator", r.qualified_op()},
                                  {"name", r.op},
                                  {"overload", r.overload},
                                  {"schema", r.schema},
                                  {"kernel", r.kernel},
                                  {"kernel_file", r.kernel_file},
                                  {"kernel_line", r.kernel_line},
                                  {"kernel_defined", r.kernel_defined},
                                  {"file", r.file},
                                  {"line", r.line},
                                  {"block_file", r.block_file},
                                  {"block_line", r.block_line},
                                  {"yaml_file", r.yaml_file},
                                  {"yaml_line", r.yaml_line},
                                  {"unit", r.unit}});
  }
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace glassbox::introspect
