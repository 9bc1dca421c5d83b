#include "graphs/reduction.h"

#include <gtest/gtest.h>

#include "graph_fixtures.h"

namespace glassbox::graphs {
namespace {

using testing::edge_list;
using Strings = std::vector<std::string>;

Graph chain_with_shortcuts() {
  Graph g;
  for (const char* id : {"app", "core", "base", "m"}) g.add_node(id, NodeKind::Library);
  g.add_edge("app", "core", EdgeKind::Links);
  g.add_edge("app", "base", EdgeKind::Links);  // app -> core -> base
  g.add_edge("core", "base", EdgeKind::Links);
  g.add_edge("app", "m", EdgeKind::Links);  // app -> core -> base -> m
  g.add_edge("base", "m", EdgeKind::Links);
  g.add_edge("app", "base", EdgeKind::Depends);
  return g;
}

TEST(GraphReduction, ShortcutsGoOtherKindsStay) {
  const Graph g = transitive_reduction(chain_with_shortcuts(), EdgeKind::Links);
  EXPECT_EQ(edge_list(g),
            (Strings{"app -links-> core", "core -links-> base", "base -links-> m", "app -depends-> base"}));
  EXPECT_EQ(g.node_count(), 4u);
}

TEST(GraphReduction, BuildOrderEdgesReducedThroughLinks) {
  const Graph g = transitive_reduction(chain_with_shortcuts(), EdgeKind::Depends, {EdgeKind::Links, EdgeKind::Depends});
  EXPECT_EQ(edge_list(g), (Strings{"app -links-> core", "app -links-> base", "core -links-> base", "app -links-> m",
                                   "base -links-> m"}));
}

TEST(GraphReduction, CyclesKeepTheirReachability) {
  Graph g;
  for (const char* id : {"a", "b", "c"}) g.add_node(id, NodeKind::Library);
  g.add_edge("a", "b", EdgeKind::Links);
  g.add_edge("b", "a", EdgeKind::Links);
  g.add_edge("b", "c", EdgeKind::Links);
  g.add_edge("a", "c", EdgeKind::Links);
  const Graph r = transitive_reduction(g, EdgeKind::Links);
  // In order: b -> c goes (b -> a -> c), then a -> c stays, as it is now the only way to c; the
  // two-cycle stays. Everything reached before still is.
  EXPECT_EQ(edge_list(r), (Strings{"a -links-> b", "b -links-> a", "a -links-> c"}));
}

}  // namespace
}  // namespace glassbox::graphs
