#pragma once
// The graph model shared by every introspection tool: typed nodes with unique string ids, typed
// edges, string attributes. Nodes and edges keep insertion order, so every writer's output is stable.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace glassbox::graphs {

enum class NodeKind : std::uint8_t {
  Target,   // a build target that is neither a library nor an executable (custom, interface)
  Library,  // static, shared, module or object library (attribute "type" says which)
  Executable,
  Object,  // an object file (.o)
  Source,  // a translation unit in the source tree
  Header,
  GeneratedSource,  // a source or header written by the build
  Directory,        // a source directory, e.g. the result of collapsing the sources in it
  External,         // anything outside the project: system headers, system or imported libraries
  Symbol,
  Operator,
  DispatchKey,
  Kernel,
  AutogradNode,
};
inline constexpr std::size_t kNodeKindCount = 14;

enum class EdgeKind : std::uint8_t {
  Links,         // from links to: executable -> library (link truth, from link commands)
  Depends,       // build-order dependency: from is built after to
  Compiles,      // target -> source, source -> object, target -> object
  Includes,      // includer -> included header
  Defines,       // file -> symbol or operator it defines
  Registers,     // registration site -> operator or kernel it registers
  DispatchesTo,  // operator or dispatch key -> kernel
  BackwardOf,    // autograd node -> the forward operator it differentiates
};
inline constexpr std::size_t kEdgeKindCount = 8;

// Names as written in JSON, DOT comments and the CLI: "library", "generated_source",
// "dispatch_key", "links", "depends", "dispatches_to", ...
std::string_view to_string(NodeKind kind);
std::string_view to_string(EdgeKind kind);
std::optional<NodeKind> node_kind_from_string(std::string_view name);
std::optional<EdgeKind> edge_kind_from_string(std::string_view name);

// Ordered by key, so writers emit attributes in a stable order; lookups accept string_view.
using Attributes = std::map<std::string, std::string, std::less<>>;

// Attribute keys the filters and writers understand. Any other key is carried along as data
// (JSON) and shown nowhere else, except "dot:<name>", which the DOT writer passes to Graphviz as is.
namespace attr {
inline constexpr std::string_view kPath = "path";  // file on disk (absolute, or relative to the source root)
inline constexpr std::string_view kDirectory =
    "directory";  // directory used for collapsing/clustering; default: parent of path
inline constexpr std::string_view kCluster =
    "cluster";  // cluster the node is drawn in; '/' nests ("engine/cpu" inside "engine")
inline constexpr std::string_view kTarget = "target";         // id of the owning target (objects, sources)
inline constexpr std::string_view kType = "type";             // e.g. SHARED_LIBRARY, STATIC_LIBRARY, INTERFACE_LIBRARY
inline constexpr std::string_view kSize = "size";             // bytes (decimal)
inline constexpr std::string_view kCompileMs = "compile_ms";  // milliseconds (decimal)
inline constexpr std::string_view kFile = "file";  // definition site (registrations, targets' CMakeLists.txt)
inline constexpr std::string_view kLine = "line";
inline constexpr std::string_view kTooltip = "tooltip";  // overrides the tooltip built from path/size/compile_ms
inline constexpr std::string_view kUrl = "url";          // overrides the file:// link built from path
inline constexpr std::string_view kCount = "count";      // members of a collapsed node, or edges merged into one
inline constexpr std::string_view kDotPrefix = "dot:";   // "dot:color" = "red" is written as color="red"
                                                         // (on the graph too: "dot:ranksep")
// Graph-wide: the project's source directory. Relative paths are resolved against it for links,
// and directories under it are shown (and clustered) relative to it.
inline constexpr std::string_view kSourceRoot = "source_root";
}  // namespace attr

using NodeIndex = std::size_t;
using EdgeIndex = std::size_t;

struct Node {
  std::string id;  // unique within its graph
  NodeKind kind;
  std::string label;  // what is drawn; the id when empty
  Attributes attributes;

  // The attribute's value, or "" when absent.
  std::string_view attribute(std::string_view key) const;
  const std::string& display_label() const { return label.empty() ? id : label; }
};

struct Edge {
  NodeIndex from;
  NodeIndex to;
  EdgeKind kind;
  std::string label;
  Attributes attributes;

  std::string_view attribute(std::string_view key) const;
};

// A directed multigraph. Nodes and edges are only appended (the filters build new graphs), so
// indices stay valid for the graph's lifetime. Finding a node by id and an edge by
// (from, to, kind) are hash lookups.
class Graph {
 public:
  explicit Graph(std::string name = "glassbox");

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  // Graph-wide data, written to JSON: "title" (also the DOT graph's label), "source_root" (see
  // attr::kSourceRoot), anything else a reader wants to keep.
  const Attributes& attributes() const { return attributes_; }
  void set_attribute(std::string key, std::string value);

  // Room for this many nodes and edges in all, so large graphs are built without rehashing.
  void reserve(std::size_t nodes, std::size_t edges);

  // --- nodes
  // Adds a node; throws glassbox::Error when the id is taken.
  NodeIndex add_node(std::string id, NodeKind kind, std::string label = {}, Attributes attributes = {});
  // Returns the node with this id, adding it when absent (an existing node is left unchanged).
  NodeIndex ensure_node(std::string id, NodeKind kind, std::string label = {}, Attributes attributes = {});
  std::optional<NodeIndex> find(std::string_view id) const;
  bool contains(std::string_view id) const { return find(id).has_value(); }
  // The index of the node with this id; throws glassbox::Error naming the id when absent.
  NodeIndex index_of(std::string_view id) const;

  const Node& node(NodeIndex index) const { return nodes_.at(index); }
  const Node& node(std::string_view id) const { return nodes_[index_of(id)]; }
  const std::vector<Node>& nodes() const { return nodes_; }
  std::size_t node_count() const { return nodes_.size(); }

  // Nodes' ids are fixed; everything else may change.
  void set_label(NodeIndex index, std::string label);
  void set_kind(NodeIndex index, NodeKind kind);
  void set_attribute(NodeIndex index, std::string key, std::string value);
  void erase_attribute(NodeIndex index, std::string_view key);

  // --- edges
  // Adds an edge; parallel edges are allowed (merge_parallel_edges() folds them).
  EdgeIndex add_edge(NodeIndex from, NodeIndex to, EdgeKind kind, std::string label = {}, Attributes attributes = {});
  // By id; throws glassbox::Error naming a missing endpoint.
  EdgeIndex add_edge(std::string_view from_id, std::string_view to_id, EdgeKind kind, std::string label = {},
                     Attributes attributes = {});
  // Returns the first edge (from, to, kind), adding it when absent.
  EdgeIndex ensure_edge(NodeIndex from, NodeIndex to, EdgeKind kind);
  std::optional<EdgeIndex> find_edge(NodeIndex from, NodeIndex to, EdgeKind kind) const;

  const Edge& edge(EdgeIndex index) const { return edges_.at(index); }
  const std::vector<Edge>& edges() const { return edges_; }
  std::size_t edge_count() const { return edges_.size(); }
  // Edges leaving / entering a node, in insertion order.
  const std::vector<EdgeIndex>& out_edges(NodeIndex index) const { return out_.at(index); }
  const std::vector<EdgeIndex>& in_edges(NodeIndex index) const { return in_.at(index); }

  void set_edge_label(EdgeIndex index, std::string label);
  void set_edge_attribute(EdgeIndex index, std::string key, std::string value);

  // Counts per kind, indexed by the enum's value.
  std::vector<std::size_t> node_counts_by_kind() const;
  std::vector<std::size_t> edge_counts_by_kind() const;

 private:
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  struct EdgeKey {
    NodeIndex from, to;
    EdgeKind kind;
    bool operator==(const EdgeKey&) const = default;
  };
  struct EdgeKeyHash {
    std::size_t operator()(const EdgeKey& k) const noexcept;
  };

  std::string name_;
  Attributes attributes_;
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::vector<std::vector<EdgeIndex>> out_, in_;
  std::unordered_map<std::string, NodeIndex, StringHash, std::equal_to<>> by_id_;
  std::unordered_map<EdgeKey, EdgeIndex, EdgeKeyHash> first_edge_;
};

// The directory a node belongs to, for collapsing and clustering: its "directory" attribute, else
// the parent of its "path", else "" (no directory).
std::string directory_of(const Node& node);

// `path` relative to `root` when it lies under it ("/p/engine/cpu", "/p" -> "engine/cpu"; the root
// itself -> "."); otherwise, or when root is empty, `path` unchanged. Purely lexical.
std::string path_relative_to(std::string_view path, std::string_view root);

// True for kinds that own objects and sources: target, library, executable.
bool is_target_kind(NodeKind kind);

}  // namespace glassbox::graphs
