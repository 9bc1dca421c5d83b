#include "graphs/json_writer.h"

#include <sstream>

#include "graphs/text.h"

namespace glassbox::graphs {
namespace {

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  text::for_each_code_point(text, [&](std::uint32_t cp) {
    switch (cp) {
      case '"': out += "\\\""; return;
      case '\\': out += "\\\\"; return;
      case '\n': out += "\\n"; return;
      case '\r': out += "\\r"; return;
      case '\t': out += "\\t"; return;
      case '\b': out += "\\b"; return;
      case '\f': out += "\\f"; return;
      default: break;
    }
    if (cp < 0x20) {
      out += "\\u00";
      out += kHex[cp >> 4];
      out += kHex[cp & 15];
    } else {
      text::append_utf8(out, cp);
    }
  });
  out += '"';
}

void append_attributes(std::string& out, const Attributes& attributes) {
  out += '{';
  bool first = true;
  for (const auto& [key, value] : attributes) {
    if (!first) out += ", ";
    first = false;
    append_json_string(out, key);
    out += ": ";
    append_json_string(out, value);
  }
  out += '}';
}

}  // namespace

std::string json_string(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

void write_json(std::ostream& out, const Graph& graph, const JsonOptions& options) {
  const char* newline = options.pretty ? "\n" : "";
  const char* indent = options.pretty ? "    " : "";
  std::string buffer;  // one record at a time, so a 100k-node graph streams without a huge string
  out << '{' << newline << (options.pretty ? "  " : "") << "\"name\": " << json_string(graph.name()) << ", ";
  buffer.clear();
  append_attributes(buffer, graph.attributes());
  out << "\"attributes\": " << buffer << ',' << newline;
  out << (options.pretty ? "  " : "") << "\"nodes\": [" << newline;
  for (NodeIndex i = 0; i < graph.node_count(); ++i) {
    const Node& node = graph.node(i);
    buffer.assign(indent);
    buffer += "{\"id\": ";
    append_json_string(buffer, node.id);
    buffer += ", \"kind\": ";
    append_json_string(buffer, to_string(node.kind));
    buffer += ", \"label\": ";
    append_json_string(buffer, node.display_label());
    buffer += ", \"attributes\": ";
    append_attributes(buffer, node.attributes);
    buffer += i + 1 < graph.node_count() ? "}," : "}";
    out << buffer << newline;
  }
  out << (options.pretty ? "  " : "") << "]," << newline;
  out << (options.pretty ? "  " : "") << "\"edges\": [" << newline;
  for (EdgeIndex e = 0; e < graph.edge_count(); ++e) {
    const Edge& edge = graph.edge(e);
    buffer.assign(indent);
    buffer += "{\"from\": ";
    append_json_string(buffer, graph.node(edge.from).id);
    buffer += ", \"to\": ";
    append_json_string(buffer, graph.node(edge.to).id);
    buffer += ", \"kind\": ";
    append_json_string(buffer, to_string(edge.kind));
    buffer += ", \"label\": ";
    append_json_string(buffer, edge.label);
    buffer += ", \"attributes\": ";
    append_attributes(buffer, edge.attributes);
    buffer += e + 1 < graph.edge_count() ? "}," : "}";
    out << buffer << newline;
  }
  out << (options.pretty ? "  " : "") << ']' << newline << '}' << newline;
}

std::string to_json(const Graph& graph, const JsonOptions& options) {
  std::ostringstream out;
  write_json(out, graph, options);
  return out.str();
}

}  // namespace glassbox::graphs
