#include "introspect/buildtree/include_graph.h"

#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "introspect/buildtree/file_api.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

NinjaDeps sample() {
  NinjaDeps deps;
  deps.file = ".ninja_deps";
  deps.records = {{"CMakeFiles/a.dir/a.cpp.o", 1, {"/p/src/a.cpp", "/p/include/x.h", "/usr/include/stdio.h"}},
                  {"CMakeFiles/b.dir/b.cpp.o", 1, {"/p/src/b.cpp", "/p/include/x.h", "gen/y.h"}}};
  return deps;
}

TEST(IncludeGraph, SourcesHeadersAndExternals) {
  const graphs::Graph g = build_include_graph(sample(), {"/p", "/p/build", ""});
  EXPECT_EQ(g.node("src/a.cpp").kind, graphs::NodeKind::Source);
  EXPECT_EQ(g.node("include/x.h").kind, graphs::NodeKind::Header);
  EXPECT_EQ(g.node("include/x.h").attribute("included_by"), "2");
  EXPECT_EQ(g.node("/usr/include/stdio.h").kind, graphs::NodeKind::External);
  // Relative paths are Ninja's, relative to the build directory.
  EXPECT_EQ(g.node("build/gen/y.h").kind, graphs::NodeKind::Header);
  EXPECT_EQ(g.edge_count(), 4u);
  EXPECT_TRUE(g.find_edge(g.index_of("src/b.cpp"), g.index_of("include/x.h"), graphs::EdgeKind::Includes));
}

TEST(IncludeGraph, OneSource) {
  const graphs::Graph g = build_include_graph(sample(), {"/p", "/p/build", "src/a.cpp"});
  EXPECT_EQ(g.node_count(), 3u);
  EXPECT_FALSE(g.contains("src/b.cpp"));
  EXPECT_THROW(build_include_graph(sample(), {"/p", "/p/build", "nothing.cpp"}), Error);
  // A suffix must match whole path components.
  EXPECT_THROW(build_include_graph(sample(), {"/p", "/p/build", "a.cpp.bak"}), Error);
  EXPECT_THROW(build_include_graph(sample(), {"/p", "/p/build", "c/a.cpp"}), Error);
}

TEST(IncludeGraph, FromARealBuild) {
  const auto build = testing::fixture_build("modules");
  IncludeGraphOptions options;
  options.source_root = read_file_api(build).codemodel.source_dir;
  options.build_root = build.string();
  const graphs::Graph g = build_include_graph(read_ninja_deps(build), options);
  EXPECT_EQ(g.node("include/api.h").attribute("included_by"), "5");
  EXPECT_EQ(g.node("src/core.cpp").kind, graphs::NodeKind::Source);
  EXPECT_TRUE(g.contains("/usr/include/stdc-predef.h"));
}

}  // namespace
}  // namespace glassbox::introspect
