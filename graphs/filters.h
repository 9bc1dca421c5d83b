#pragma once
// Selecting part of a graph: regex include/exclude, depth-limited reachability from roots, hiding
// external nodes. Every transformation returns a new graph; kept nodes and edges keep their order.
// apply_filters() runs the whole pipeline the CLI's flags describe.
#include <optional>
#include <string>
#include <vector>

#include "graphs/clusters.h"
#include "graphs/collapse.h"
#include "graphs/graph.h"

namespace glassbox::graphs {

// The subgraph induced by the nodes with keep[i] true: those nodes and the edges between them.
Graph induced_subgraph(const Graph& graph, const std::vector<bool>& keep);

// Keeps nodes whose id or label contains a match of the ECMAScript regex `pattern`
// (std::regex_search). Throws glassbox::Error naming the pattern when it does not compile.
Graph include_matching(const Graph& graph, const std::string& pattern);
// Drops nodes whose id or label contains a match of `pattern`.
Graph exclude_matching(const Graph& graph, const std::string& pattern);

enum class Direction { Out, Both };
// Nodes within `depth` edges of any root (depth 0: the roots alone; negative: unlimited), following
// out-edges, or edges in both directions. Roots are ids; a missing root throws glassbox::Error.
Graph reachable_from(const Graph& graph, const std::vector<std::string>& roots, int depth,
                     Direction direction = Direction::Out);

// Drops External nodes and their edges.
Graph hide_external(const Graph& graph);

// The CLI's filters, applied by apply_filters() in this order: hide external, collapse objects,
// collapse sources (and headers), exclude, include, reachability, then clusters. Empty / false
// fields are skipped.
struct FilterOptions {
  bool hide_external = false;
  bool collapse_objects = false;
  bool collapse_sources = false;
  bool collapse_headers = false;       // with collapse_sources: fold headers into their directory too
  std::vector<std::string> exclude{};  // regexes; a node matching any is dropped
  std::vector<std::string> include{};  // regexes; a node must match at least one
  std::vector<std::string> roots{};    // ids
  int depth = -1;                      // with roots; negative: unlimited
  Direction direction = Direction::Out;
  bool cluster_by_directory = false;
  ClusterOptions clusters{};
};
Graph apply_filters(const Graph& graph, const FilterOptions& options);

}  // namespace glassbox::graphs
