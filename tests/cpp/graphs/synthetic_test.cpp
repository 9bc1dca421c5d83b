#include "graphs/synthetic.h"

#include <gtest/gtest.h>

#include "graph_fixtures.h"

namespace glassbox::graphs {
namespace {

TEST(GraphSynthetic, HasTheRequestedSizeAndEveryKindOfBuildNode) {
  Graph g = make_synthetic_build_graph({.nodes = 1000, .edges = 2000});
  EXPECT_EQ(g.node_count(), 1000u);
  EXPECT_GE(g.edge_count(), 1900u);
  EXPECT_LE(g.edge_count(), 2000u);
  auto counts = g.node_counts_by_kind();
  for (NodeKind kind :
       {NodeKind::Library, NodeKind::Executable, NodeKind::Source, NodeKind::Header, NodeKind::External})
    EXPECT_GT(counts[static_cast<std::size_t>(kind)], 0u) << to_string(kind);
  auto edges = g.edge_counts_by_kind();
  for (EdgeKind kind : {EdgeKind::Links, EdgeKind::Depends, EdgeKind::Compiles, EdgeKind::Includes})
    EXPECT_GT(edges[static_cast<std::size_t>(kind)], 0u) << to_string(kind);
}

TEST(GraphSynthetic, IsDeterministicForASeed) {
  Graph a = make_synthetic_build_graph({.nodes = 300, .edges = 600, .seed = 7});
  Graph b = make_synthetic_build_graph({.nodes = 300, .edges = 600, .seed = 7});
  Graph c = make_synthetic_build_graph({.nodes = 300, .edges = 600, .seed = 8});
  EXPECT_EQ(testing::node_ids(a), testing::node_ids(b));
  EXPECT_EQ(testing::edge_list(a), testing::edge_list(b));
  EXPECT_NE(testing::edge_list(a), testing::edge_list(c));
}

}  // namespace
}  // namespace glassbox::graphs
