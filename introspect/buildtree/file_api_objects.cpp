// The smaller File API objects (cache-v2, cmakeFiles-v1, toolchains-v1) and lookups on the reply.
#include "introspect/buildtree/file_api_objects.h"

#include "engine/core/error.h"
#include "introspect/support/json_file.h"

namespace glassbox::introspect {

using nlohmann::json;

std::vector<CacheEntry> read_cache_object(const std::filesystem::path& file) {
  const std::string origin = file.string();
  const json root = read_json_file(file);
  std::vector<CacheEntry> entries;
  for (const json& e : json_array_or_empty(root, "entries", origin)) {
    CacheEntry entry;
    entry.name = json_string(e, "name", origin, "entries[]");
    entry.value = json_string_or(e, "value", "", origin);
    entry.type = json_string_or(e, "type", "", origin);
    for (const json& p : json_array_or_empty(e, "properties", origin)) {
      const std::string name = json_string_or(p, "name", "", origin);
      if (name == "ADVANCED") entry.advanced = json_string_or(p, "value", "", origin) == "1";
      else if (name == "HELPSTRING") entry.help = json_string_or(p, "value", "", origin);
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::vector<std::string> read_cmake_files_object(const std::filesystem::path& file) {
  const std::string origin = file.string();
  const json root = read_json_file(file);
  std::vector<std::string> inputs;
  for (const json& i : json_array_or_empty(root, "inputs", origin)) {
    // CMake's own modules are noise for a project's picture; keep the project's files.
    if (json_bool_or(i, "isCMake", false, origin)) continue;
    inputs.push_back(json_string(i, "path", origin, "inputs[]"));
  }
  return inputs;
}

namespace {
std::vector<std::string> strings_of(const json& parent, std::string_view key, std::string_view origin) {
  std::vector<std::string> out;
  for (const json& s : json_array_or_empty(parent, key, origin))
    if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}
}  // namespace

std::vector<Toolchain> read_toolchains_object(const std::filesystem::path& file) {
  const std::string origin = file.string();
  const json root = read_json_file(file);
  std::vector<Toolchain> toolchains;
  for (const json& t : json_array_or_empty(root, "toolchains", origin)) {
    Toolchain tc;
    tc.language = json_string(t, "language", origin, "toolchains[]");
    if (auto c = t.find("compiler"); c != t.end() && c->is_object()) {
      tc.compiler_path = json_string_or(*c, "path", "", origin);
      tc.compiler_id = json_string_or(*c, "id", "", origin);
      tc.compiler_version = json_string_or(*c, "version", "", origin);
      if (auto imp = c->find("implicit"); imp != c->end() && imp->is_object()) {
        tc.implicit_includes = strings_of(*imp, "includeDirectories", origin);
        tc.implicit_link_directories = strings_of(*imp, "linkDirectories", origin);
        tc.implicit_link_libraries = strings_of(*imp, "linkLibraries", origin);
      }
    }
    tc.source_extensions = strings_of(t, "sourceFileExtensions", origin);
    toolchains.push_back(std::move(tc));
  }
  return toolchains;
}

const Target* Configuration::find_target(std::string_view name_or_id) const {
  for (const auto& t : targets)
    if (t.name == name_or_id || t.id == name_or_id) return &t;
  return nullptr;
}

const Configuration& FileApiReply::configuration(std::string_view name) const {
  if (codemodel.configurations.empty()) throw Error(index_file + ": the codemodel has no configurations");
  if (name.empty()) return codemodel.configurations.front();
  std::string known;
  for (const auto& c : codemodel.configurations) {
    if (c.name == name) return c;
    known += (known.empty() ? "" : ", ") + c.name;
  }
  throw Error(detail::str_cat(index_file, ": no configuration named ", name, " (known: ", known, ")"));
}

const CacheEntry* FileApiReply::cache_entry(std::string_view name) const {
  for (const auto& e : cache)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace glassbox::introspect
