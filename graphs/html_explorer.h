#pragma once
// A self-contained HTML page to explore a rendered graph offline, in the spirit of `ninja -t
// browse`: the Graphviz SVG inline, pan (drag) and zoom (wheel, +/- keys), a search box that
// highlights matching nodes and centres the first, and a side panel: clicking a node lists what it
// has in the detail graph (a target's sources with compile times and sizes, what it links). No
// script or style is fetched from anywhere. Opening the page as FILE.html#select=ID selects ID.
#include <string>
#include <string_view>

#include "graphs/graph.h"

namespace glassbox::graphs {

struct HtmlExplorerOptions {
  std::string title = "glassbox";
};

// `svg`: the picture, as Graphviz writes it (node <title>s are the node ids). `details`: the graph
// whose nodes the panel describes; a picture node "files:ID" describes ID.
std::string html_explorer(std::string_view svg, const Graph& details, const HtmlExplorerOptions& options = {});

}  // namespace glassbox::graphs
