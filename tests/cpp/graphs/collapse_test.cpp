#include "graphs/collapse.h"

#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "graph_fixtures.h"

namespace glassbox::graphs {
namespace {

using testing::edge_list;
using testing::node_ids;
using testing::small_build_graph;
using Strings = std::vector<std::string>;

TEST(GraphCollapse, ObjectsFoldIntoTheirTarget) {
  Graph g = collapse_objects_into_targets(small_build_graph());
  EXPECT_EQ(node_ids(g),
            (Strings{"lib/libcore.so", "lib/libcpu.so", "bin/app", "/p/core/a.cpp", "/p/core/b.cpp", "/p/core/a.h",
                     "/p/core/b.h", "/p/cpu/c.cpp", "/p/app/main.cpp", "/usr/lib/libm.so"}));
  // libcore -> a.o and libcore -> b.o became self-loops and are gone; a.cpp -> a.o would have
  // been a.cpp -> libcore, the reverse of libcore -> a.cpp, and is gone too.
  EXPECT_EQ(edge_list(g),
            (Strings{"lib/libcore.so -compiles-> /p/core/a.cpp", "lib/libcore.so -compiles-> /p/core/b.cpp",
                     "/p/core/a.cpp -includes-> /p/core/a.h", "/p/core/b.cpp -includes-> /p/core/b.h",
                     "/p/core/b.h -includes-> /p/core/a.h", "/p/cpu/c.cpp -includes-> /p/core/a.h",
                     "lib/libcpu.so -compiles-> /p/cpu/c.cpp", "lib/libcpu.so -links-> lib/libcore.so",
                     "lib/libcpu.so -depends-> lib/libcore.so", "lib/libcpu.so -links-> /usr/lib/libm.so",
                     "bin/app -compiles-> /p/app/main.cpp", "bin/app -links-> lib/libcpu.so"}));
  // The surviving target is unchanged.
  EXPECT_EQ(g.node("lib/libcore.so").attributes, (Attributes{{"directory", "/p/core"}}));
}

TEST(GraphCollapse, ObjectWithoutOwnerIsKept) {
  Graph g;
  g.add_node("lonely.o", NodeKind::Object);
  g.add_node("x.cpp", NodeKind::Source);
  g.add_edge("x.cpp", "lonely.o", EdgeKind::Compiles);
  Graph result = collapse_objects_into_targets(g);
  EXPECT_EQ(node_ids(result), (Strings{"lonely.o", "x.cpp"}));
  EXPECT_EQ(edge_list(result), (Strings{"x.cpp -compiles-> lonely.o"}));
}

TEST(GraphCollapse, SourceToObjectEdgesTurnAroundWhenTheTargetLacksThem) {
  Graph g;
  g.add_node("t", NodeKind::Library);
  g.add_node("x.cpp", NodeKind::Source);
  g.add_node("y.cpp", NodeKind::Source);
  g.add_node("x.o", NodeKind::Object, "", {{"target", "t"}});
  g.add_node("y.o", NodeKind::Object, "", {{"target", "t"}});
  g.add_edge("x.cpp", "x.o", EdgeKind::Compiles);
  g.add_edge("t", "y.cpp", EdgeKind::Compiles);
  g.add_edge("y.cpp", "y.o", EdgeKind::Compiles);
  g.add_edge("x.o", "y.o", EdgeKind::Depends);
  Graph result = collapse_objects_into_targets(g);
  EXPECT_EQ(node_ids(result), (Strings{"t", "x.cpp", "y.cpp"}));
  EXPECT_EQ(edge_list(result), (Strings{"t -compiles-> x.cpp", "t -compiles-> y.cpp"}));
  EXPECT_EQ(result.edge(1).attribute("count"), "");
}

TEST(GraphCollapse, SourcesFoldIntoDirectories) {
  Graph g = collapse_sources_into_directories(small_build_graph());
  EXPECT_EQ(node_ids(g),
            (Strings{"lib/libcore.so", "lib/libcpu.so", "bin/app", "dir:/p/core", "/p/core/a.h", "/p/core/b.h",
                     "dir:/p/cpu", "dir:/p/app", "core/a.o", "core/b.o", "/usr/lib/libm.so"}));
  EXPECT_EQ(edge_list(g), (Strings{"lib/libcore.so -compiles-> dir:/p/core", "dir:/p/core -compiles-> core/a.o",
                                   "dir:/p/core -compiles-> core/b.o", "lib/libcore.so -compiles-> core/a.o",
                                   "lib/libcore.so -compiles-> core/b.o", "dir:/p/core -includes-> /p/core/a.h",
                                   "dir:/p/core -includes-> /p/core/b.h", "/p/core/b.h -includes-> /p/core/a.h",
                                   "dir:/p/cpu -includes-> /p/core/a.h", "lib/libcpu.so -compiles-> dir:/p/cpu",
                                   "lib/libcpu.so -links-> lib/libcore.so", "lib/libcpu.so -depends-> lib/libcore.so",
                                   "lib/libcpu.so -links-> /usr/lib/libm.so", "bin/app -compiles-> dir:/p/app",
                                   "bin/app -links-> lib/libcpu.so"}));
  const Node& core = g.node("dir:/p/core");
  EXPECT_EQ(core.kind, NodeKind::Directory);
  EXPECT_EQ(core.label, "core/");  // relative to the graph's source_root
  EXPECT_EQ(core.attributes,
            (Attributes{{"count", "2"}, {"directory", "/p/core"}, {"path", "/p/core"}, {"size", "300"}}));
  // The two compiles edges into the folded sources became one, counting both.
  EdgeIndex merged = *g.find_edge(g.index_of("lib/libcore.so"), g.index_of("dir:/p/core"), EdgeKind::Compiles);
  EXPECT_EQ(g.edge(merged).attribute("count"), "2");
  EXPECT_EQ(g.node("dir:/p/app").attribute("count"), "1");
}

TEST(GraphCollapse, HeadersFoldTooWhenAsked) {
  Graph g = collapse_sources_into_directories(small_build_graph(), /*include_headers=*/true);
  EXPECT_EQ(node_ids(g), (Strings{"lib/libcore.so", "lib/libcpu.so", "bin/app", "dir:/p/core", "dir:/p/cpu",
                                  "dir:/p/app", "core/a.o", "core/b.o", "/usr/lib/libm.so"}));
  // Includes inside core/ became self-loops and are gone; cpu/c.cpp -> core/a.h is now dir to dir.
  EXPECT_EQ(edge_list(g), (Strings{"lib/libcore.so -compiles-> dir:/p/core", "dir:/p/core -compiles-> core/a.o",
                                   "dir:/p/core -compiles-> core/b.o", "lib/libcore.so -compiles-> core/a.o",
                                   "lib/libcore.so -compiles-> core/b.o", "dir:/p/cpu -includes-> dir:/p/core",
                                   "lib/libcpu.so -compiles-> dir:/p/cpu", "lib/libcpu.so -links-> lib/libcore.so",
                                   "lib/libcpu.so -depends-> lib/libcore.so", "lib/libcpu.so -links-> /usr/lib/libm.so",
                                   "bin/app -compiles-> dir:/p/app", "bin/app -links-> lib/libcpu.so"}));
  EXPECT_EQ(g.node("dir:/p/core").attribute("count"), "4");
  EXPECT_EQ(g.node("dir:/p/core").attribute("size"), "330");
}

TEST(GraphCollapse, SourcesWithoutDirectoryAreKept) {
  Graph g;
  g.add_node("t", NodeKind::Target);
  g.add_node("floating.cpp", NodeKind::Source);
  g.add_node("gen/ops.cpp", NodeKind::GeneratedSource, "",
             {{"path", "/b/gen/ops.cpp"}, {"target", "t"}, {"compile_ms", "1500"}});
  g.add_node("gen/more.cpp", NodeKind::GeneratedSource, "",
             {{"path", "/b/gen/more.cpp"}, {"target", "t"}, {"compile_ms", "500"}});
  g.add_edge("t", "floating.cpp", EdgeKind::Compiles);
  g.add_edge("t", "gen/ops.cpp", EdgeKind::Compiles);
  Graph result = collapse_sources_into_directories(g);
  EXPECT_EQ(node_ids(result), (Strings{"t", "floating.cpp", "dir:/b/gen"}));
  EXPECT_EQ(edge_list(result), (Strings{"t -compiles-> floating.cpp", "t -compiles-> dir:/b/gen"}));
  // Attributes every member agrees on survive; sums are added up; no source root: full label.
  EXPECT_EQ(result.node("dir:/b/gen").attributes,
            (Attributes{
                {"compile_ms", "2000"}, {"count", "2"}, {"directory", "/b/gen"}, {"path", "/b/gen"}, {"target", "t"}}));
  EXPECT_EQ(result.node("dir:/b/gen").label, "/b/gen/");
}

TEST(GraphCollapse, ContractFollowsChainsAndKeepsExistingTargets) {
  Graph g;
  g.add_node("a", NodeKind::Object);
  g.add_node("b", NodeKind::Object);
  g.add_node("c", NodeKind::Library, "C", {{"size", "5"}});
  g.add_node("d", NodeKind::Source);
  g.add_edge("d", "a", EdgeKind::Compiles);
  g.add_edge("a", "b", EdgeKind::Depends);
  g.add_edge("d", "b", EdgeKind::Compiles);
  Contraction contraction{{"b", "c", "", ""}, std::vector<NodeKind>(4, NodeKind::Target), Strings(4)};
  Graph result = contract(g, contraction);
  // a -> b -> c: both fold into c, which is placed where a was first met and keeps its attributes.
  EXPECT_EQ(node_ids(result), (Strings{"c", "d"}));
  EXPECT_EQ(result.node("c").attributes, (Attributes{{"size", "5"}}));
  EXPECT_EQ(result.node("c").label, "C");
  EXPECT_EQ(edge_list(result), (Strings{"d -compiles-> c"}));
  EXPECT_EQ(result.edge(0).attribute("count"), "2");
  EXPECT_THROW(contract(g, Contraction{}), Error);
}

TEST(GraphCollapse, ContractCreatesNewNodesWithGivenKindAndLabel) {
  Graph g;
  g.add_node("k1", NodeKind::Kernel);
  g.add_node("k2", NodeKind::Kernel);
  g.add_node("op", NodeKind::Operator);
  g.add_edge("op", "k1", EdgeKind::DispatchesTo);
  g.add_edge("op", "k2", EdgeKind::DispatchesTo, "CPU");
  Contraction contraction{{"kernels", "kernels", ""},
                          {NodeKind::Directory, NodeKind::Directory, NodeKind::Target},
                          {"all kernels", "ignored", ""}};
  Graph result = contract(g, contraction);
  EXPECT_EQ(node_ids(result), (Strings{"kernels", "op"}));
  EXPECT_EQ(result.node("kernels").kind, NodeKind::Directory);
  EXPECT_EQ(result.node("kernels").label, "all kernels");
  EXPECT_EQ(result.node("kernels").attribute("count"), "2");
  EXPECT_EQ(edge_list(result), (Strings{"op -dispatches_to-> kernels"}));
  EXPECT_EQ(result.edge(0).label, "");  // the first merged edge's label
}

TEST(GraphCollapse, MergeParallelEdgesSumsCounts) {
  Graph g;
  g.add_node("a", NodeKind::Executable);
  g.add_node("b", NodeKind::Library);
  g.add_edge("a", "b", EdgeKind::Links, "first", {{"note", "x"}});
  g.add_edge("a", "b", EdgeKind::Depends);
  g.add_edge("a", "b", EdgeKind::Links, "second", {{"count", "2"}});
  g.add_edge("a", "b", EdgeKind::Links);
  g.add_edge("b", "a", EdgeKind::Links);
  Graph merged = merge_parallel_edges(g);
  EXPECT_EQ(edge_list(merged), (Strings{"a -links-> b", "a -depends-> b", "b -links-> a"}));
  EXPECT_EQ(merged.edge(0).label, "first");
  EXPECT_EQ(merged.edge(0).attributes, (Attributes{{"count", "4"}, {"note", "x"}}));
  EXPECT_EQ(merged.edge(1).attribute("count"), "");
  EXPECT_EQ(merged.edge(2).attribute("count"), "");
}

TEST(GraphCollapse, DropSelfLoops) {
  Graph g;
  g.add_node("h", NodeKind::Header);
  g.add_node("i", NodeKind::Header);
  g.add_edge("h", "h", EdgeKind::Includes);
  g.add_edge("h", "i", EdgeKind::Includes);
  g.add_edge("i", "i", EdgeKind::Includes);
  EXPECT_EQ(edge_list(drop_self_loops(g)), (Strings{"h -includes-> i"}));
}

}  // namespace
}  // namespace glassbox::graphs
