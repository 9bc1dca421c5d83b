#include "graphs/filters.h"

#include <algorithm>
#include <deque>
#include <regex>

#include "engine/core/error.h"

namespace glassbox::graphs {
namespace {

std::regex compile_pattern(const std::string& pattern, std::string_view what) {
  try {
    return std::regex(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    throw Error(detail::str_cat("invalid ", what, " regex '", pattern, "': ", e.what()));
  }
}

bool matches(const Node& node, const std::regex& re) {
  return std::regex_search(node.id, re) || (!node.label.empty() && std::regex_search(node.label, re));
}

// keep[i] for every node matching any of the patterns (or none, when `keep_matching` is false).
std::vector<bool> select_matching(const Graph& graph, const std::vector<std::string>& patterns, bool keep_matching,
                                  std::string_view what) {
  std::vector<std::regex> regexes;
  for (const auto& pattern : patterns) regexes.push_back(compile_pattern(pattern, what));
  std::vector<bool> keep(graph.node_count());
  for (NodeIndex i = 0; i < graph.node_count(); ++i) {
    bool any = false;
    for (const auto& re : regexes)
      if ((any = matches(graph.node(i), re))) break;
    keep[i] = any == keep_matching;
  }
  return keep;
}

}  // namespace

Graph induced_subgraph(const Graph& graph, const std::vector<bool>& keep) {
  GB_CHECK(keep.size() == graph.node_count(), "induced_subgraph: ", keep.size(), " keep flags for a graph of ",
           graph.node_count(), " nodes");
  Graph result(graph.name());
  for (const auto& [key, value] : graph.attributes()) result.set_attribute(key, value);
  std::size_t kept = static_cast<std::size_t>(std::count(keep.begin(), keep.end(), true));
  result.reserve(kept, kept == keep.size() ? graph.edge_count() : 0);
  std::vector<NodeIndex> new_index(graph.node_count());
  for (NodeIndex i = 0; i < graph.node_count(); ++i) {
    if (!keep[i]) continue;
    const Node& node = graph.node(i);
    new_index[i] = result.add_node(node.id, node.kind, node.label, node.attributes);
  }
  for (const Edge& edge : graph.edges())
    if (keep[edge.from] && keep[edge.to])
      result.add_edge(new_index[edge.from], new_index[edge.to], edge.kind, edge.label, edge.attributes);
  return result;
}

Graph include_matching(const Graph& graph, const std::string& pattern) {
  return induced_subgraph(graph, select_matching(graph, {pattern}, true, "include"));
}

Graph exclude_matching(const Graph& graph, const std::string& pattern) {
  return induced_subgraph(graph, select_matching(graph, {pattern}, false, "exclude"));
}

Graph reachable_from(const Graph& graph, const std::vector<std::string>& roots, int depth, Direction direction) {
  // Breadth-first, so each node is reached at its shortest distance from a root.
  std::vector<int> distance(graph.node_count(), -1);
  std::deque<NodeIndex> queue;
  for (const auto& root : roots) {
    auto index = graph.find(root);
    GB_CHECK(index, "root '", root, "' is not a node of graph '", graph.name(), "' (", graph.node_count(), " nodes)");
    if (distance[*index] < 0) {
      distance[*index] = 0;
      queue.push_back(*index);
    }
  }
  auto visit = [&](NodeIndex next, int d) {
    if (distance[next] >= 0) return;
    distance[next] = d;
    queue.push_back(next);
  };
  while (!queue.empty()) {
    NodeIndex current = queue.front();
    queue.pop_front();
    int d = distance[current];
    if (depth >= 0 && d >= depth) continue;
    for (EdgeIndex e : graph.out_edges(current)) visit(graph.edge(e).to, d + 1);
    if (direction == Direction::Both)
      for (EdgeIndex e : graph.in_edges(current)) visit(graph.edge(e).from, d + 1);
  }
  std::vector<bool> keep(graph.node_count());
  for (NodeIndex i = 0; i < graph.node_count(); ++i) keep[i] = distance[i] >= 0;
  return induced_subgraph(graph, keep);
}

Graph hide_external(const Graph& graph) {
  std::vector<bool> keep(graph.node_count());
  for (NodeIndex i = 0; i < graph.node_count(); ++i) keep[i] = graph.node(i).kind != NodeKind::External;
  return induced_subgraph(graph, keep);
}

Graph apply_filters(const Graph& graph, const FilterOptions& options) {
  Graph result = graph;
  if (options.hide_external) result = hide_external(result);
  if (options.collapse_objects) result = collapse_objects_into_targets(result);
  if (options.collapse_sources) result = collapse_sources_into_directories(result, options.collapse_headers);
  if (!options.exclude.empty())
    result = induced_subgraph(result, select_matching(result, options.exclude, false, "exclude"));
  if (!options.include.empty())
    result = induced_subgraph(result, select_matching(result, options.include, true, "include"));
  if (!options.roots.empty()) result = reachable_from(result, options.roots, options.depth, options.direction);
  if (options.cluster_by_directory) result = cluster_by_directory(result, options.clusters);
  return result;
}

}  // namespace glassbox::graphs
