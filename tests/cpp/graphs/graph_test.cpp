#include "graphs/graph.h"

#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "graph_fixtures.h"

namespace glassbox::graphs {
namespace {

using testing::edge_list;
using testing::node_ids;

TEST(GraphModel, KindNamesRoundTrip) {
  for (std::size_t k = 0; k < kNodeKindCount; ++k) {
    auto kind = static_cast<NodeKind>(k);
    EXPECT_EQ(node_kind_from_string(to_string(kind)), kind);
  }
  for (std::size_t k = 0; k < kEdgeKindCount; ++k) {
    auto kind = static_cast<EdgeKind>(k);
    EXPECT_EQ(edge_kind_from_string(to_string(kind)), kind);
  }
  EXPECT_EQ(to_string(NodeKind::GeneratedSource), "generated_source");
  EXPECT_EQ(to_string(NodeKind::DispatchKey), "dispatch_key");
  EXPECT_EQ(to_string(EdgeKind::DispatchesTo), "dispatches_to");
  EXPECT_EQ(to_string(EdgeKind::Depends), "depends");
  EXPECT_FALSE(node_kind_from_string("gizmo"));
  EXPECT_FALSE(edge_kind_from_string(""));
}

TEST(GraphModel, AddAndFindNodesKeepInsertionOrder) {
  Graph g;
  NodeIndex b = g.add_node("b", NodeKind::Source);
  NodeIndex a = g.add_node("a", NodeKind::Header, "a.h", {{"path", "/x/a.h"}});
  EXPECT_EQ(node_ids(g), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(g.find("a"), a);
  EXPECT_EQ(g.find("b"), b);
  EXPECT_FALSE(g.find("c"));
  EXPECT_TRUE(g.contains("a"));
  EXPECT_EQ(g.node("a").label, "a.h");
  EXPECT_EQ(g.node("b").display_label(), "b");
  EXPECT_EQ(g.node(a).attribute("path"), "/x/a.h");
  EXPECT_EQ(g.node(a).attribute("size"), "");
}

TEST(GraphModel, DuplicateIdThrowsNamingIt) {
  Graph g("demo");
  g.add_node("lib/libcore.so", NodeKind::Library);
  try {
    g.add_node("lib/libcore.so", NodeKind::Target);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'lib/libcore.so' already exists"), std::string::npos) << e.what();
  }
  EXPECT_EQ(g.node_count(), 1u);
}

TEST(GraphModel, EnsureNodeReturnsTheExistingNode) {
  Graph g;
  NodeIndex first = g.ensure_node("x", NodeKind::Library, "X");
  NodeIndex again = g.ensure_node("x", NodeKind::External, "other");
  EXPECT_EQ(first, again);
  EXPECT_EQ(g.node(first).kind, NodeKind::Library);
  EXPECT_EQ(g.node(first).label, "X");
  EXPECT_EQ(g.node_count(), 1u);
}

TEST(GraphModel, IndexOfMissingIdThrowsNamingIt) {
  Graph g("demo");
  try {
    g.index_of("nope");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "graph 'demo' has no node with id 'nope'");
  }
}

TEST(GraphModel, EdgesByIndexAndById) {
  Graph g;
  NodeIndex a = g.add_node("a", NodeKind::Executable);
  NodeIndex b = g.add_node("b", NodeKind::Library);
  NodeIndex c = g.add_node("c", NodeKind::Library);
  EdgeIndex ab = g.add_edge(a, b, EdgeKind::Links);
  EdgeIndex ac = g.add_edge("a", "c", EdgeKind::Depends, "order");
  EdgeIndex bc = g.add_edge(b, c, EdgeKind::Links, "", {{"count", "2"}});
  EXPECT_EQ(edge_list(g), (std::vector<std::string>{"a -links-> b", "a -depends-> c", "b -links-> c"}));
  EXPECT_EQ(g.out_edges(a), (std::vector<EdgeIndex>{ab, ac}));
  EXPECT_EQ(g.in_edges(c), (std::vector<EdgeIndex>{ac, bc}));
  EXPECT_TRUE(g.out_edges(c).empty());
  EXPECT_EQ(g.edge(ac).label, "order");
  EXPECT_EQ(g.edge(bc).attribute("count"), "2");
  EXPECT_EQ(g.find_edge(a, b, EdgeKind::Links), ab);
  EXPECT_FALSE(g.find_edge(a, b, EdgeKind::Depends));
  EXPECT_FALSE(g.find_edge(b, a, EdgeKind::Links));
}

TEST(GraphModel, AddEdgeWithMissingEndpointThrowsNamingIt) {
  Graph g("demo");
  g.add_node("a", NodeKind::Executable);
  try {
    g.add_edge("a", "ghost", EdgeKind::Links);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no node with id 'ghost'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(g.add_edge(0, 7, EdgeKind::Links), Error);
  EXPECT_EQ(g.edge_count(), 0u);
}

TEST(GraphModel, ParallelEdgesAreKeptAndEnsureEdgeFindsTheFirst) {
  Graph g;
  NodeIndex a = g.add_node("a", NodeKind::Source);
  NodeIndex h = g.add_node("h", NodeKind::Header);
  EdgeIndex first = g.add_edge(a, h, EdgeKind::Includes);
  g.add_edge(a, h, EdgeKind::Includes);
  EXPECT_EQ(g.edge_count(), 2u);
  EXPECT_EQ(g.ensure_edge(a, h, EdgeKind::Includes), first);
  EXPECT_EQ(g.edge_count(), 2u);
  EdgeIndex other = g.ensure_edge(h, a, EdgeKind::Includes);
  EXPECT_EQ(other, 2u);
}

TEST(GraphModel, MutatorsChangeEverythingButTheId) {
  Graph g;
  NodeIndex n = g.add_node("n", NodeKind::Target);
  g.set_label(n, "N");
  g.set_kind(n, NodeKind::Library);
  g.set_attribute(n, "size", "12");
  g.set_attribute(n, "size", "13");
  g.set_attribute(n, "path", "/x");
  g.erase_attribute(n, "path");
  g.erase_attribute(n, "absent");
  EXPECT_EQ(g.node(n).label, "N");
  EXPECT_EQ(g.node(n).kind, NodeKind::Library);
  EXPECT_EQ(g.node(n).attributes, (Attributes{{"size", "13"}}));
  EdgeIndex e = g.add_edge(n, n, EdgeKind::Depends);
  g.set_edge_label(e, "self");
  g.set_edge_attribute(e, "k", "v");
  EXPECT_EQ(g.edge(e).label, "self");
  EXPECT_EQ(g.edge(e).attribute("k"), "v");
  g.set_attribute("title", "T");
  EXPECT_EQ(g.attributes().at("title"), "T");
}

TEST(GraphModel, CountsByKind) {
  Graph g = testing::small_build_graph();
  auto nodes = g.node_counts_by_kind();
  auto edges = g.edge_counts_by_kind();
  EXPECT_EQ(nodes[static_cast<std::size_t>(NodeKind::Library)], 2u);
  EXPECT_EQ(nodes[static_cast<std::size_t>(NodeKind::Source)], 4u);
  EXPECT_EQ(nodes[static_cast<std::size_t>(NodeKind::Object)], 2u);
  EXPECT_EQ(edges[static_cast<std::size_t>(EdgeKind::Links)], 3u);
  EXPECT_EQ(edges[static_cast<std::size_t>(EdgeKind::Includes)], 4u);
}

TEST(GraphModel, DirectoryOfPrefersTheDirectoryAttribute) {
  Node with_dir{"t", NodeKind::Library, "", {{"directory", "/p/core"}, {"path", "/elsewhere/x"}}};
  Node with_path{"s", NodeKind::Source, "", {{"path", "/p/cpu/c.cpp"}}};
  Node bare{"x", NodeKind::Symbol, "", {}};
  EXPECT_EQ(directory_of(with_dir), "/p/core");
  EXPECT_EQ(directory_of(with_path), "/p/cpu");
  EXPECT_EQ(directory_of(bare), "");
}

TEST(GraphModel, PathRelativeTo) {
  EXPECT_EQ(path_relative_to("/p/engine/cpu", "/p"), "engine/cpu");
  EXPECT_EQ(path_relative_to("/p/engine/cpu", "/p/"), "engine/cpu");
  EXPECT_EQ(path_relative_to("/p", "/p"), ".");
  EXPECT_EQ(path_relative_to("/pq/x", "/p"), "/pq/x");
  EXPECT_EQ(path_relative_to("/usr/include", "/p"), "/usr/include");
  EXPECT_EQ(path_relative_to("/usr/include", ""), "/usr/include");
  EXPECT_EQ(path_relative_to("/usr/include", "/"), "usr/include");
}

TEST(GraphModel, HundredThousandNodesAddAndFind) {
  Graph g;
  constexpr std::size_t n = 100'000;
  for (std::size_t i = 0; i < n; ++i) g.add_node("node/" + std::to_string(i), NodeKind::Symbol);
  for (std::size_t i = 1; i < n; ++i) g.add_edge(i - 1, i, EdgeKind::Defines);
  EXPECT_EQ(g.node_count(), n);
  EXPECT_EQ(g.find("node/99999"), NodeIndex{99'999});
  EXPECT_EQ(g.find_edge(41, 42, EdgeKind::Defines), EdgeIndex{41});
  EXPECT_EQ(g.nodes()[12345].id, "node/12345");
}

}  // namespace
}  // namespace glassbox::graphs
