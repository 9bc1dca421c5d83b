#include "graphs/filters.h"

#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "graph_fixtures.h"

namespace glassbox::graphs {
namespace {

using testing::edge_list;
using testing::node_ids;
using testing::small_build_graph;
using Strings = std::vector<std::string>;

TEST(GraphFilters, InducedSubgraphKeepsOrderAttributesAndInnerEdges) {
  Graph g = small_build_graph();
  std::vector<bool> keep(g.node_count(), false);
  keep[g.index_of("bin/app")] = keep[g.index_of("lib/libcpu.so")] = keep[g.index_of("/usr/lib/libm.so")] = true;
  Graph sub = induced_subgraph(g, keep);
  EXPECT_EQ(node_ids(sub), (Strings{"lib/libcpu.so", "bin/app", "/usr/lib/libm.so"}));
  EXPECT_EQ(edge_list(sub), (Strings{"lib/libcpu.so -links-> /usr/lib/libm.so", "bin/app -links-> lib/libcpu.so"}));
  EXPECT_EQ(sub.node("bin/app").attribute("directory"), "/p/app");
  EXPECT_EQ(sub.name(), "small");
  EXPECT_EQ(sub.attributes().at("source_root"), "/p");
  EXPECT_THROW(induced_subgraph(g, {true}), Error);
}

TEST(GraphFilters, IncludeMatchingById) {
  Graph g = include_matching(small_build_graph(), "^lib/");
  EXPECT_EQ(node_ids(g), (Strings{"lib/libcore.so", "lib/libcpu.so"}));
  EXPECT_EQ(edge_list(g),
            (Strings{"lib/libcpu.so -links-> lib/libcore.so", "lib/libcpu.so -depends-> lib/libcore.so"}));
}

TEST(GraphFilters, IncludeMatchingHeaders) {
  Graph g = include_matching(small_build_graph(), "\\.h$");
  EXPECT_EQ(node_ids(g), (Strings{"/p/core/a.h", "/p/core/b.h"}));
  EXPECT_EQ(edge_list(g), (Strings{"/p/core/b.h -includes-> /p/core/a.h"}));
}

TEST(GraphFilters, IncludeMatchesLabelsToo) {
  // "core" is libcore.so's label; no id is exactly "core".
  Graph g = include_matching(small_build_graph(), "^core$");
  EXPECT_EQ(node_ids(g), (Strings{"lib/libcore.so"}));
  EXPECT_TRUE(edge_list(g).empty());
}

TEST(GraphFilters, ExcludeMatching) {
  Graph g = exclude_matching(small_build_graph(), "\\.(o|h)$");
  EXPECT_EQ(node_ids(g), (Strings{"lib/libcore.so", "lib/libcpu.so", "bin/app", "/p/core/a.cpp", "/p/core/b.cpp",
                                  "/p/cpu/c.cpp", "/p/app/main.cpp", "/usr/lib/libm.so"}));
  EXPECT_EQ(edge_list(g),
            (Strings{"lib/libcore.so -compiles-> /p/core/a.cpp", "lib/libcore.so -compiles-> /p/core/b.cpp",
                     "lib/libcpu.so -compiles-> /p/cpu/c.cpp", "lib/libcpu.so -links-> lib/libcore.so",
                     "lib/libcpu.so -depends-> lib/libcore.so", "lib/libcpu.so -links-> /usr/lib/libm.so",
                     "bin/app -compiles-> /p/app/main.cpp", "bin/app -links-> lib/libcpu.so"}));
}

TEST(GraphFilters, InvalidRegexNamesThePattern) {
  try {
    include_matching(small_build_graph(), "lib(");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("invalid include regex 'lib('"), std::string::npos) << e.what();
  }
  EXPECT_THROW(exclude_matching(small_build_graph(), "[z-a]"), Error);
}

TEST(GraphFilters, ReachableDepthZeroIsTheRootsAlone) {
  Graph g = reachable_from(small_build_graph(), {"bin/app"}, 0);
  EXPECT_EQ(node_ids(g), (Strings{"bin/app"}));
  EXPECT_TRUE(edge_list(g).empty());
}

TEST(GraphFilters, ReachableDepthOne) {
  Graph g = reachable_from(small_build_graph(), {"bin/app"}, 1);
  EXPECT_EQ(node_ids(g), (Strings{"lib/libcpu.so", "bin/app", "/p/app/main.cpp"}));
  EXPECT_EQ(edge_list(g), (Strings{"bin/app -compiles-> /p/app/main.cpp", "bin/app -links-> lib/libcpu.so"}));
}

TEST(GraphFilters, ReachableDepthTwo) {
  Graph g = reachable_from(small_build_graph(), {"bin/app"}, 2);
  EXPECT_EQ(node_ids(g), (Strings{"lib/libcore.so", "lib/libcpu.so", "bin/app", "/p/cpu/c.cpp", "/p/app/main.cpp",
                                  "/usr/lib/libm.so"}));
  EXPECT_EQ(edge_list(g), (Strings{"lib/libcpu.so -compiles-> /p/cpu/c.cpp", "lib/libcpu.so -links-> lib/libcore.so",
                                   "lib/libcpu.so -depends-> lib/libcore.so", "lib/libcpu.so -links-> /usr/lib/libm.so",
                                   "bin/app -compiles-> /p/app/main.cpp", "bin/app -links-> lib/libcpu.so"}));
}

TEST(GraphFilters, ReachableUnlimitedFromSeveralRoots) {
  Graph all = small_build_graph();
  Graph g = reachable_from(all, {"bin/app"}, -1);
  EXPECT_EQ(node_ids(g), node_ids(all));
  EXPECT_EQ(edge_list(g), edge_list(all));
  Graph two = reachable_from(all, {"/p/core/b.h", "/p/cpu/c.cpp"}, -1);
  EXPECT_EQ(node_ids(two), (Strings{"/p/core/a.h", "/p/core/b.h", "/p/cpu/c.cpp"}));
  EXPECT_EQ(edge_list(two), (Strings{"/p/core/b.h -includes-> /p/core/a.h", "/p/cpu/c.cpp -includes-> /p/core/a.h"}));
}

TEST(GraphFilters, ReachableInBothDirections) {
  Graph out = reachable_from(small_build_graph(), {"/p/core/a.h"}, 1);
  EXPECT_EQ(node_ids(out), (Strings{"/p/core/a.h"}));
  Graph both = reachable_from(small_build_graph(), {"/p/core/a.h"}, 1, Direction::Both);
  EXPECT_EQ(node_ids(both), (Strings{"/p/core/a.cpp", "/p/core/a.h", "/p/core/b.h", "/p/cpu/c.cpp"}));
  EXPECT_EQ(edge_list(both), (Strings{"/p/core/a.cpp -includes-> /p/core/a.h", "/p/core/b.h -includes-> /p/core/a.h",
                                      "/p/cpu/c.cpp -includes-> /p/core/a.h"}));
}

TEST(GraphFilters, MissingRootNamesIt) {
  try {
    reachable_from(small_build_graph(), {"bin/app", "lib/ghost.so"}, 2);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("root 'lib/ghost.so' is not a node"), std::string::npos) << e.what();
  }
}

TEST(GraphFilters, HideExternal) {
  Graph all = small_build_graph();
  Graph g = hide_external(all);
  Strings ids = node_ids(all);
  ids.pop_back();  // /usr/lib/libm.so is the last node
  EXPECT_EQ(node_ids(g), ids);
  Strings edges = edge_list(all);
  std::erase(edges, "lib/libcpu.so -links-> /usr/lib/libm.so");
  EXPECT_EQ(edge_list(g), edges);
}

TEST(GraphFilters, ApplyFiltersRunsThePipelineInOrder) {
  FilterOptions options;
  options.hide_external = true;
  options.collapse_objects = true;
  options.collapse_sources = true;
  options.exclude = {"\\.h$"};
  options.roots = {"bin/app"};
  options.depth = 2;
  options.cluster_by_directory = true;
  Graph g = apply_filters(small_build_graph(), options);
  EXPECT_EQ(node_ids(g), (Strings{"lib/libcore.so", "lib/libcpu.so", "bin/app", "dir:/p/cpu", "dir:/p/app"}));
  EXPECT_EQ(edge_list(g), (Strings{"lib/libcpu.so -compiles-> dir:/p/cpu", "lib/libcpu.so -links-> lib/libcore.so",
                                   "lib/libcpu.so -depends-> lib/libcore.so", "bin/app -compiles-> dir:/p/app",
                                   "bin/app -links-> lib/libcpu.so"}));
  EXPECT_EQ(g.node("lib/libcore.so").attribute("cluster"), "core");
  EXPECT_EQ(g.node("lib/libcpu.so").attribute("cluster"), "cpu");
  EXPECT_EQ(g.node("bin/app").attribute("cluster"), "app");
  EXPECT_EQ(g.node("dir:/p/cpu").attribute("cluster"), "cpu");
}

TEST(GraphFilters, ApplyFiltersIncludeNeedsOneMatch) {
  FilterOptions options;
  options.include = {"^lib/libcpu", "^bin/"};
  Graph g = apply_filters(small_build_graph(), options);
  EXPECT_EQ(node_ids(g), (Strings{"lib/libcpu.so", "bin/app"}));
  EXPECT_EQ(edge_list(g), (Strings{"bin/app -links-> lib/libcpu.so"}));
}

}  // namespace
}  // namespace glassbox::graphs
