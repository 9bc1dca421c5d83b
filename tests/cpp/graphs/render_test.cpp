#include "graphs/render.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/core/error.h"
#include "graph_fixtures.h"
#include "graphs/clusters.h"
#include "graphs/synthetic.h"

namespace glassbox::graphs {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = 0; (at = text.find(part, at)) != std::string::npos; at += part.size()) ++count;
  return count;
}

#define SKIP_WITHOUT_GRAPHVIZ() \
  if (!rendering_available()) GTEST_SKIP() << "glassbox was built without Graphviz"

TEST(GraphRender, FormatsAndEngineChoice) {
  EXPECT_EQ(image_format_for("out/deps.svg"), ImageFormat::Svg);
  EXPECT_EQ(image_format_for("DEPS.PNG"), ImageFormat::Png);
  EXPECT_FALSE(image_format_for("deps.dot"));
  EXPECT_EQ(choose_engine(10), "dot");
  EXPECT_EQ(choose_engine(299), "dot");
  EXPECT_EQ(choose_engine(300), "sfdp");
  EXPECT_EQ(choose_engine(10, RenderOptions{.engine = "neato"}), "neato");
  EXPECT_EQ(choose_engine(50, RenderOptions{.sfdp_threshold = 40}), "sfdp");
}

TEST(GraphRender, WithoutGraphvizRenderingSaysSo) {
  if (rendering_available()) GTEST_SKIP() << "glassbox was built with Graphviz";
  try {
    render("digraph { a -> b }");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("built without Graphviz support"), std::string::npos) << e.what();
  }
}

TEST(GraphRender, SvgCarriesTitlesLinksAndTooltips) {
  SKIP_WITHOUT_GRAPHVIZ();
  EXPECT_FALSE(graphviz_version().empty());
  Graph g = cluster_by_directory(testing::small_build_graph());
  g.add_node("sym \"quoted\" & <angled>", NodeKind::Symbol);
  std::string svg = render(g);
  ASSERT_TRUE(contains(svg, "<svg")) << svg.substr(0, 200);
  EXPECT_TRUE(contains(svg, "<title>/p/core/a.cpp</title>")) << svg;
  EXPECT_TRUE(contains(svg, "xlink:href=\"file:///p/core/a.cpp\"")) << svg;
  EXPECT_TRUE(
      contains(svg, "xlink:title=\"a.cpp&#10;source&#10;id: /p/core/a.cpp&#10;path: /p/core/a.cpp&#10;size: 100 B\""))
      << svg;
  EXPECT_TRUE(contains(svg, "<title>cluster_core</title>")) << svg;
  // Quotes, ampersands and angle brackets come through as text, escaped once for XML.
  EXPECT_TRUE(contains(svg, "<title>sym &quot;quoted&quot; &amp; &lt;angled&gt;</title>")) << svg;
  EXPECT_TRUE(contains(svg, ">sym &quot;quoted&quot; &amp; &lt;angled&gt;</text>")) << svg;
  EXPECT_EQ(occurrences(svg, "class=\"node\""), g.node_count());
  EXPECT_EQ(occurrences(svg, "class=\"edge\""), g.edge_count());
}

TEST(GraphRender, BackslashesInIdsAndLabelsSurviveGraphviz) {
  SKIP_WITHOUT_GRAPHVIZ();
  Graph g;
  g.add_node("dir\\", NodeKind::Directory, "C:\\temp\\");  // DOT cannot spell this id: renamed
  g.add_node("a\\b\\\\\"c", NodeKind::Symbol, "\\N \"q\"");
  g.add_edge("dir\\", "a\\b\\\\\"c", EdgeKind::Defines);
  std::string svg = render(g);
  EXPECT_TRUE(contains(svg, "<title>node#0</title>")) << svg;
  EXPECT_TRUE(contains(svg, "<title>a\\b\\\\&quot;c</title>")) << svg;
  EXPECT_TRUE(contains(svg, ">C:\\temp\\</text>")) << svg;
  EXPECT_TRUE(contains(svg, ">\\N &quot;q&quot;</text>")) << svg;
  EXPECT_EQ(occurrences(svg, "class=\"edge\""), 1u);
}

TEST(GraphRender, PngHasThePngSignature) {
  SKIP_WITHOUT_GRAPHVIZ();
  std::string png = render(testing::small_build_graph(), RenderOptions{.format = ImageFormat::Png});
  ASSERT_GT(png.size(), 1000u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::string sharper = render(testing::small_build_graph(), RenderOptions{.format = ImageFormat::Png, .dpi = 192});
  EXPECT_GT(sharper.size(), png.size());
}

TEST(GraphRender, RenderToFileTakesTheFormatFromTheExtension) {
  SKIP_WITHOUT_GRAPHVIZ();
  auto directory = std::filesystem::temp_directory_path() / ("glassbox_render_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  render_to_file(testing::small_build_graph(), directory / "deps.png");
  render_to_file("digraph { a -> b }", directory / "deps.svg", RenderOptions{.format = ImageFormat::Png});
  auto read = [](const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_TRUE(read(directory / "deps.png").starts_with("\x89PNG"));
  EXPECT_TRUE(contains(read(directory / "deps.svg"), "<svg"));
  try {
    render_to_file("digraph { a }", directory / "missing" / "x.svg");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(directory);
}

TEST(GraphRender, SyntaxErrorsCarryGraphvizMessages) {
  SKIP_WITHOUT_GRAPHVIZ();
  try {
    render("digraph { a -> ; }");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("could not parse the DOT text"), std::string::npos) << message;
    EXPECT_NE(message.find("syntax error"), std::string::npos) << message;
  }
  EXPECT_THROW(render(""), Error);
  // The error handler is restored and the next render works.
  EXPECT_TRUE(contains(render("digraph { a -> b }"), "<svg"));
}

TEST(GraphRender, UnknownEngineIsNamed) {
  SKIP_WITHOUT_GRAPHVIZ();
  try {
    render("digraph { a -> b }", RenderOptions{.engine = "nosuchengine"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("engine 'nosuchengine' failed"), std::string::npos) << message;
    EXPECT_NE(message.find("not recognized"), std::string::npos) << message;
  }
}

TEST(GraphRender, BothEnginesWorkFromTheLibrary) {
  SKIP_WITHOUT_GRAPHVIZ();
  const char* dot_text = "digraph { a -> b; b -> c; c -> a }";
  for (const char* engine : {"dot", "sfdp"}) {
    std::string svg = render(dot_text, RenderOptions{.engine = engine});
    EXPECT_EQ(occurrences(svg, "class=\"node\""), 3u) << engine;
  }
}

TEST(GraphRender, SfdpLaysOutALargeGraph) {
  SKIP_WITHOUT_GRAPHVIZ();
  Graph g = cluster_by_directory(make_synthetic_build_graph({.nodes = 2000, .edges = 4000}));
  ASSERT_EQ(choose_engine(g.node_count()), "sfdp");
  std::string svg = render(g);
  EXPECT_EQ(occurrences(svg, "class=\"node\""), g.node_count());
  EXPECT_EQ(occurrences(svg, "class=\"edge\""), g.edge_count());
}

}  // namespace
}  // namespace glassbox::graphs
