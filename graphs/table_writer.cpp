#include "graphs/table_writer.h"

#include <algorithm>
#include <iomanip>
#include <numeric>
#include <sstream>

namespace glassbox::graphs {

void write_summary_table(std::ostream& out, const Graph& graph, const TableOptions& options) {
  out << "graph " << graph.name() << ": " << graph.node_count() << " nodes, " << graph.edge_count() << " edges\n";
  auto node_counts = graph.node_counts_by_kind();
  auto edge_counts = graph.edge_counts_by_kind();
  out << "\n  " << std::left << std::setw(20) << "node kind" << std::right << std::setw(8) << "count" << '\n';
  for (std::size_t k = 0; k < kNodeKindCount; ++k)
    if (node_counts[k])
      out << "  " << std::left << std::setw(20) << to_string(static_cast<NodeKind>(k)) << std::right << std::setw(8)
          << node_counts[k] << '\n';
  out << "\n  " << std::left << std::setw(20) << "edge kind" << std::right << std::setw(8) << "count" << '\n';
  for (std::size_t k = 0; k < kEdgeKindCount; ++k)
    if (edge_counts[k])
      out << "  " << std::left << std::setw(20) << to_string(static_cast<EdgeKind>(k)) << std::right << std::setw(8)
          << edge_counts[k] << '\n';

  if (options.top_nodes == 0 || graph.node_count() == 0) return;
  std::vector<NodeIndex> order(graph.node_count());
  std::iota(order.begin(), order.end(), NodeIndex{0});
  auto degree = [&](NodeIndex i) { return graph.in_edges(i).size() + graph.out_edges(i).size(); };
  std::size_t shown = std::min(options.top_nodes, order.size());
  // Ties keep insertion order, so the table is stable.
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                    [&](NodeIndex a, NodeIndex b) { return degree(a) != degree(b) ? degree(a) > degree(b) : a < b; });
  out << "\n  most connected" << std::string(26, ' ') << std::setw(6) << "in" << std::setw(6) << "out"
      << "  kind\n";
  for (std::size_t r = 0; r < shown; ++r) {
    const Node& node = graph.node(order[r]);
    std::string label = node.display_label();
    if (label.size() > 38) {
      std::size_t start = label.size() - 35;
      while (start < label.size() && (static_cast<unsigned char>(label[start]) & 0xC0) == 0x80) ++start;
      label = "..." + label.substr(start);  // cut at a UTF-8 character boundary
    }
    out << "  " << std::left << std::setw(40) << label << std::right << std::setw(6) << graph.in_edges(order[r]).size()
        << std::setw(6) << graph.out_edges(order[r]).size() << "  " << to_string(node.kind) << '\n';
  }
}

std::string summary_table(const Graph& graph, const TableOptions& options) {
  std::ostringstream out;
  write_summary_table(out, graph, options);
  return out.str();
}

}  // namespace glassbox::graphs
