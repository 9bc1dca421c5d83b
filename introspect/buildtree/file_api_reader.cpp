// Reading a File API reply: the index, then the codemodel and its per-target objects.
#include "engine/core/error.h"
#include "introspect/buildtree/file_api.h"
#include "introspect/buildtree/file_api_objects.h"
#include "introspect/support/json_file.h"

namespace glassbox::introspect {
namespace {

using nlohmann::json;

ObjectVersion read_version(const json& object, std::string_view origin, std::string_view what) {
  const json& v = json_member(object, "version", origin, what);
  ObjectVersion version;
  version.major = static_cast<int>(json_int_or(v, "major", -1, origin));
  version.minor = static_cast<int>(json_int_or(v, "minor", 0, origin));
  if (version.major < 0) throw Error(detail::str_cat(origin, ": ", what, ".version.major: missing"));
  return version;
}

// The call stack of a backtrace node, innermost frame first (parents link outwards).
std::vector<DefinitionSite> backtrace_frames(const json& target, long long node_index, std::string_view origin) {
  std::vector<DefinitionSite> frames;
  auto graph = target.find("backtraceGraph");
  if (node_index < 0 || graph == target.end() || !graph->is_object()) return frames;
  const json& nodes = json_array_or_empty(*graph, "nodes", origin);
  const json& files = json_array_or_empty(*graph, "files", origin);
  const json& commands = json_array_or_empty(*graph, "commands", origin);
  // A cycle or a very long chain is corruption; stop rather than loop.
  for (size_t depth = 0; node_index >= 0 && depth <= nodes.size(); ++depth) {
    if (static_cast<size_t>(node_index) >= nodes.size()) {
      throw Error(detail::str_cat(origin, ": backtrace ", node_index, " is outside backtraceGraph.nodes"));
    }
    const json& node = nodes[node_index];
    const long long file = json_int_or(node, "file", -1, origin);
    if (file < 0 || static_cast<size_t>(file) >= files.size() || !files[file].is_string()) {
      throw Error(detail::str_cat(origin, ": backtrace node ", node_index, " names no valid file"));
    }
    DefinitionSite site;
    site.file = files[file].get<std::string>();
    site.line = static_cast<int>(json_int_or(node, "line", 0, origin));
    const long long command = json_int_or(node, "command", -1, origin);
    if (command >= 0 && static_cast<size_t>(command) < commands.size() && commands[command].is_string()) {
      site.command = commands[command].get<std::string>();
    }
    if (site.line > 0) frames.push_back(std::move(site));
    node_index = json_int_or(node, "parent", -1, origin);
  }
  return frames;
}

// Where a target was defined, for people: the call in its directory's CMakeLists.txt (not the
// add_library inside a helper function or a find module), else the innermost frame in the project,
// else the innermost frame.
std::optional<DefinitionSite> definition_site(const std::vector<DefinitionSite>& frames,
                                              const std::string& source_dir) {
  if (frames.empty()) return std::nullopt;
  const std::string own = (source_dir.empty() || source_dir == ".") ? "CMakeLists.txt" : source_dir + "/CMakeLists.txt";
  for (const auto& f : frames)
    if (f.file == own) return f;
  for (const auto& f : frames)
    if (!f.file.empty() && f.file.front() != '/') return f;
  return frames.front();
}

std::vector<CommandFragment> read_fragments(const json& parent, std::string_view origin) {
  std::vector<CommandFragment> out;
  for (const json& f : json_array_or_empty(parent, "commandFragments", origin)) {
    out.push_back({json_string(f, "fragment", origin, "commandFragments[]"), json_string_or(f, "role", "", origin)});
  }
  return out;
}

CompileGroup read_compile_group(const json& group, std::string_view origin) {
  CompileGroup g;
  g.language = json_string_or(group, "language", "", origin);
  if (auto std_it = group.find("languageStandard"); std_it != group.end() && std_it->is_object()) {
    g.language_standard = json_string_or(*std_it, "standard", "", origin);
  }
  for (const json& f : json_array_or_empty(group, "compileCommandFragments", origin)) {
    g.fragments.push_back(json_string(f, "fragment", origin, "compileCommandFragments[]"));
  }
  for (const json& inc : json_array_or_empty(group, "includes", origin)) {
    g.includes.push_back(
        {json_string(inc, "path", origin, "includes[]"), json_bool_or(inc, "isSystem", false, origin)});
  }
  for (const json& d : json_array_or_empty(group, "defines", origin)) {
    g.defines.push_back(json_string(d, "define", origin, "defines[]"));
  }
  for (const json& i : json_array_or_empty(group, "sourceIndexes", origin)) {
    if (!i.is_number_integer()) throw Error(detail::str_cat(origin, ": sourceIndexes: expected integers"));
    g.source_indexes.push_back(i.get<int>());
  }
  return g;
}

}  // namespace

static FileApiReply read_index(const std::filesystem::path& index_file);

Target read_target_object(const std::filesystem::path& file) {
  const std::string origin = file.string();
  const json root = read_json_file(file);
  if (!root.is_object()) throw Error(origin + ": expected a JSON object (a codemodel target)");
  Target t;
  t.json_file = origin;
  t.name = json_string(root, "name", origin, "");
  t.id = json_string(root, "id", origin, "");
  t.type = json_string(root, "type", origin, "");
  t.name_on_disk = json_string_or(root, "nameOnDisk", "", origin);
  t.folder = root.contains("folder") ? json_string_or(root["folder"], "name", "", origin) : "";
  t.generator_provided = json_bool_or(root, "isGeneratorProvided", false, origin);
  if (auto paths = root.find("paths"); paths != root.end()) {
    t.source_dir = json_string_or(*paths, "source", "", origin);
    t.build_dir = json_string_or(*paths, "build", "", origin);
  }
  for (const json& a : json_array_or_empty(root, "artifacts", origin)) {
    t.artifacts.push_back(json_string(a, "path", origin, "artifacts[]"));
  }
  for (const json& g : json_array_or_empty(root, "compileGroups", origin)) {
    t.compile_groups.push_back(read_compile_group(g, origin));
  }
  std::vector<std::string> group_names;
  for (const json& g : json_array_or_empty(root, "sourceGroups", origin)) {
    group_names.push_back(json_string_or(g, "name", "", origin));
  }
  for (const json& s : json_array_or_empty(root, "sources", origin)) {
    TargetSource src;
    src.path = json_string(s, "path", origin, "sources[]");
    src.generated = json_bool_or(s, "isGenerated", false, origin);
    src.compile_group = static_cast<int>(json_int_or(s, "compileGroupIndex", -1, origin));
    if (src.compile_group >= static_cast<int>(t.compile_groups.size())) {
      throw Error(detail::str_cat(origin, ": source ", src.path, " names compile group ", src.compile_group, " of ",
                                  t.compile_groups.size()));
    }
    const long long sg = json_int_or(s, "sourceGroupIndex", -1, origin);
    if (sg >= 0 && static_cast<size_t>(sg) < group_names.size()) src.source_group = group_names[sg];
    t.sources.push_back(std::move(src));
  }
  if (auto link = root.find("link"); link != root.end() && link->is_object()) {
    t.link_language = json_string_or(*link, "language", "", origin);
    t.link_fragments = read_fragments(*link, origin);
  }
  if (auto archive = root.find("archive"); archive != root.end() && archive->is_object()) {
    t.archive_fragments = read_fragments(*archive, origin);
  }
  for (const json& d : json_array_or_empty(root, "dependencies", origin)) {
    t.dependencies.push_back(json_string(d, "id", origin, "dependencies[]"));
  }
  t.backtrace = backtrace_frames(root, json_int_or(root, "backtrace", -1, origin), origin);
  t.defined_at = definition_site(t.backtrace, t.source_dir);
  return t;
}

CodeModel read_codemodel_object(const std::filesystem::path& file) {
  const std::string origin = file.string();
  const json root = read_json_file(file);
  if (!root.is_object()) throw Error(origin + ": expected a JSON object (the codemodel)");
  CodeModel model;
  model.version = read_version(root, origin, "codemodel");
  if (model.version.major != 2) {
    throw Error(detail::str_cat(origin, ": codemodel version ", model.version.major, ".", model.version.minor,
                                " is not supported (glassbox reads codemodel 2.x)"));
  }
  const json& paths = json_member(root, "paths", origin, "codemodel");
  model.source_dir = json_string(paths, "source", origin, "paths");
  model.build_dir = json_string(paths, "build", origin, "paths");
  const std::filesystem::path reply_dir = file.parent_path();
  for (const json& c : json_array_or_empty(root, "configurations", origin)) {
    Configuration config;
    config.name = json_string_or(c, "name", "", origin);
    std::vector<std::string> projects;
    for (const json& p : json_array_or_empty(c, "projects", origin))
      projects.push_back(json_string_or(p, "name", "", origin));
    for (const json& d : json_array_or_empty(c, "directories", origin)) {
      Directory dir;
      dir.source = json_string(d, "source", origin, "directories[]");
      dir.build = json_string(d, "build", origin, "directories[]");
      dir.parent = static_cast<int>(json_int_or(d, "parentIndex", -1, origin));
      for (const json& i : json_array_or_empty(d, "targetIndexes", origin)) {
        if (i.is_number_integer()) dir.targets.push_back(i.get<int>());
      }
      const long long p = json_int_or(d, "projectIndex", -1, origin);
      if (p >= 0 && static_cast<size_t>(p) < projects.size()) dir.project = projects[p];
      config.directories.push_back(std::move(dir));
    }
    for (const json& t : json_array_or_empty(c, "targets", origin)) {
      const std::string json_file = json_string(t, "jsonFile", origin, "targets[]");
      Target target = read_target_object(reply_dir / json_file);
      const long long dir_index = json_int_or(t, "directoryIndex", -1, origin);
      if (dir_index >= 0 && static_cast<size_t>(dir_index) < config.directories.size() && target.source_dir.empty()) {
        target.source_dir = config.directories[dir_index].source;
        target.build_dir = config.directories[dir_index].build;
        target.defined_at = definition_site(target.backtrace, target.source_dir);
      }
      config.targets.push_back(std::move(target));
    }
    model.configurations.push_back(std::move(config));
  }
  return model;
}

FileApiReply read_file_api_index(const std::filesystem::path& index_file) {
  try {
    return read_index(index_file);
  } catch (const nlohmann::json::exception& e) {  // a shape the checks above did not foresee
    throw Error(detail::str_cat(index_file.string(), ": unexpected content in the File API reply: ", e.what()));
  }
}

static FileApiReply read_index(const std::filesystem::path& index_file) {
  const std::string origin = index_file.string();
  const json root = read_json_file(index_file);
  if (!root.is_object()) throw Error(origin + ": expected a JSON object (a File API reply index)");
  FileApiReply reply;
  reply.index_file = origin;
  const json& cmake = json_member(root, "cmake", origin, "index");
  if (auto v = cmake.find("version"); v != cmake.end()) reply.cmake_version = json_string_or(*v, "string", "", origin);
  if (auto g = cmake.find("generator"); g != cmake.end()) {
    reply.generator = json_string_or(*g, "name", "", origin);
    reply.multi_config = json_bool_or(*g, "multiConfig", false, origin);
  }

  const std::filesystem::path reply_dir = index_file.parent_path();
  std::optional<std::filesystem::path> codemodel_file;
  ObjectVersion unsupported{-1, 0};
  std::string unsupported_file;
  for (const json& object : json_array_or_empty(root, "objects", origin)) {
    const std::string kind = json_string(object, "kind", origin, "objects[]");
    const ObjectVersion version = read_version(object, origin, "objects[]");
    const std::filesystem::path file = reply_dir / json_string(object, "jsonFile", origin, "objects[]");
    if (kind == "codemodel") {
      if (version.major == 2) codemodel_file = file;
      else unsupported = version, unsupported_file = file.string();
    } else if (kind == "cache" && version.major == 2) {
      reply.cache = read_cache_object(file);
    } else if (kind == "cmakeFiles" && version.major == 1) {
      reply.cmake_inputs = read_cmake_files_object(file);
    } else if (kind == "toolchains" && version.major == 1) {
      reply.toolchains = read_toolchains_object(file);
    }
  }
  if (!codemodel_file) {
    if (unsupported.major >= 0) {
      throw Error(detail::str_cat(origin, ": codemodel version ", unsupported.major, ".", unsupported.minor, " (",
                                  unsupported_file, ") is not supported (glassbox reads codemodel 2.x)"));
    }
    throw Error(origin +
                ": the reply has no codemodel object; write the glassbox query (glassbox deps --configure) "
                "and re-run cmake on the build directory");
  }
  reply.codemodel = read_codemodel_object(*codemodel_file);
  reply.build_dir = reply.codemodel.build_dir;
  return reply;
}

}  // namespace glassbox::introspect
