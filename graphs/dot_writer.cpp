#include "graphs/dot_writer.h"

#include <charconv>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "engine/core/error.h"
#include "graphs/styles.h"
#include "graphs/text.h"

namespace glassbox::graphs {
namespace {

// In a DOT quoted string the parser turns \" into " and keeps \\ as two backslashes; a
// backslash-newline is a line continuation. So a run of an odd number of backslashes right before
// a quote, a newline or the end of the string cannot be written; such ids are renamed.
bool id_round_trips(std::string_view text) {
  std::size_t run = 0;
  for (char c : text) {
    if (c == '\\') {
      ++run;
      continue;
    }
    if ((c == '"' || c == '\n') && run % 2) return false;
    run = 0;
  }
  return run % 2 == 0;
}

bool is_plain_name(std::string_view text) {
  if (text.empty() || (text[0] >= '0' && text[0] <= '9')) return false;
  for (char c : text)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// Attribute names: bare when they are plain identifiers (color, penwidth), quoted otherwise.
std::string attribute_name(std::string_view name) { return is_plain_name(name) ? std::string(name) : dot_id(name); }

std::string sanitized(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  text::for_each_code_point(text, [&](std::uint32_t cp) { text::append_utf8(out, cp); });
  return out;
}

bool is_valid_rankdir(std::string_view rankdir) {
  return rankdir == "TB" || rankdir == "LR" || rankdir == "BT" || rankdir == "RL";
}

double number_attribute(const Node& node, std::string_view key, bool& present) {
  std::string_view text = node.attribute(key);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  present = !text.empty() && ec == std::errc();
  return value;
}

std::string percent_encoded_path(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                 c == '_' || c == '~' || c == '/' || c == '+' || c == ',' || c == '@' || c == ':';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// One box per cluster path component; boxes are created in first-use order so output is stable.
struct ClusterTree {
  struct Box {
    std::string path;  // "engine/cpu"
    std::vector<std::size_t> children;
    std::vector<NodeIndex> nodes;
  };
  std::vector<Box> boxes{Box{}};  // boxes[0] is the top level
  std::unordered_map<std::string, std::size_t> by_path;

  std::size_t box_for(std::string_view cluster) {
    std::size_t current = 0;
    std::size_t start = 0;
    while (start <= cluster.size()) {
      std::size_t slash = cluster.find('/', start);
      if (slash == std::string_view::npos) slash = cluster.size();
      if (slash > start) {  // skip empty components ("/usr//include", a leading '/')
        std::string path(cluster.substr(0, slash));
        auto [it, inserted] = by_path.try_emplace(path, boxes.size());
        if (inserted) {
          boxes.push_back(Box{path, {}, {}});
          boxes[current].children.push_back(it->second);
        }
        current = it->second;
      }
      start = slash + 1;
    }
    return current;
  }
};

class DotWriter {
 public:
  DotWriter(std::ostream& out, const Graph& graph, const DotOptions& options)
      : out_(out), graph_(graph), options_(options) {
    source_root_ = options.source_root;
    if (source_root_.empty())
      if (auto it = graph.attributes().find(attr::kSourceRoot); it != graph.attributes().end())
        source_root_ = it->second;
  }

  void write() {
    GB_CHECK(is_valid_rankdir(options_.rankdir), "DOT rankdir must be TB, LR, BT or RL, not '", options_.rankdir, "'");
    out_ << "// " << graph_.node_count() << " nodes, " << graph_.edge_count() << " edges; written by glassbox\n";
    out_ << "digraph " << dot_id(graph_.name()) << " {\n";
    write_defaults();
    name_nodes();
    ClusterTree tree;
    for (NodeIndex i = 0; i < graph_.node_count(); ++i) {
      std::string_view cluster = options_.clusters ? graph_.node(i).attribute(attr::kCluster) : "";
      tree.boxes[cluster.empty() ? 0 : tree.box_for(cluster)].nodes.push_back(i);
    }
    write_box(tree, 0, "", 1);
    for (EdgeIndex e = 0; e < graph_.edge_count(); ++e) write_edge(graph_.edge(e));
    if (options_.legend) write_legend();
    out_ << "}\n";
  }

 private:
  // Quoted DOT names: the id itself, or "node#<index>" for an id DOT cannot spell exactly.
  void name_nodes() {
    names_.reserve(graph_.node_count());
    for (NodeIndex i = 0; i < graph_.node_count(); ++i) {
      const std::string& id = graph_.node(i).id;
      if (id_round_trips(id) && sanitized(id) == id) {
        names_.push_back(dot_id(id));
        continue;
      }
      std::string name = "node#" + std::to_string(i);
      while (graph_.contains(name)) name += '#';
      names_.push_back(dot_id(name));
    }
  }

  void write_defaults() {
    std::string font = dot_label(options_.font);
    out_ << "  graph [rankdir=" << options_.rankdir << ", fontname=" << font
         << ", fontsize=11, newrank=true, compound=true";
    if (auto it = graph_.attributes().find("title"); it != graph_.attributes().end())
      out_ << ", label=" << dot_label(it->second) << ", labelloc=t";
    for (const auto& [key, value] : options_.graph_attributes)
      out_ << ", " << attribute_name(key) << '=' << dot_label(value);
    // The graph's own "dot:<name>" attributes, like those of nodes and edges.
    for (auto it = graph_.attributes().lower_bound(attr::kDotPrefix);
         it != graph_.attributes().end() && std::string_view(it->first).starts_with(attr::kDotPrefix); ++it)
      out_ << ", " << attribute_name(std::string_view(it->first).substr(attr::kDotPrefix.size())) << '='
           << dot_label(it->second);
    out_ << "];\n";
    out_ << "  node [fontname=" << font << ", fontsize=10, margin=\"0.15,0.05\"];\n";
    out_ << "  edge [fontname=" << font << ", fontsize=9];\n";
  }

  void write_box(const ClusterTree& tree, std::size_t index, std::string_view drawn_parent, int depth) {
    const ClusterTree::Box& box = tree.boxes[index];
    // A box holding nothing but one other box adds a frame and no information: draw the inner one.
    if (index != 0 && box.nodes.empty() && box.children.size() == 1) {
      write_box(tree, box.children.front(), drawn_parent, depth);
      return;
    }
    std::string indent(depth * 2, ' ');
    if (index != 0) {
      std::string_view label = box.path;
      if (!drawn_parent.empty() && label.starts_with(drawn_parent) && label.size() > drawn_parent.size())
        label.remove_prefix(drawn_parent.size() + (label[drawn_parent.size()] == '/' ? 1 : 0));
      out_ << indent << "subgraph " << dot_id("cluster_" + box.path) << " {\n";
      out_ << indent << "  graph [label=" << dot_label(label) << ", labeljust=l, style=\"rounded,filled\", fillcolor=\""
           << (depth % 2 ? "#f8f8f8" : "#ffffff") << "\", color=\"#bbbbbb\", tooltip=" << dot_label(box.path) << "];\n";
    }
    std::string inner_indent = index == 0 ? indent : indent + "  ";
    for (NodeIndex i : box.nodes) write_node(i, inner_indent);
    for (std::size_t child : box.children)
      write_box(tree, child, index == 0 ? std::string_view{} : std::string_view{box.path},
                index == 0 ? depth : depth + 1);
    if (index != 0) out_ << indent << "}\n";
  }

  void write_node(NodeIndex index, const std::string& indent) {
    const Node& node = graph_.node(index);
    const NodeStyle& style = style_of(node.kind);
    out_ << indent << names_[index] << " [label=" << dot_label(node.display_label()) << ", shape=" << style.shape
         << ", style=\"" << style.style << "\", fillcolor=\"" << style.fillcolor << "\", color=\"" << style.color
         << "\", fontcolor=\"" << style.fontcolor << '"';
    if (options_.tooltips) out_ << ", tooltip=" << dot_label(node_tooltip(node));
    if (options_.links)
      if (std::string url = node_url(node, source_root_); !url.empty()) out_ << ", URL=" << dot_label(url);
    write_passthrough(node.attributes);
    out_ << "];\n";
  }

  void write_edge(const Edge& edge) {
    const EdgeStyle& style = style_of(edge.kind);
    const Node& from = graph_.node(edge.from);
    const Node& to = graph_.node(edge.to);
    out_ << "  " << names_[edge.from] << " -> " << names_[edge.to] << " [style=" << style.style << ", color=\""
         << style.color << "\", arrowhead=" << style.arrowhead;
    if (options_.edge_labels && !edge.label.empty()) out_ << ", label=" << dot_label(edge.label);
    if (options_.tooltips) {
      std::string tooltip =
          from.display_label() + " -> " + to.display_label() + " (" + std::string(to_string(edge.kind));
      if (auto count = edge.attribute(attr::kCount); !count.empty()) tooltip += ", " + std::string(count) + " edges";
      tooltip += ')';
      if (auto custom = edge.attribute(attr::kTooltip); !custom.empty()) tooltip = custom;
      out_ << ", tooltip=" << dot_label(tooltip);
    }
    if (options_.links)
      if (auto url = edge.attribute(attr::kUrl); !url.empty()) out_ << ", URL=" << dot_label(url);
    write_passthrough(edge.attributes);
    out_ << "];\n";
  }

  void write_passthrough(const Attributes& attributes) {
    for (auto it = attributes.lower_bound(attr::kDotPrefix);
         it != attributes.end() && std::string_view(it->first).starts_with(attr::kDotPrefix); ++it)
      out_ << ", " << attribute_name(std::string_view(it->first).substr(attr::kDotPrefix.size())) << '='
           << dot_label(it->second);
  }

  // A cluster with one sample node per node kind present and one sample edge per edge kind.
  void write_legend() {
    auto counts = graph_.node_counts_by_kind();
    auto edge_counts = graph_.edge_counts_by_kind();
    std::string prefix = "legend:";
    while (has_id_with_prefix(prefix)) prefix += '_';
    out_ << "  subgraph \"cluster_legend\" {\n"
         << "    graph [label=\"legend\", labeljust=l, style=\"rounded\", color=\"#bbbbbb\"];\n";
    for (std::size_t k = 0; k < kNodeKindCount; ++k) {
      if (counts[k] == 0) continue;
      auto kind = static_cast<NodeKind>(k);
      const NodeStyle& style = style_of(kind);
      out_ << "    " << dot_id(prefix + std::string(to_string(kind))) << " [label=" << dot_label(to_string(kind))
           << ", shape=" << style.shape << ", style=\"" << style.style << "\", fillcolor=\"" << style.fillcolor
           << "\", color=\"" << style.color << "\"];\n";
    }
    for (std::size_t k = 0; k < kEdgeKindCount; ++k) {
      if (edge_counts[k] == 0) continue;
      auto kind = static_cast<EdgeKind>(k);
      const EdgeStyle& style = style_of(kind);
      std::string a = prefix + "edge:" + std::string(to_string(kind));
      out_ << "    " << dot_id(a + ":from") << " [shape=point, width=0.05];\n"
           << "    " << dot_id(a + ":to") << " [shape=point, width=0.05];\n"
           << "    " << dot_id(a + ":from") << " -> " << dot_id(a + ":to") << " [label=" << dot_label(to_string(kind))
           << ", style=" << style.style << ", color=\"" << style.color << "\", arrowhead=" << style.arrowhead << "];\n";
    }
    out_ << "  }\n";
  }

  bool has_id_with_prefix(std::string_view prefix) const {
    for (const Node& node : graph_.nodes())
      if (std::string_view(node.id).starts_with(prefix)) return true;
    return false;
  }

  std::ostream& out_;
  const Graph& graph_;
  const DotOptions& options_;
  std::string source_root_;
  std::vector<std::string> names_;
};

}  // namespace

std::string dot_id(std::string_view text) {
  std::string out = "\"";
  std::size_t run = 0;  // backslashes just written
  for (char c : sanitized(text)) {
    if (c == '\\') {
      out += c;
      ++run;
      continue;
    }
    if ((c == '"' || c == '\n') && run % 2) out += '\\';  // see id_round_trips()
    if (c == '"') out += '\\';
    out += c;
    run = 0;
  }
  if (run % 2) out += '\\';
  out += '"';
  return out;
}

std::string dot_label(std::string_view text) {
  std::string out = "\"";
  for (char c : sanitized(text)) {
    switch (c) {
      case '\\': out += "\\\\"; break;  // kept as a pair by the parser, one backslash once drawn
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\v': out += "\\l"; break;  // ends a left-justified line
      case '\r': break;
      case '\t': out += ' '; break;
      case '&': out += "&amp;"; break;  // Graphviz decodes HTML entities in plain labels
      default: out += c;
    }
  }
  out += '"';
  return out;
}

std::string node_tooltip(const Node& node) {
  if (auto custom = node.attribute(attr::kTooltip); !custom.empty()) return std::string(custom);
  std::string tooltip = node.display_label();
  tooltip += "\n";
  tooltip += to_string(node.kind);
  if (auto type = node.attribute(attr::kType); !type.empty()) tooltip += " (" + std::string(type) + ")";
  if (node.id != node.display_label()) tooltip += "\nid: " + node.id;
  if (auto path = node.attribute(attr::kPath); !path.empty()) tooltip += "\npath: " + std::string(path);
  bool present = false;
  if (double size = number_attribute(node, attr::kSize, present); present)
    tooltip += "\nsize: " + text::format_bytes(size);
  if (double ms = number_attribute(node, attr::kCompileMs, present); present)
    tooltip += "\ncompile: " + text::format_milliseconds(ms);
  if (auto count = node.attribute(attr::kCount); !count.empty()) tooltip += "\nmembers: " + std::string(count);
  if (auto file = node.attribute(attr::kFile); !file.empty()) {
    tooltip += "\ndefined at: " + std::string(file);
    if (auto line = node.attribute(attr::kLine); !line.empty()) tooltip += ":" + std::string(line);
  }
  return tooltip;
}

std::string node_url(const Node& node, std::string_view source_root) {
  if (auto url = node.attribute(attr::kUrl); !url.empty()) return std::string(url);
  std::string path(node.attribute(attr::kPath));
  if (path.empty()) return {};
  if (path.front() != '/') {
    if (source_root.empty() || source_root.front() != '/') return {};
    std::string root(source_root);
    if (root.back() != '/') root += '/';
    path = root + path;
  }
  return "file://" + percent_encoded_path(path);
}

void write_dot(std::ostream& out, const Graph& graph, const DotOptions& options) {
  DotWriter(out, graph, options).write();
}

std::string to_dot(const Graph& graph, const DotOptions& options) {
  std::ostringstream out;
  write_dot(out, graph, options);
  return out.str();
}

}  // namespace glassbox::graphs
