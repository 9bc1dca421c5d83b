#pragma once
// Writes a graph as Graphviz DOT text: quoted and escaped ids and labels, nested clusters from the
// "cluster" attribute, shapes and colours by node kind, edge styles by edge kind, tooltips and
// file:// links for SVG, an optional legend.
#include <map>
#include <ostream>
#include <string>
#include <string_view>

#include "graphs/graph.h"

namespace glassbox::graphs {

struct DotOptions {
  std::string rankdir = "LR";  // TB, LR, BT or RL
  bool clusters = true;        // draw the "cluster" attribute as subgraph cluster_... boxes
  bool legend = false;         // a cluster listing the node and edge kinds that occur
  bool tooltips = true;        // tooltip from "tooltip", else from path, size and compile_ms
  bool links = true;           // URL from "url", else file:// + path
  bool edge_labels = true;
  // Resolves relative "path" attributes for file:// links; relative paths get no link without it.
  std::string source_root{};
  std::string font = "Helvetica";
  // Extra graph attributes (e.g. {"splines", "ortho"}), written after the defaults.
  std::map<std::string, std::string> graph_attributes{};
};

void write_dot(std::ostream& out, const Graph& graph, const DotOptions& options = {});
std::string to_dot(const Graph& graph, const DotOptions& options = {});

// DOT quoting. dot_id() quotes an identifier so that Graphviz reads back exactly `text`, except
// for an odd run of backslashes right before a quote, a newline or the end, which DOT cannot
// spell (one backslash is added; the writer names such nodes "node#<index>" instead).
// dot_label() quotes text for escString attributes (label, tooltip, URL), where Graphviz
// interprets backslashes and HTML entities, so that it is displayed as exactly `text`; a '\n' ends
// a centred line and a '\v' (vertical tab) a left-justified one.
std::string dot_id(std::string_view text);
std::string dot_label(std::string_view text);

// The tooltip the writer shows for a node: "tooltip" if set, else its kind, id, path, size and
// compile time on separate lines.
std::string node_tooltip(const Node& node);
// "file:///abs/path" for a node's path (resolved against source_root when relative),
// percent-encoded; "url" if set; "" when there is nothing to link to.
std::string node_url(const Node& node, std::string_view source_root = {});

}  // namespace glassbox::graphs
