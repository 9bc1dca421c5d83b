#pragma once
// Transitive reduction: an edge a -> c is left out when c is still reached from a through other
// edges (a -> b -> c), so a picture keeps what each node adds. Reachability is what is preserved,
// on graphs with cycles too (edges are examined in order, each against the edges still kept).
#include <vector>

#include "graphs/graph.h"

namespace glassbox::graphs {

// Drops edges of kind `reduce` whose target stays reachable from their source through the kept
// edges of the kinds in `through` (which should include `reduce`). Other edges are kept as they are.
Graph transitive_reduction(const Graph& graph, EdgeKind reduce, const std::vector<EdgeKind>& through);
inline Graph transitive_reduction(const Graph& graph, EdgeKind kind) {
  return transitive_reduction(graph, kind, {kind});
}

}  // namespace glassbox::graphs
