#include "graphs/reduction.h"

#include <algorithm>

namespace glassbox::graphs {

Graph transitive_reduction(const Graph& graph, EdgeKind reduce, const std::vector<EdgeKind>& through) {
  const std::size_t n = graph.node_count();
  std::vector<bool> followed(graph.edge_count(), false), kept(graph.edge_count(), true);
  std::vector<std::vector<EdgeIndex>> out(n);
  for (EdgeIndex e = 0; e < graph.edge_count(); ++e) {
    const Edge& edge = graph.edge(e);
    followed[e] = std::find(through.begin(), through.end(), edge.kind) != through.end();
    if (followed[e]) out[edge.from].push_back(e);
  }
  // Is `to` reachable from `from` through kept, followed edges other than `skip`?
  std::vector<std::size_t> seen(n, 0);
  std::size_t stamp = 0;
  std::vector<NodeIndex> stack;
  auto reachable_without = [&](NodeIndex from, NodeIndex to, EdgeIndex skip) {
    ++stamp;
    stack.assign(1, from);
    seen[from] = stamp;
    while (!stack.empty()) {
      const NodeIndex at = stack.back();
      stack.pop_back();
      for (EdgeIndex e : out[at]) {
        if (e == skip || !kept[e]) continue;
        const NodeIndex next = graph.edge(e).to;
        if (next == to) return true;
        if (seen[next] != stamp) {
          seen[next] = stamp;
          stack.push_back(next);
        }
      }
    }
    return false;
  };
  for (EdgeIndex e = 0; e < graph.edge_count(); ++e) {
    const Edge& edge = graph.edge(e);
    if (edge.kind != reduce || edge.from == edge.to) continue;
    if (reachable_without(edge.from, edge.to, e)) kept[e] = false;
  }

  Graph result(graph.name());
  for (const auto& [key, value] : graph.attributes()) result.set_attribute(key, value);
  for (const Node& node : graph.nodes()) result.add_node(node.id, node.kind, node.label, node.attributes);
  for (EdgeIndex e = 0; e < graph.edge_count(); ++e) {
    if (!kept[e]) continue;
    const Edge& edge = graph.edge(e);
    const EdgeIndex added = result.add_edge(edge.from, edge.to, edge.kind, edge.label);
    for (const auto& [key, value] : edge.attributes) result.set_edge_attribute(added, key, value);
  }
  return result;
}

}  // namespace glassbox::graphs
