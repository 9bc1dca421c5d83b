#include "introspect/buildtree/cmake_graphviz.h"

#include <map>

#include "engine/core/error.h"
#include "introspect/buildtree/file_api.h"
#include "introspect/support/json_file.h"
#include "introspect/support/process.h"

namespace glassbox::introspect {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The quoted string starting at s[pos] (which is '"'), unescaped; pos moves past it.
std::string quoted(std::string_view s, size_t& pos, std::string_view origin, size_t line_no) {
  std::string out;
  for (++pos; pos < s.size(); ++pos) {
    if (s[pos] == '\\' && pos + 1 < s.size()) {
      const char c = s[++pos];
      out += c == 'n' ? '\n' : c;
    } else if (s[pos] == '"') {
      ++pos;
      return out;
    } else {
      out += s[pos];
    }
  }
  throw Error(detail::str_cat(origin, ":", line_no, ": unterminated string"));
}

// The value of `key = ...` inside a [ ... ] attribute list, or "".
std::string attribute(std::string_view attrs, std::string_view key, std::string_view origin, size_t line_no) {
  for (size_t pos = attrs.find(key); pos != std::string_view::npos; pos = attrs.find(key, pos + 1)) {
    if (pos > 0 && attrs[pos - 1] != ' ' && attrs[pos - 1] != '[' && attrs[pos - 1] != ',') continue;
    size_t at = pos + key.size();
    while (at < attrs.size() && attrs[at] == ' ') ++at;
    if (at >= attrs.size() || attrs[at] != '=') continue;
    ++at;
    while (at < attrs.size() && attrs[at] == ' ') ++at;
    if (at < attrs.size() && attrs[at] == '"') return quoted(attrs, at, origin, line_no);
    const size_t end = attrs.find_first_of(" ,]", at);
    return std::string(attrs.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
  }
  return "";
}

}  // namespace

const GraphvizNode* CMakeGraphviz::find(std::string_view name) const {
  for (const auto& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

CMakeGraphviz parse_cmake_graphviz(std::string_view text, std::string_view origin) {
  CMakeGraphviz graph;
  graph.file = std::string(origin);
  std::map<std::string, size_t, std::less<>> node_of_id;
  size_t pos = 0, line_no = 0;
  bool in_legend = false, saw_digraph = false;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.rfind("digraph", 0) == 0) saw_digraph = true;
    if (line.rfind("subgraph clusterLegend", 0) == 0) in_legend = true;
    if (in_legend) {
      if (line == "}") in_legend = false;
      continue;
    }
    if (line.empty() || line.front() != '"') continue;
    if (!saw_digraph) break;
    size_t at = 0;
    const std::string first = quoted(line, at, origin, line_no);
    const std::string_view rest = trim(line.substr(at));
    if (rest.rfind("->", 0) == 0) {  // "nodeA" -> "nodeB" [ style = ... ]  // a -> b
      std::string_view tail = trim(rest.substr(2));
      if (tail.empty() || tail.front() != '"') throw Error(detail::str_cat(origin, ":", line_no, ": bad edge"));
      at = 0;
      const std::string second = quoted(tail, at, origin, line_no);
      auto from = node_of_id.find(first), to = node_of_id.find(second);
      if (from == node_of_id.end() || to == node_of_id.end()) {
        throw Error(detail::str_cat(origin, ":", line_no, ": edge between undeclared nodes ", first, " and ", second));
      }
      const std::string style = attribute(tail.substr(at), "style", origin, line_no);
      graph.edges.push_back({graph.nodes[from->second].name, graph.nodes[to->second].name,
                             style == "dotted"   ? "private"
                             : style == "dashed" ? "interface"
                                                 : "public"});
      continue;
    }
    if (rest.empty() || rest.front() != '[') continue;
    // "nodeN" [ label = "name\n(alias, alias)", shape = octagon ];
    const std::string label = attribute(rest, "label", origin, line_no);
    GraphvizNode node;
    const size_t newline = label.find('\n');
    node.name = label.substr(0, newline);
    if (newline != std::string::npos) {
      std::string aliases = label.substr(newline + 1);
      if (aliases.size() >= 2 && aliases.front() == '(' && aliases.back() == ')')
        aliases = aliases.substr(1, aliases.size() - 2);
      for (size_t start = 0; start < aliases.size();) {
        size_t comma = aliases.find(',', start);
        if (comma == std::string::npos) comma = aliases.size();
        std::string alias(trim(std::string_view(aliases).substr(start, comma - start)));
        if (!alias.empty()) node.aliases.push_back(std::move(alias));
        start = comma + 1;
      }
    }
    node.shape = attribute(rest, "shape", origin, line_no);
    if (node.shape.empty()) node.shape = "ellipse";
    if (node.name.empty()) throw Error(detail::str_cat(origin, ":", line_no, ": node without a label"));
    node_of_id.emplace(first, graph.nodes.size());
    graph.nodes.push_back(std::move(node));
  }
  if (!saw_digraph)
    throw Error(detail::str_cat(origin, ": not a graphviz file written by cmake --graphviz (no digraph)"));
  return graph;
}

CMakeGraphviz cmake_graphviz_of(const std::filesystem::path& build_dir, const std::string& cmake) {
  const auto dir = build_dir / ".glassbox" / "graphviz";
  const auto file = dir / "targets.dot";
  std::error_code ec;
  const auto index = find_reply_index(build_dir);
  const bool fresh = index && std::filesystem::exists(file, ec) &&
                     std::filesystem::last_write_time(file, ec) >= std::filesystem::last_write_time(*index, ec);
  if (!fresh) {
    std::filesystem::create_directories(dir, ec);
    if (ec) throw Error(dir.string() + ": cannot create: " + ec.message());
    const ProcessResult r = run_process({cmake, "--graphviz=" + file.string(), build_dir.string()});
    if (r.exit_code != 0) {
      throw Error(detail::str_cat(cmake, " --graphviz: failed (exit ", r.exit_code, ")\n", r.output, r.error_output));
    }
    // That cmake run wrote a new reply too; the file stays fresh until the next one.
    std::filesystem::last_write_time(file, std::filesystem::file_time_type::clock::now(), ec);
  }
  return parse_cmake_graphviz(read_text_file(file), file.string());
}

}  // namespace glassbox::introspect
