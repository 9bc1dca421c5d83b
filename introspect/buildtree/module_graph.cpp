#include "introspect/buildtree/module_graph.h"

#include <algorithm>
#include <unordered_map>

#include "engine/core/error.h"
#include "introspect/buildtree/build_index.h"
#include "introspect/buildtree/shell_words.h"

namespace glassbox::introspect {
namespace {

using graphs::EdgeKind;
using graphs::NodeKind;
namespace attr = graphs::attr;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

NodeKind kind_of_target(const Target& t) {
  if (t.type == "EXECUTABLE") return NodeKind::Executable;
  if (t.type == "STATIC_LIBRARY" || t.type == "SHARED_LIBRARY" || t.type == "MODULE_LIBRARY" ||
      t.type == "OBJECT_LIBRARY") {
    return NodeKind::Library;
  }
  return NodeKind::Target;  // INTERFACE_LIBRARY, UTILITY
}

bool is_header(std::string_view path) {
  for (std::string_view ext : {".h", ".hh", ".hpp", ".hxx", ".h++", ".inc", ".inl", ".cuh", ".ipp", ".tcc"})
    if (ends_with(path, ext)) return true;
  return false;
}

bool looks_like_library(std::string_view path) {
  const std::string name = std::filesystem::path(std::string(path)).filename().string();
  return ends_with(name, ".a") || ends_with(name, ".so") || name.find(".so.") != std::string::npos ||
         ends_with(name, ".dylib") || ends_with(name, ".lib") || ends_with(name, ".tbd");
}

// CMake's own bookkeeping listed among sources: custom-command rule files, utility stamps and
// object files under CMakeFiles/ (object libraries are handled as links).
bool is_cmake_internal(const TargetSource& s) {
  if (!s.generated || s.compile_group >= 0) return false;
  return ends_with(s.path, ".rule") || s.path.find("/CMakeFiles/") != std::string::npos;
}

std::string file_size(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? std::string() : std::to_string(size);
}

class ModuleGraphBuilder {
 public:
  ModuleGraphBuilder(const FileApiReply& reply, const CompileDatabase* db, const NinjaLog* log,
                     const ModuleGraphOptions& options, const CMakeGraphviz* direct_links)
      : reply_(reply), index_(reply, options.configuration), options_(options), direct_links_(direct_links) {
    if (log) {
      for (const auto& e : log->entries)
        duration_of_output_[absolute_path(e.output, index_.build_dir())] = e.duration_ms();
    }
    if (db) {
      for (const auto& c : db->commands) {
        if (!c.output.empty()) output_of_source_[c.file].push_back(c.output);
      }
    }
  }

  graphs::Graph build() {
    graphs::Graph graph("modules");
    graph.set_attribute(std::string(attr::kSourceRoot), index_.source_dir());
    graph.set_attribute("build_root", index_.build_dir());
    graph.set_attribute("title", title());
    const Configuration& config = *index_.configuration();
    for (const Target& t : config.targets)
      if (wanted(t)) add_target_node(graph, t);
    for (const Target& t : config.targets) {
      if (!wanted(t)) continue;
      add_sources(graph, t, options_.sources);
      if (!direct_links_) add_links(graph, t);
    }
    if (direct_links_) add_direct_links(graph, *direct_links_);
    graph.set_attribute("link_edges", std::string(direct_links_ ? kLinkEdgesFromGraphviz : kLinkEdgesFromLinkLines));
    if (options_.build_order) {
      for (const Target& t : config.targets) {
        if (!wanted(t)) continue;
        for (const auto& dep_id : t.dependencies) {
          const Target* dep = index_.target_by_id(dep_id);
          if (!dep || !wanted(*dep)) continue;
          const auto from = graph.index_of(t.name), to = graph.index_of(dep->name);
          if (!options_.redundant_build_order && graph.find_edge(from, to, EdgeKind::Links)) continue;
          graph.ensure_edge(from, to, EdgeKind::Depends);
        }
      }
    }
    return graph;
  }

 private:
  bool wanted(const Target& t) const {
    if (t.type == "UTILITY" && !options_.utility_targets) return false;
    return options_.generator_targets || !t.generator_provided;
  }

  // The direct edges CMake draws: between targets by name; any other item (an imported target, a
  // library name or path) is an external library unless its path is one of the build's artifacts.
  void add_direct_links(graphs::Graph& graph, const CMakeGraphviz& gv) {
    for (const GraphvizNode& n : gv.nodes) {
      if (n.aliases.empty()) continue;
      if (auto i = graph.find(n.name); i && graphs::is_target_kind(graph.node(*i).kind)) {
        std::string joined;
        for (const auto& a : n.aliases) joined += (joined.empty() ? "" : ",") + a;
        graph.set_attribute(*i, "aliases", joined);
      }
    }
    auto node_of = [&](const std::string& name) -> std::optional<graphs::NodeIndex> {
      if (const Target* t = index_.configuration()->find_target(name)) {
        if (!wanted(*t) || !graph.contains(t->name)) return std::nullopt;
        return graph.index_of(t->name);
      }
      if (name.find('/') != std::string::npos) {
        if (const Target* t = index_.target_of_artifact(absolute_path(name, index_.build_dir()))) {
          if (graph.contains(t->name)) return graph.index_of(t->name);
        }
      }
      // An INTERFACE library without sources is no build-system target, so the File API leaves it
      // out; CMake draws it as a pentagon, as it does imported targets, which are named "ns::name".
      const GraphvizNode* drawn = gv.find(name);
      if (drawn && drawn->shape == "pentagon" && name.find("::") == std::string::npos) {
        if (auto existing = graph.find(name)) return *existing;
        graphs::Attributes a;
        a[std::string(attr::kType)] = "INTERFACE_LIBRARY";
        a["name"] = name;
        return graph.add_node(name, NodeKind::Target, name, std::move(a));
      }
      return external_node(graph, name);
    };
    for (const GraphvizEdge& e : gv.edges) {
      const auto from = node_of(e.from), to = node_of(e.to);
      if (!from || !to || *from == *to) continue;
      const auto edge = graph.ensure_edge(*from, *to, EdgeKind::Links);
      graph.set_edge_attribute(edge, "via", e.scope);
    }
  }

  // An external library as a link item names it: a path, "-lfoo", "foo" or an imported target.
  graphs::NodeIndex external_node(graphs::Graph& graph, const std::string& item) {
    const bool is_path = item.find('/') != std::string::npos;
    const std::string id = external_node_id(item);
    if (auto existing = graph.find(id)) return *existing;
    std::string label = item;
    if (is_path) label = std::filesystem::path(item).filename().string();
    else if (item.find("::") == std::string::npos && item[0] != '-' && item.find('.') == std::string::npos)
      label = "lib" + item;
    const auto node = graph.add_node(id, NodeKind::External, label);
    graph.set_attribute(node, "name", item);
    if (is_path) {
      graph.set_attribute(node, std::string(attr::kPath), item);
      graph.set_attribute(node, std::string(attr::kDirectory), std::filesystem::path(item).parent_path().string());
      if (auto size = file_size(item); !size.empty()) graph.set_attribute(node, std::string(attr::kSize), size);
    }
    return node;
  }

  std::string title() const {
    const auto& dirs = index_.configuration()->directories;
    std::string project = dirs.empty() ? "" : dirs.front().project;
    // The build directory as the project knows it ("build/dev") when it lies inside the sources.
    return (project.empty() ? std::string("build") : project) + " — " +
           graphs::path_relative_to(index_.build_dir(), index_.source_dir());
  }

  // How a file is named in the graph: relative to the source dir, else to the build dir, else absolute.
  std::string display_path(const std::string& absolute) const {
    std::string rel = graphs::path_relative_to(absolute, index_.source_dir());
    if (rel != absolute) return rel;
    rel = graphs::path_relative_to(absolute, index_.build_dir());
    return rel != absolute ? "<build>/" + rel : absolute;
  }

  void add_target_node(graphs::Graph& graph, const Target& t) {
    graphs::Attributes a;
    a[std::string(attr::kType)] = t.type;
    a["name"] = t.name;
    a[std::string(attr::kDirectory)] = absolute_path(t.source_dir, index_.source_dir());
    std::string label = t.name;
    if (!t.artifacts.empty() && t.type != "OBJECT_LIBRARY") {
      const std::string artifact = absolute_path(t.artifacts.front(), index_.build_dir());
      a[std::string(attr::kPath)] = artifact;
      if (auto size = file_size(artifact); !size.empty()) a[std::string(attr::kSize)] = size;
      label = graphs::path_relative_to(artifact, index_.build_dir());
      if (auto it = duration_of_output_.find(artifact); it != duration_of_output_.end()) {
        a["link_ms"] = std::to_string(it->second);
      }
    }
    if (t.defined_at) {
      a[std::string(attr::kFile)] = t.defined_at->file;
      a[std::string(attr::kLine)] = std::to_string(t.defined_at->line);
    }
    graph.add_node(t.name, kind_of_target(t), label, std::move(a));
  }

  // Adds the target's sources (when add_nodes) and its total compile time.
  void add_sources(graphs::Graph& graph, const Target& t, bool add_nodes) {
    const auto target = graph.index_of(t.name);
    long long target_compile_ms = 0;
    for (const TargetSource& s : t.sources) {
      if (is_cmake_internal(s)) continue;
      const std::string abs = absolute_path(s.path, index_.source_dir());
      if (!add_nodes) {
        if (s.compile_group >= 0) target_compile_ms += std::max(0LL, compile_ms(abs, t));
        continue;
      }
      const std::string rel = display_path(abs);
      const NodeKind kind = s.generated      ? NodeKind::GeneratedSource
                            : is_header(abs) ? NodeKind::Header
                                             : NodeKind::Source;
      std::string id = rel;
      if (auto existing = graph.find(id); existing && graphs::is_target_kind(graph.node(*existing).kind))
        id = "source:" + rel;
      const bool is_new = !graph.contains(id);
      const auto node = graph.ensure_node(id, kind, rel);
      if (is_new) {
        graph.set_attribute(node, std::string(attr::kPath), abs);
        graph.set_attribute(node, std::string(attr::kTarget), t.name);
        if (auto size = file_size(abs); !size.empty()) graph.set_attribute(node, std::string(attr::kSize), size);
        if (s.generated) graph.set_attribute(node, "generated", "true");
      }
      if (s.compile_group >= 0) {
        const long long ms = compile_ms(abs, t);
        if (ms >= 0) {
          target_compile_ms += ms;
          if (is_new) graph.set_attribute(node, std::string(attr::kCompileMs), std::to_string(ms));
        }
      }
      graph.ensure_edge(target, node, EdgeKind::Compiles);
    }
    if (target_compile_ms > 0)
      graph.set_attribute(target, std::string(attr::kCompileMs), std::to_string(target_compile_ms));
  }

  // Compile time of `source` in target `t` from .ninja_log, via the compile database's output.
  long long compile_ms(const std::string& source, const Target& t) const {
    auto outputs = output_of_source_.find(source);
    if (outputs == output_of_source_.end()) return -1;
    for (const auto& out : outputs->second) {
      if (target_from_object_path(out) != t.name && outputs->second.size() > 1) continue;
      if (auto it = duration_of_output_.find(out); it != duration_of_output_.end()) return it->second;
    }
    return -1;
  }

  void link_to_target(graphs::Graph& graph, graphs::NodeIndex from, const Target& dep, std::string via) {
    if (!graph.contains(dep.name) || dep.name == graph.node(from).id) return;
    const auto e = graph.ensure_edge(from, graph.index_of(dep.name), EdgeKind::Links);
    if (graph.edge(e).attribute("via").empty()) graph.set_edge_attribute(e, "via", std::move(via));
  }

  void link_to_external(graphs::Graph& graph, graphs::NodeIndex from, const std::string& name, const std::string& path,
                        std::string via) {
    const std::string id = external_node_id(path.empty() ? name : path);
    std::string label = path.empty() ? "lib" + name : std::filesystem::path(path).filename().string();
    const bool is_new = !graph.contains(id);
    const auto node = graph.ensure_node(id, NodeKind::External, label);
    if (is_new && !path.empty()) {
      graph.set_attribute(node, std::string(attr::kPath), path);
      graph.set_attribute(node, std::string(attr::kDirectory), std::filesystem::path(path).parent_path().string());
      if (auto size = file_size(path); !size.empty()) graph.set_attribute(node, std::string(attr::kSize), size);
    }
    const auto e = graph.ensure_edge(from, node, EdgeKind::Links);
    if (graph.edge(e).attribute("via").empty()) graph.set_edge_attribute(e, "via", std::move(via));
  }

  void add_links(graphs::Graph& graph, const Target& t) {
    const auto from = graph.index_of(t.name);
    // Objects of object libraries reach the link as sources of the consumer.
    for (const TargetSource& s : t.sources) {
      if (s.compile_group >= 0) continue;
      if (const Target* dep = index_.target_of_artifact(absolute_path(s.path, index_.build_dir()));
          dep && dep != &t && dep->type == "OBJECT_LIBRARY") {
        link_to_target(graph, from, *dep, "objects");
      }
    }
    for (const CommandFragment& f : t.link_fragments) {
      if (f.role != "libraries") continue;
      std::vector<std::string> words;
      try {
        words = split_shell_words(f.fragment, t.json_file);
      } catch (const Error&) {
        words = {f.fragment};
      }
      for (const std::string& w : words) add_link_word(graph, from, t, w);
    }
  }

  void add_link_word(graphs::Graph& graph, graphs::NodeIndex from, const Target& t, const std::string& word) {
    if (word.empty()) return;
    if (word.rfind("-l", 0) == 0 && word.size() > 2) {
      // -lfoo finds libfoo.so or libfoo.a; -l:name finds the file "name".
      const std::string name = word.substr(2);
      const Target* dep = nullptr;
      if (name[0] == ':') {
        dep = index_.target_of_artifact_name(name.substr(1));
      } else {
        dep = index_.target_of_artifact_name("lib" + name + ".so");
        if (!dep) dep = index_.target_of_artifact_name("lib" + name + ".a");
      }
      if (dep) link_to_target(graph, from, *dep, word);
      else link_to_external(graph, from, name[0] == ':' ? name.substr(1) : name, "", word);
      return;
    }
    if (word[0] == '-') return;  // -Wl,..., -pthread and other linker flags
    const std::string abs = absolute_path(word, index_.build_dir());
    if (const Target* dep = index_.target_of_artifact(abs)) {
      link_to_target(graph, from, *dep, dep->type == "OBJECT_LIBRARY" ? "objects" : "path");
    } else if (looks_like_library(abs)) {
      link_to_external(graph, from, "", abs, "path");
    }
  }

  const FileApiReply& reply_;
  BuildIndex index_;
  ModuleGraphOptions options_;
  const CMakeGraphviz* direct_links_ = nullptr;
  std::unordered_map<std::string, long long> duration_of_output_;               // absolute output -> ms
  std::unordered_map<std::string, std::vector<std::string>> output_of_source_;  // source -> outputs
};

}  // namespace

std::string external_node_id(std::string_view library) { return "external:" + std::string(library); }

graphs::Graph build_module_graph(const FileApiReply& reply, const CompileDatabase* compile_db,
                                 const NinjaLog* ninja_log, const ModuleGraphOptions& options,
                                 const CMakeGraphviz* direct_links) {
  return ModuleGraphBuilder(reply, compile_db, ninja_log, options, direct_links).build();
}

BuildDirInputs read_build_dir(const std::filesystem::path& build_dir, const FileApiOptions& file_api,
                              const ModuleGraphOptions& options) {
  BuildDirInputs inputs{read_file_api(build_dir, file_api), std::nullopt, std::nullopt, std::nullopt, {}};
  if (options.link_edges != ModuleGraphOptions::LinkEdges::LinkLines) {
    std::string cmake = options.cmake;
    if (cmake.empty()) {
      const CacheEntry* entry = inputs.reply.cache_entry("CMAKE_COMMAND");
      cmake = entry && !entry->value.empty() ? entry->value : "cmake";
    }
    try {
      inputs.direct_links = cmake_graphviz_of(build_dir, cmake);
    } catch (const Error& e) {
      if (options.link_edges == ModuleGraphOptions::LinkEdges::CMakeGraphviz) throw;
      inputs.warnings.push_back(std::string(e.what()) + " (link edges from the link command lines instead)");
    }
  }
  std::error_code ec;
  if (std::filesystem::exists(build_dir / "compile_commands.json", ec)) {
    try {
      inputs.compile_db = read_compile_database(build_dir);
    } catch (const Error& e) {
      inputs.warnings.push_back(std::string(e.what()) + " (compile times left out)");
    }
  }
  if (std::filesystem::exists(build_dir / ".ninja_log", ec)) {
    try {
      inputs.ninja_log = read_ninja_log(build_dir);
    } catch (const Error& e) {
      inputs.warnings.push_back(std::string(e.what()) + " (compile times left out)");
    }
  }
  return inputs;
}

graphs::Graph module_graph_of(const std::filesystem::path& build_dir, const ModuleGraphOptions& options,
                              const FileApiOptions& file_api) {
  const BuildDirInputs in = read_build_dir(build_dir, file_api, options);
  return build_module_graph(in.reply, in.compile_db ? &*in.compile_db : nullptr,
                            in.ninja_log ? &*in.ninja_log : nullptr, options,
                            in.direct_links ? &*in.direct_links : nullptr);
}

}  // namespace glassbox::introspect
