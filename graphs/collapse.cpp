#include "graphs/collapse.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "engine/core/error.h"

namespace glassbox::graphs {
namespace {

constexpr NodeIndex kUnset = static_cast<NodeIndex>(-1);

std::uint64_t parse_count(std::string_view text, std::uint64_t fallback) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() ? value : fallback;
}

double parse_number(std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() ? value : 0;
}

std::string format_number(double value) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, end);
}

void copy_graph_attributes(const Graph& from, Graph& to) {
  for (const auto& [key, value] : from.attributes()) to.set_attribute(key, value);
}

// Adds `edge` between the result's nodes from -> to, folding it into an existing (from, to, kind)
// edge and summing "count" when there is one.
void add_merged_edge(Graph& result, std::vector<std::uint64_t>& counts, NodeIndex from, NodeIndex to,
                     const Edge& edge) {
  std::uint64_t weight = parse_count(edge.attribute(attr::kCount), 1);
  if (auto existing = result.find_edge(from, to, edge.kind)) {
    counts[*existing] += weight;
    return;
  }
  Attributes attributes = edge.attributes;
  attributes.erase(std::string(attr::kCount));
  result.add_edge(from, to, edge.kind, edge.label, std::move(attributes));
  counts.push_back(weight);
}

void write_counts(Graph& result, const std::vector<std::uint64_t>& counts) {
  for (EdgeIndex e = 0; e < counts.size(); ++e)
    if (counts[e] > 1) result.set_edge_attribute(e, std::string(attr::kCount), std::to_string(counts[e]));
}

}  // namespace

namespace {

// What an edge becomes before it is rerouted: itself, turned around, or dropped (nullopt).
struct EdgeEnds {
  NodeIndex from, to;
};
using EdgeRewrite = std::optional<EdgeEnds> (*)(const Graph&, const Contraction&, const Edge&);

std::optional<EdgeEnds> keep_edge(const Graph&, const Contraction&, const Edge& edge) {
  return EdgeEnds{edge.from, edge.to};
}

Graph contract_with(const Graph& graph, const Contraction& contraction, EdgeRewrite rewrite) {
  const std::size_t n = graph.node_count();
  GB_CHECK(contraction.into.size() == n && contraction.fold_kind.size() == n && contraction.fold_label.size() == n,
           "contract: the contraction describes ", contraction.into.size(), " nodes, the graph has ", n);

  // Resolve chains (a folds into b, b into c) to the final id; a cycle stops where it closes.
  auto final_id = [&](NodeIndex i) -> const std::string& {
    const std::string* id = &graph.node(i).id;
    for (std::size_t steps = 0; steps <= n; ++steps) {
      auto next_index = graph.find(*id);
      if (!next_index) return *id;
      const std::string& next = contraction.into[*next_index];
      if (next.empty() || next == *id) return *id;
      id = &next;
    }
    return *id;
  };

  Graph result(graph.name());
  copy_graph_attributes(graph, result);
  result.reserve(n, graph.edge_count());
  std::vector<NodeIndex> mapped(n, kUnset);
  std::vector<bool> created;         // per result node: made here as a fold target
  std::vector<std::size_t> members;  // per result node: nodes folded into it (itself included when kept)
  std::vector<double> size_sum, compile_sum;
  std::vector<Attributes> shared;  // per created node: attributes all its members agree on

  for (NodeIndex i = 0; i < n; ++i) {
    const Node& node = graph.node(i);
    const std::string& target_id = final_id(i);
    auto existing = result.find(target_id);
    NodeIndex r;
    if (existing) {
      r = *existing;
    } else if (auto original = graph.find(target_id); original && final_id(*original) == target_id) {
      const Node& kept = graph.node(*original);  // a surviving node, placed where it is first met
      r = result.add_node(kept.id, kept.kind, kept.label, kept.attributes);
      created.push_back(false);
    } else {
      r = result.add_node(target_id, contraction.fold_kind[i], contraction.fold_label[i]);
      created.push_back(true);
    }
    if (r == members.size()) {
      members.push_back(0);
      size_sum.push_back(0);
      compile_sum.push_back(0);
      shared.push_back(created[r] ? node.attributes : Attributes{});
    }
    mapped[i] = r;
    if (node.id == target_id) continue;
    ++members[r];
    size_sum[r] += parse_number(node.attribute(attr::kSize));
    compile_sum[r] += parse_number(node.attribute(attr::kCompileMs));
    if (created[r]) std::erase_if(shared[r], [&](const auto& kv) { return node.attribute(kv.first) != kv.second; });
  }

  for (NodeIndex r = 0; r < result.node_count(); ++r) {
    if (!created[r]) continue;
    for (auto& [key, value] : shared[r])
      if (key != attr::kSize && key != attr::kCompileMs && key != attr::kCount) result.set_attribute(r, key, value);
    result.set_attribute(r, std::string(attr::kCount), std::to_string(members[r]));
    if (size_sum[r] > 0) result.set_attribute(r, std::string(attr::kSize), format_number(size_sum[r]));
    if (compile_sum[r] > 0) result.set_attribute(r, std::string(attr::kCompileMs), format_number(compile_sum[r]));
  }

  std::vector<std::uint64_t> counts;
  for (const Edge& edge : graph.edges()) {
    auto ends = rewrite(graph, contraction, edge);
    if (!ends) continue;
    NodeIndex from = mapped[ends->from], to = mapped[ends->to];
    bool folded = graph.node(ends->from).id != result.node(from).id || graph.node(ends->to).id != result.node(to).id;
    if (from == to && folded) continue;  // e.g. a target compiling its own (now folded) object
    add_merged_edge(result, counts, from, to, edge);
  }
  write_counts(result, counts);
  return result;
}

// "source compiles to object" would become "source -> target", the reverse of the target's own
// "target compiles source" edge: turn it around, or drop it when the target has that edge.
std::optional<EdgeEnds> orient_compiles_from_targets(const Graph& graph, const Contraction& contraction,
                                                     const Edge& edge) {
  const std::string& owner_id = contraction.into[edge.to];
  NodeKind from_kind = graph.node(edge.from).kind;
  if (edge.kind != EdgeKind::Compiles || owner_id.empty() || is_target_kind(from_kind) || from_kind == NodeKind::Object)
    return EdgeEnds{edge.from, edge.to};
  NodeIndex owner = graph.index_of(owner_id);
  if (graph.find_edge(owner, edge.from, EdgeKind::Compiles)) return std::nullopt;
  return EdgeEnds{owner, edge.from};
}

}  // namespace

Graph contract(const Graph& graph, const Contraction& contraction) {
  return contract_with(graph, contraction, keep_edge);
}

Graph collapse_sources_into_directories(const Graph& graph, bool include_headers) {
  const std::size_t n = graph.node_count();
  std::string root(graph.attributes().contains(attr::kSourceRoot) ? graph.attributes().find(attr::kSourceRoot)->second
                                                                  : std::string());
  Contraction contraction{std::vector<std::string>(n), std::vector<NodeKind>(n, NodeKind::Directory),
                          std::vector<std::string>(n)};
  std::vector<std::string> directories;
  for (NodeIndex i = 0; i < n; ++i) {
    const Node& node = graph.node(i);
    bool foldable = node.kind == NodeKind::Source || node.kind == NodeKind::GeneratedSource ||
                    (include_headers && node.kind == NodeKind::Header);
    if (!foldable) continue;
    std::string directory = directory_of(node);
    if (directory.empty()) continue;
    contraction.into[i] = "dir:" + directory;
    contraction.fold_label[i] = path_relative_to(directory, root) + "/";
    directories.push_back(std::move(directory));
  }
  Graph result = contract(graph, contraction);
  // The members' paths differ; the folded node's path and directory are the directory itself.
  for (const auto& directory : directories) {
    NodeIndex index = result.index_of("dir:" + directory);
    if (result.node(index).kind != NodeKind::Directory) continue;
    result.set_attribute(index, std::string(attr::kPath), directory);
    result.set_attribute(index, std::string(attr::kDirectory), directory);
  }
  return result;
}

Graph collapse_objects_into_targets(const Graph& graph) {
  const std::size_t n = graph.node_count();
  Contraction contraction{std::vector<std::string>(n), std::vector<NodeKind>(n, NodeKind::Target),
                          std::vector<std::string>(n)};
  for (NodeIndex i = 0; i < n; ++i) {
    const Node& node = graph.node(i);
    if (node.kind != NodeKind::Object) continue;
    if (auto owner = graph.find(node.attribute(attr::kTarget)); owner && *owner != i) {
      contraction.into[i] = graph.node(*owner).id;
      continue;
    }
    auto first_target_neighbour = [&](const std::vector<EdgeIndex>& edges, bool incoming) -> const Node* {
      for (EdgeIndex e : edges) {
        const Node& other = graph.node(incoming ? graph.edge(e).from : graph.edge(e).to);
        if (is_target_kind(other.kind)) return &other;
      }
      return nullptr;
    };
    const Node* owner = first_target_neighbour(graph.in_edges(i), true);
    if (!owner) owner = first_target_neighbour(graph.out_edges(i), false);
    if (owner) contraction.into[i] = owner->id;
  }
  if (std::all_of(contraction.into.begin(), contraction.into.end(), [](const auto& id) { return id.empty(); }))
    return graph;
  return contract_with(graph, contraction, orient_compiles_from_targets);
}

Graph merge_parallel_edges(const Graph& graph) {
  Graph result(graph.name());
  copy_graph_attributes(graph, result);
  for (const Node& node : graph.nodes()) result.add_node(node.id, node.kind, node.label, node.attributes);
  std::vector<std::uint64_t> counts;
  for (const Edge& edge : graph.edges()) add_merged_edge(result, counts, edge.from, edge.to, edge);
  write_counts(result, counts);
  return result;
}

Graph drop_self_loops(const Graph& graph) {
  Graph result(graph.name());
  copy_graph_attributes(graph, result);
  for (const Node& node : graph.nodes()) result.add_node(node.id, node.kind, node.label, node.attributes);
  for (const Edge& edge : graph.edges())
    if (edge.from != edge.to) result.add_edge(edge.from, edge.to, edge.kind, edge.label, edge.attributes);
  return result;
}

}  // namespace glassbox::graphs
