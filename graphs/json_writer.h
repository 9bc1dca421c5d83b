#pragma once
// Writes a graph as JSON:
//   {"name": ..., "attributes": {...},
//    "nodes": [{"id", "kind", "label", "attributes"}...],
//    "edges": [{"from", "to", "kind", "label", "attributes"}...]}
// Edge ends are node ids. Strings are escaped per RFC 8259; invalid UTF-8 becomes U+FFFD.
#include <ostream>
#include <string>
#include <string_view>

#include "graphs/graph.h"

namespace glassbox::graphs {

struct JsonOptions {
  bool pretty = true;  // one node or edge per line; false: a single line
};

void write_json(std::ostream& out, const Graph& graph, const JsonOptions& options = {});
std::string to_json(const Graph& graph, const JsonOptions& options = {});

// `text` as a quoted JSON string.
std::string json_string(std::string_view text);

}  // namespace glassbox::graphs
