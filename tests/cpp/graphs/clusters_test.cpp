#include "graphs/clusters.h"

#include <gtest/gtest.h>

#include "graph_fixtures.h"
#include "graphs/collapse.h"

namespace glassbox::graphs {
namespace {

TEST(GraphClusters, ClusterOfDirectoryStripsTheRoot) {
  ClusterOptions options{.root = "/p"};
  EXPECT_EQ(cluster_of_directory("/p/engine/cpu", options), "engine/cpu");
  EXPECT_EQ(cluster_of_directory("/p", options), "");
  EXPECT_EQ(cluster_of_directory("/usr/include", options), "/usr/include");
  EXPECT_EQ(cluster_of_directory("", options), "");
  EXPECT_EQ(cluster_of_directory("engine/cpu", ClusterOptions{}), "engine/cpu");
}

TEST(GraphClusters, ClusterOfDirectoryLimitsDepth) {
  ClusterOptions options{.root = "/p", .max_depth = 2};
  EXPECT_EQ(cluster_of_directory("/p/engine/cpu/kernels", options), "engine/cpu");
  EXPECT_EQ(cluster_of_directory("/p/engine/cpu", options), "engine/cpu");
  EXPECT_EQ(cluster_of_directory("/p/engine", options), "engine");
  options.max_depth = 1;
  EXPECT_EQ(cluster_of_directory("/usr/include/x86_64-linux-gnu", options), "/usr");
}

TEST(GraphClusters, ClusterByDirectoryUsesTheGraphSourceRoot) {
  Graph g = cluster_by_directory(testing::small_build_graph());
  auto cluster = [&](const char* id) { return std::string(g.node(id).attribute("cluster")); };
  EXPECT_EQ(cluster("lib/libcore.so"), "core");
  EXPECT_EQ(cluster("lib/libcpu.so"), "cpu");
  EXPECT_EQ(cluster("bin/app"), "app");
  EXPECT_EQ(cluster("/p/core/a.cpp"), "core");
  EXPECT_EQ(cluster("/p/core/b.h"), "core");
  EXPECT_EQ(cluster("/p/app/main.cpp"), "app");
  EXPECT_EQ(cluster("core/a.o"), "");          // no directory
  EXPECT_EQ(cluster("/usr/lib/libm.so"), "");  // external
  EXPECT_EQ(g.edge_count(), testing::small_build_graph().edge_count());
}

TEST(GraphClusters, DirectoryNodesSitInTheirOwnOrTheirParentsCluster) {
  Graph g;
  g.set_attribute("source_root", "/p");
  g.add_node("s1", NodeKind::Source, "", {{"path", "/p/engine/cpu/add.cpp"}});
  g.add_node("s2", NodeKind::Source, "", {{"path", "/p/engine/ops/ops.cpp"}});
  g.add_node("s3", NodeKind::Source, "", {{"path", "/p/main.cpp"}});
  Graph folded = collapse_sources_into_directories(g);
  Graph own = cluster_by_directory(folded);
  EXPECT_EQ(own.node("dir:/p/engine/cpu").attribute("cluster"), "engine/cpu");
  EXPECT_EQ(own.node("dir:/p").attribute("cluster"), "");
  Graph clustered = cluster_by_directory(folded, ClusterOptions{.directory_nodes_in_parent = true});
  EXPECT_EQ(clustered.node("dir:/p/engine/cpu").attribute("cluster"), "engine");
  EXPECT_EQ(clustered.node("dir:/p/engine/ops").attribute("cluster"), "engine");
  EXPECT_EQ(clustered.node("dir:/p").attribute("cluster"), "");
}

TEST(GraphClusters, ExplicitRootOverridesTheGraphs) {
  Graph g = cluster_by_directory(testing::small_build_graph(), ClusterOptions{.root = "/"});
  EXPECT_EQ(g.node("lib/libcore.so").attribute("cluster"), "p/core");
}

}  // namespace
}  // namespace glassbox::graphs
