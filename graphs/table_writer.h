#pragma once
// A plain-text summary of a graph for terminals: counts of nodes and edges per kind, then the
// nodes with the most edges.
#include <cstddef>
#include <ostream>
#include <string>

#include "graphs/graph.h"

namespace glassbox::graphs {

struct TableOptions {
  std::size_t top_nodes = 10;  // rows in the "most connected" table; 0 leaves it out
};

void write_summary_table(std::ostream& out, const Graph& graph, const TableOptions& options = {});
std::string summary_table(const Graph& graph, const TableOptions& options = {});

}  // namespace glassbox::graphs
