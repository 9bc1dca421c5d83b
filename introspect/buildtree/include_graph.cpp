#include "introspect/buildtree/include_graph.h"

#include <unordered_map>

#include "engine/core/error.h"
#include "introspect/buildtree/build_index.h"

namespace glassbox::introspect {
namespace {

using graphs::EdgeKind;
using graphs::NodeKind;
namespace attr = graphs::attr;

bool under(std::string_view path, std::string_view root) {
  return !root.empty() && path.size() > root.size() && path.substr(0, root.size()) == root && path[root.size()] == '/';
}

bool path_ends_with(std::string_view path, std::string_view suffix) {
  if (suffix.empty() || path.size() < suffix.size()) return false;
  if (path.substr(path.size() - suffix.size()) != suffix) return false;
  return path.size() == suffix.size() || suffix.front() == '/' || path[path.size() - suffix.size() - 1] == '/';
}

}  // namespace

graphs::Graph build_include_graph(const NinjaDeps& deps, const IncludeGraphOptions& options) {
  graphs::Graph graph("includes");
  graph.set_attribute(std::string(attr::kSourceRoot), options.source_root);
  graph.set_attribute("title", "includes — " + (options.build_root.empty() ? deps.file : options.build_root));
  std::unordered_map<graphs::NodeIndex, std::size_t> included_by;

  auto node_for = [&](const std::string& raw, bool translation_unit) {
    const std::string abs = absolute_path(raw, options.build_root);
    const std::string id = graphs::path_relative_to(abs, options.source_root);
    const bool project = under(abs, options.source_root) || under(abs, options.build_root);
    const NodeKind kind = translation_unit ? NodeKind::Source : project ? NodeKind::Header : NodeKind::External;
    const bool is_new = !graph.contains(id);
    const auto n = graph.ensure_node(id, kind);
    if (is_new) graph.set_attribute(n, std::string(attr::kPath), abs);
    // A header compiled on its own elsewhere stays a Source; a source included by another stays a Source too.
    if (translation_unit && graph.node(n).kind != NodeKind::Source) graph.set_kind(n, NodeKind::Source);
    return n;
  };

  std::size_t matched = 0;
  for (const NinjaDepsRecord& record : deps.records) {
    if (record.inputs.empty()) continue;
    const std::string& tu = record.inputs.front();
    if (!options.source.empty() && !path_ends_with(absolute_path(tu, options.build_root), options.source)) continue;
    ++matched;
    const auto from = node_for(tu, true);
    graph.set_attribute(from, "output", record.output);
    for (std::size_t i = 1; i < record.inputs.size(); ++i) {
      const auto to = node_for(record.inputs[i], false);
      if (to == from) continue;
      if (!graph.find_edge(from, to, EdgeKind::Includes)) {
        graph.add_edge(from, to, EdgeKind::Includes);
        ++included_by[to];
      }
    }
  }
  if (!options.source.empty() && matched == 0) {
    throw Error(detail::str_cat(deps.file, ": no translation unit matching ", options.source,
                                " (Ninja records deps only for files it has compiled)"));
  }
  for (const auto& [node, count] : included_by) graph.set_attribute(node, "included_by", std::to_string(count));
  return graph;
}

}  // namespace glassbox::introspect
