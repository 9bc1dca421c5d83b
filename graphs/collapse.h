#pragma once
// Folding many nodes into one: sources into their directory, objects into their target. Edges are
// rerouted to the surviving node; self-loops this creates are dropped and parallel edges of one
// kind are merged, so the result stays a clean picture.
#include <string>
#include <vector>

#include "graphs/graph.h"

namespace glassbox::graphs {

// Where each node of a graph goes when it is contracted: the id of the node it folds into, or ""
// to keep the node as it is. A fold target that is absent from the graph is created with
// `fold_kind[i]` and `fold_label[i]` taken from the first node folded into it.
struct Contraction {
  std::vector<std::string> into;    // per node: "" (keep) or the id of the node it folds into
  std::vector<NodeKind> fold_kind;  // per node: the kind of a created fold target
  std::vector<std::string> fold_label;
};
// Applies a contraction. A created fold node gets "count" (members folded into it) and the sums
// of its members' "size" and "compile_ms"; its "path" and "directory" are its id's directory when
// the members share one. Edges are rerouted, self-loops dropped, parallel edges merged.
Graph contract(const Graph& graph, const Contraction& contraction);

// Sources and generated sources (and headers when include_headers) fold into one Directory node
// per directory (see directory_of()), id "dir:<directory>", label "<directory>/". Nodes without a
// directory are kept.
Graph collapse_sources_into_directories(const Graph& graph, bool include_headers = false);

// Each Object folds into its owning target: the node named by its "target" attribute, else the
// first target, library or executable it shares an edge with. Objects with no owner are kept.
// A "source compiles object" edge becomes "target compiles source" (or goes, when the target
// already has that edge), so compiles edges keep pointing from targets to sources.
Graph collapse_objects_into_targets(const Graph& graph);

// One edge per (from, to, kind): the first edge's label and attributes, "count" set to the number
// merged when more than one.
Graph merge_parallel_edges(const Graph& graph);

// Drops edges whose two ends are the same node.
Graph drop_self_loops(const Graph& graph);

}  // namespace glassbox::graphs
