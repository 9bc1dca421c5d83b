#pragma once
// Clusters by directory: sets each node's "cluster" attribute, which the DOT writer draws as
// (nested) `subgraph cluster_...` boxes.
#include <string>

#include "graphs/graph.h"

namespace glassbox::graphs {

struct ClusterOptions {
  // Stripped from the front of each directory ("/home/me/proj/engine/cpu" -> "engine/cpu").
  // Directories outside it keep their full path.
  std::string root{};
  // Keep at most this many leading path components (0: all), so "engine/cpu/kernels" with 2 is
  // clustered as "engine/cpu".
  int max_depth = 0;
  // Directory nodes (collapsed sources) are drawn in their own directory's cluster, beside the
  // targets defined there; true puts them in their parent's, beside their sibling directories.
  bool directory_nodes_in_parent = false;
};

// The cluster a directory maps to under these options ("" for none).
std::string cluster_of_directory(std::string directory, const ClusterOptions& options);

// Sets "cluster" on every node with a directory (see directory_of()); external nodes and nodes
// without a directory are left unclustered.
Graph cluster_by_directory(const Graph& graph, const ClusterOptions& options = {});

}  // namespace glassbox::graphs
