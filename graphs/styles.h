#pragma once
// How each kind of node and edge looks in DOT: one table, shared by the writer and its legend.
#include <string_view>

#include "graphs/graph.h"

namespace glassbox::graphs {

struct NodeStyle {
  std::string_view shape;
  std::string_view style;  // Graphviz style list, e.g. "rounded,filled"
  std::string_view fillcolor;
  std::string_view color;  // outline
  std::string_view fontcolor;
};

struct EdgeStyle {
  std::string_view style;  // solid, dashed, dotted, bold
  std::string_view color;
  std::string_view arrowhead;
};

const NodeStyle& style_of(NodeKind kind);
const EdgeStyle& style_of(EdgeKind kind);

}  // namespace glassbox::graphs
