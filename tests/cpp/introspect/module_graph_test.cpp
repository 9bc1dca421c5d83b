#include "introspect/buildtree/module_graph.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "engine/core/error.h"
#include "introspect/buildtree/module_picture.h"
#include "introspect/support/process.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

using Set = std::set<std::string>;

Set nodes_of(const graphs::Graph& g) {
  Set out;
  for (const auto& n : g.nodes()) out.insert(std::string(graphs::to_string(n.kind)) + " " + n.id);
  return out;
}

Set edges_of(const graphs::Graph& g, graphs::EdgeKind kind) {
  Set out;
  for (const auto& e : g.edges())
    if (e.kind == kind) out.insert(g.node(e.from).id + " -> " + g.node(e.to).id);
  return out;
}

int line_of(const std::filesystem::path& file, std::string_view text) {
  std::ifstream in(file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  return -1;
}

class ModuleGraphTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { build_ = new std::filesystem::path(testing::fixture_build("modules")); }
  static void TearDownTestSuite() { delete build_; }
  static std::filesystem::path* build_;
};
std::filesystem::path* ModuleGraphTest::build_ = nullptr;

TEST_F(ModuleGraphTest, ExactNodes) {
  const graphs::Graph g = module_graph_of(*build_);
  EXPECT_EQ(nodes_of(g), (Set{"target api", "executable app", "library base", "library core", "library objects",
                              "header include/api.h", "source src/main.cpp", "source src/base.cpp",
                              "generated_source <build>/generated_table.cpp", "source src/core.cpp",
                              "source src/object_part.cpp", "external external:m"}));
}

// Direct edges, as target_link_libraries names them (read through `cmake --graphviz`), interface
// targets and plain library names included.
TEST_F(ModuleGraphTest, DirectLinkEdges) {
  const graphs::Graph g = module_graph_of(*build_);
  EXPECT_EQ(g.attributes().at("link_edges"), kLinkEdgesFromGraphviz);
  EXPECT_EQ(edges_of(g, graphs::EdgeKind::Links), (Set{"app -> core", "app -> api", "base -> api", "core -> base",
                                                       "core -> objects", "core -> external:m", "objects -> api"}));
  const auto via = [&](std::string_view from, std::string_view to) {
    return std::string(
        g.edge(*g.find_edge(g.index_of(from), g.index_of(to), graphs::EdgeKind::Links)).attribute("via"));
  };
  EXPECT_EQ(via("base", "api"), "public");
  EXPECT_EQ(via("core", "base"), "private");
  EXPECT_EQ(via("core", "external:m"), "private");
  EXPECT_TRUE(std::filesystem::exists(*build_ / ".glassbox/graphviz/targets.dot"));
}

TEST_F(ModuleGraphTest, LinkEdgesFromLinkCommandsOnRequest) {
  ModuleGraphOptions options;
  options.link_edges = ModuleGraphOptions::LinkEdges::LinkLines;
  const graphs::Graph g = module_graph_of(*build_, options);
  EXPECT_EQ(g.attributes().at("link_edges"), kLinkEdgesFromLinkLines);
  EXPECT_EQ(edges_of(g, graphs::EdgeKind::Links),
            (Set{"app -> core", "core -> base", "core -> objects", "core -> external:m"}));
  const auto via = [&](std::string_view from, std::string_view to) {
    return std::string(
        g.edge(*g.find_edge(g.index_of(from), g.index_of(to), graphs::EdgeKind::Links)).attribute("via"));
  };
  EXPECT_EQ(via("core", "objects"), "objects");
  EXPECT_EQ(via("core", "external:m"), "-lm");
  EXPECT_EQ(via("app", "core"), "path");
}

TEST_F(ModuleGraphTest, BuildOrderEdgesAreKeptApart) {
  const graphs::Graph g = module_graph_of(*build_);
  EXPECT_EQ(edges_of(g, graphs::EdgeKind::Depends), (Set{"app -> core", "app -> api", "base -> api", "core -> api",
                                                         "core -> objects", "core -> base", "objects -> api"}));
  ModuleGraphOptions options;
  options.redundant_build_order = false;
  const graphs::Graph lean = module_graph_of(*build_, options);
  EXPECT_EQ(edges_of(lean, graphs::EdgeKind::Depends), (Set{"core -> api"}));
  options.utility_targets = true;
  EXPECT_EQ(edges_of(module_graph_of(*build_, options), graphs::EdgeKind::Depends),
            (Set{"app -> docs", "core -> api"}));
  options.build_order = false;
  EXPECT_TRUE(edges_of(module_graph_of(*build_, options), graphs::EdgeKind::Depends).empty());
}

TEST_F(ModuleGraphTest, CompileEdgesToSources) {
  const graphs::Graph g = module_graph_of(*build_);
  EXPECT_EQ(edges_of(g, graphs::EdgeKind::Compiles),
            (Set{"api -> include/api.h", "app -> src/main.cpp", "base -> src/base.cpp",
                 "base -> <build>/generated_table.cpp", "core -> src/core.cpp", "objects -> src/object_part.cpp"}));
  ModuleGraphOptions options;
  options.sources = false;
  const graphs::Graph targets_only = module_graph_of(*build_, options);
  EXPECT_TRUE(edges_of(targets_only, graphs::EdgeKind::Compiles).empty());
  EXPECT_EQ(targets_only.node_count(), 6u);  // five targets (not the custom one) and libm
  EXPECT_EQ(targets_only.node("core").attribute("compile_ms"), g.node("core").attribute("compile_ms"));
}

TEST_F(ModuleGraphTest, NodeAttributes) {
  ModuleGraphOptions options;
  options.utility_targets = true;
  const graphs::Graph g = module_graph_of(*build_, options);
  const auto& core = g.node("core");
  EXPECT_EQ(core.label, "lib/libcore.so");
  EXPECT_EQ(core.attribute("type"), "SHARED_LIBRARY");
  EXPECT_EQ(core.attribute("path"), (*build_ / "lib/libcore.so").string());
  EXPECT_FALSE(core.attribute("size").empty());
  EXPECT_FALSE(core.attribute("compile_ms").empty());
  EXPECT_FALSE(core.attribute("link_ms").empty());
  EXPECT_EQ(core.attribute("file"), "CMakeLists.txt");
  const auto cmakelists = testing::fixture_source("modules") / "CMakeLists.txt";
  EXPECT_EQ(core.attribute("line"), std::to_string(line_of(cmakelists, "add_library(core SHARED")));
  EXPECT_EQ(g.node("app").label, "bin/app");
  EXPECT_EQ(g.node("base").label, "lib/libbase.a");
  EXPECT_EQ(g.node("objects").attribute("type"), "OBJECT_LIBRARY");
  EXPECT_EQ(g.node("docs").attribute("type"), "UTILITY");
  EXPECT_EQ(g.node("api").attribute("type"), "INTERFACE_LIBRARY");

  const auto& generated = g.node("<build>/generated_table.cpp");
  EXPECT_EQ(generated.attribute("generated"), "true");
  EXPECT_EQ(generated.attribute("target"), "base");
  EXPECT_EQ(generated.attribute("path"), (*build_ / "generated_table.cpp").string());
  const auto& source = g.node("src/core.cpp");
  EXPECT_EQ(source.attribute("path"), (testing::fixture_source("modules") / "src/core.cpp").string());
  EXPECT_FALSE(source.attribute("compile_ms").empty());
  EXPECT_EQ(g.node("external:m").label, "libm");
  EXPECT_EQ(g.attributes().at("source_root"), testing::fixture_source("modules").string());
}

// The picture: implied link edges left out, each target's files in one listing node in its box,
// external libraries in a box of their own.
TEST_F(ModuleGraphTest, PictureReducesEdgesAndGroupsSources) {
  const graphs::Graph g = module_picture(module_graph_of(*build_));
  EXPECT_EQ(edges_of(g, graphs::EdgeKind::Links),
            (Set{"app -> core", "base -> api", "core -> base", "core -> objects", "core -> external:m",
                 "objects -> api"}));                           // app -> api is implied by app -> core -> base -> api
  EXPECT_TRUE(edges_of(g, graphs::EdgeKind::Depends).empty());  // all implied by links
  EXPECT_EQ(edges_of(g, graphs::EdgeKind::Compiles), (Set{"api -> files:api", "app -> files:app", "base -> files:base",
                                                          "core -> files:core", "objects -> files:objects"}));
  const auto& base_files = g.node("files:base");
  EXPECT_EQ(base_files.attribute("count"), "2");
  EXPECT_EQ(base_files.attribute("cluster"), "base");
  EXPECT_EQ(g.node("base").attribute("cluster"), "base");
  EXPECT_EQ(g.node("base").label, "libbase.a");
  EXPECT_NE(base_files.label.find("2 files in 2 directories"), std::string::npos) << base_files.label;
  EXPECT_NE(base_files.label.find("src/  1"), std::string::npos) << base_files.label;
  EXPECT_EQ(g.node("external:m").attribute("cluster"), "external libraries");

  ModulePictureOptions all;
  all.all_edges = true;
  all.group_sources = false;
  const graphs::Graph full = module_picture(module_graph_of(*build_), all);
  EXPECT_EQ(edges_of(full, graphs::EdgeKind::Links).size(), 7u);
  EXPECT_TRUE(full.contains("src/core.cpp"));
}

TEST(ModulePicture, ManyExecutablesFoldPerTopLevelDirectory) {
  graphs::Graph g;
  g.set_attribute("source_root", "/p");
  g.add_node("core", graphs::NodeKind::Library, "lib/libcore.so",
             {{"directory", "/p/core"}, {"path", "/b/lib/libcore.so"}});
  for (const char* t : {"a_test", "b_test", "c_test"}) {
    g.add_node(t, graphs::NodeKind::Executable, std::string("bin/") + t, {{"directory", "/p/tests/unit"}});
    g.add_edge(t, "core", graphs::EdgeKind::Links);
    g.add_node(std::string("tests/unit/") + t + ".cpp", graphs::NodeKind::Source);
    g.add_edge(t, std::string("tests/unit/") + t + ".cpp", graphs::EdgeKind::Compiles);
  }
  g.add_node("tool", graphs::NodeKind::Executable, "bin/tool", {{"directory", "/p/tools/one"}});
  g.add_edge("tool", "core", graphs::EdgeKind::Links);
  ModulePictureOptions options;
  options.max_executables = 3;
  const graphs::Graph picture = module_picture(g, options);
  ASSERT_TRUE(picture.contains("executables in tests"));
  EXPECT_EQ(picture.node("executables in tests").label, "3 executables");
  EXPECT_TRUE(picture.contains("tool"));  // alone in tools/
  EXPECT_EQ(edges_of(picture, graphs::EdgeKind::Links), (Set{"executables in tests -> core", "tool -> core"}));
  EXPECT_NE(picture.node("files:executables in tests").label.find("3 files"), std::string::npos);
  options.max_executables = 4;  // four executables: not more than that
  EXPECT_FALSE(module_picture(g, options).contains("executables in tests"));
}

// The HTML explorer is one file that fetches nothing; in a headless browser its script runs, finds
// the picture's nodes and, for #select=core, lists core's sources in the panel.
TEST_F(ModuleGraphTest, HtmlExplorer) {
  testing::TempDir dir("html");
  const auto page = dir / "deps.html";
  const auto r = run_process({GLASSBOX_TEST_CLI, "deps", build_->string(), "--html", page.string()});
  ASSERT_EQ(r.exit_code, 0) << r.error_output;
  const std::string html = testing::slurp(page);
  for (const char* fetch : {"src=\"http", "href=\"http", "@import", "url(http", "file://"})
    EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("\"id\": \"src/core.cpp\""), std::string::npos);  // the details graph

  const std::string browser = find_program("chromium");
  if (browser.empty()) GTEST_SKIP() << "no headless browser (Debian: apt-get install chromium); page not run";
  const auto dom = run_process({browser, "--headless", "--disable-gpu", "--no-sandbox", "--virtual-time-budget=3000",
                                "--user-data-dir=" + (dir / "profile").string(), "--dump-dom",
                                "file://" + page.string() + "#select=core"});
  ASSERT_EQ(dom.exit_code, 0) << dom.error_output;
  EXPECT_NE(dom.output.find("data-ready=\""), std::string::npos) << "the page's script did not finish";
  EXPECT_EQ(dom.output.find("data-ready=\"0\""), std::string::npos) << "no node found in the SVG";
  EXPECT_NE(dom.output.find("<h3>core</h3>"), std::string::npos);
  EXPECT_NE(dom.output.find("<tr><td>src/core.cpp</td>"), std::string::npos) << dom.output.substr(0, 2000);
}

TEST_F(ModuleGraphTest, WorksWithoutCompileDatabaseOrLog) {
  const FileApiReply reply = read_file_api(*build_);
  const graphs::Graph g = build_module_graph(reply, nullptr, nullptr);
  EXPECT_EQ(g.node_count(), 12u);
  EXPECT_TRUE(g.node("src/core.cpp").attribute("compile_ms").empty());
}

TEST(ModuleGraph, NoReplyIsAClearError) {
  testing::TempDir dir("noreply");
  try {
    module_graph_of(dir.path());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no CMake File API reply"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace glassbox::introspect
