#include "graphs/graph.h"

#include <array>
#include <filesystem>

#include "engine/core/error.h"

namespace glassbox::graphs {
namespace {

constexpr std::array<std::string_view, kNodeKindCount> kNodeKindNames = {
    "target",    "library",  "executable", "object",   "source",       "header", "generated_source",
    "directory", "external", "symbol",     "operator", "dispatch_key", "kernel", "autograd_node"};
constexpr std::array<std::string_view, kEdgeKindCount> kEdgeKindNames = {
    "links", "depends", "compiles", "includes", "defines", "registers", "dispatches_to", "backward_of"};
static_assert(static_cast<std::size_t>(NodeKind::AutogradNode) + 1 == kNodeKindCount);
static_assert(static_cast<std::size_t>(EdgeKind::BackwardOf) + 1 == kEdgeKindCount);

std::string_view find_attribute(const Attributes& attributes, std::string_view key) {
  auto it = attributes.find(key);
  return it == attributes.end() ? std::string_view{} : std::string_view{it->second};
}

}  // namespace

std::string_view to_string(NodeKind kind) { return kNodeKindNames.at(static_cast<std::size_t>(kind)); }
std::string_view to_string(EdgeKind kind) { return kEdgeKindNames.at(static_cast<std::size_t>(kind)); }

std::optional<NodeKind> node_kind_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kNodeKindNames.size(); ++i)
    if (kNodeKindNames[i] == name) return static_cast<NodeKind>(i);
  return std::nullopt;
}

std::optional<EdgeKind> edge_kind_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kEdgeKindNames.size(); ++i)
    if (kEdgeKindNames[i] == name) return static_cast<EdgeKind>(i);
  return std::nullopt;
}

std::string_view Node::attribute(std::string_view key) const { return find_attribute(attributes, key); }
std::string_view Edge::attribute(std::string_view key) const { return find_attribute(attributes, key); }

std::size_t Graph::EdgeKeyHash::operator()(const EdgeKey& k) const noexcept {
  std::size_t h = std::hash<std::size_t>{}(k.from);
  h ^= std::hash<std::size_t>{}(k.to) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h ^ (static_cast<std::size_t>(k.kind) << 1);
}

Graph::Graph(std::string name) : name_(std::move(name)) {}

void Graph::set_attribute(std::string key, std::string value) {
  attributes_.insert_or_assign(std::move(key), std::move(value));
}

void Graph::reserve(std::size_t nodes, std::size_t edges) {
  nodes_.reserve(nodes);
  out_.reserve(nodes);
  in_.reserve(nodes);
  by_id_.reserve(nodes);
  edges_.reserve(edges);
  first_edge_.reserve(edges);
}

NodeIndex Graph::add_node(std::string id, NodeKind kind, std::string label, Attributes attributes) {
  GB_CHECK(!by_id_.contains(id), "graph '", name_, "': a node with id '", id, "' already exists (",
           to_string(nodes_[by_id_.find(id)->second].kind), ")");
  NodeIndex index = nodes_.size();
  by_id_.emplace(id, index);
  nodes_.push_back(Node{std::move(id), kind, std::move(label), std::move(attributes)});
  out_.emplace_back();
  in_.emplace_back();
  return index;
}

NodeIndex Graph::ensure_node(std::string id, NodeKind kind, std::string label, Attributes attributes) {
  if (auto found = find(id)) return *found;
  return add_node(std::move(id), kind, std::move(label), std::move(attributes));
}

std::optional<NodeIndex> Graph::find(std::string_view id) const {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return std::nullopt;
  return it->second;
}

NodeIndex Graph::index_of(std::string_view id) const {
  auto found = find(id);
  GB_CHECK(found, "graph '", name_, "' has no node with id '", id, "'");
  return *found;
}

void Graph::set_label(NodeIndex index, std::string label) { nodes_.at(index).label = std::move(label); }
void Graph::set_kind(NodeIndex index, NodeKind kind) { nodes_.at(index).kind = kind; }

void Graph::set_attribute(NodeIndex index, std::string key, std::string value) {
  nodes_.at(index).attributes.insert_or_assign(std::move(key), std::move(value));
}

void Graph::erase_attribute(NodeIndex index, std::string_view key) {
  auto& attributes = nodes_.at(index).attributes;
  if (auto it = attributes.find(key); it != attributes.end()) attributes.erase(it);
}

EdgeIndex Graph::add_edge(NodeIndex from, NodeIndex to, EdgeKind kind, std::string label, Attributes attributes) {
  GB_CHECK(from < nodes_.size() && to < nodes_.size(), "graph '", name_, "': edge ", from, " -> ", to,
           " names a node index beyond the ", nodes_.size(), " nodes");
  EdgeIndex index = edges_.size();
  edges_.push_back(Edge{from, to, kind, std::move(label), std::move(attributes)});
  out_[from].push_back(index);
  in_[to].push_back(index);
  first_edge_.try_emplace(EdgeKey{from, to, kind}, index);
  return index;
}

EdgeIndex Graph::add_edge(std::string_view from_id, std::string_view to_id, EdgeKind kind, std::string label,
                          Attributes attributes) {
  auto from = find(from_id);
  auto to = find(to_id);
  GB_CHECK(from && to, "graph '", name_, "': cannot add ", to_string(kind), " edge '", from_id, "' -> '", to_id,
           "': no node with id '", from ? to_id : from_id, "'");
  return add_edge(*from, *to, kind, std::move(label), std::move(attributes));
}

EdgeIndex Graph::ensure_edge(NodeIndex from, NodeIndex to, EdgeKind kind) {
  if (auto found = find_edge(from, to, kind)) return *found;
  return add_edge(from, to, kind);
}

std::optional<EdgeIndex> Graph::find_edge(NodeIndex from, NodeIndex to, EdgeKind kind) const {
  auto it = first_edge_.find(EdgeKey{from, to, kind});
  if (it == first_edge_.end()) return std::nullopt;
  return it->second;
}

void Graph::set_edge_label(EdgeIndex index, std::string label) { edges_.at(index).label = std::move(label); }

void Graph::set_edge_attribute(EdgeIndex index, std::string key, std::string value) {
  edges_.at(index).attributes.insert_or_assign(std::move(key), std::move(value));
}

std::vector<std::size_t> Graph::node_counts_by_kind() const {
  std::vector<std::size_t> counts(kNodeKindCount, 0);
  for (const Node& node : nodes_) ++counts[static_cast<std::size_t>(node.kind)];
  return counts;
}

std::vector<std::size_t> Graph::edge_counts_by_kind() const {
  std::vector<std::size_t> counts(kEdgeKindCount, 0);
  for (const Edge& edge : edges_) ++counts[static_cast<std::size_t>(edge.kind)];
  return counts;
}

std::string directory_of(const Node& node) {
  if (auto directory = node.attribute(attr::kDirectory); !directory.empty()) return std::string(directory);
  if (auto path = node.attribute(attr::kPath); !path.empty())
    return std::filesystem::path(path).parent_path().generic_string();
  return {};
}

std::string path_relative_to(std::string_view path, std::string_view root) {
  while (root.size() > 1 && root.back() == '/') root.remove_suffix(1);
  if (root.empty() || !path.starts_with(root)) return std::string(path);
  std::string_view rest = path.substr(root.size());
  if (rest.empty() || rest == "/") return ".";
  if (root == "/") return std::string(rest);
  if (rest.front() != '/') return std::string(path);  // "/p/enginex" is not under "/p/engine"
  return std::string(rest.substr(1));
}

bool is_target_kind(NodeKind kind) {
  return kind == NodeKind::Target || kind == NodeKind::Library || kind == NodeKind::Executable;
}

}  // namespace glassbox::graphs
