#include "graphs/dot_writer.h"

#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "graph_fixtures.h"
#include "graphs/clusters.h"

namespace glassbox::graphs {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(GraphDotWriter, IdsAreQuotedAndEscaped) {
  EXPECT_EQ(dot_id("plain"), "\"plain\"");
  EXPECT_EQ(dot_id("say \"hi\""), "\"say \\\"hi\\\"\"");
  EXPECT_EQ(dot_id("a\\b"), "\"a\\b\"");                // a lone backslash reads back as itself
  EXPECT_EQ(dot_id("a\\\\\"b"), "\"a\\\\\\\"b\"");      // an even run before a quote too
  EXPECT_EQ(dot_id("trailing\\"), "\"trailing\\\\\"");  // an odd run at the end gains one
  EXPECT_EQ(dot_id("bad\xff"), "\"bad\xEF\xBF\xBD\"");  // invalid UTF-8 -> U+FFFD
  EXPECT_EQ(dot_id(""), "\"\"");
}

TEST(GraphDotWriter, LabelsEscapeBackslashesQuotesNewlinesAndEntities) {
  EXPECT_EQ(dot_label("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(dot_label("C:\\N"), "\"C:\\\\N\"");  // not Graphviz's \N (node name) escape
  EXPECT_EQ(dot_label("two\nlines\r"), "\"two\\nlines\"");
  EXPECT_EQ(dot_label("tab\there"), "\"tab here\"");
  EXPECT_EQ(dot_label("a&lt;b & c"), "\"a&amp;lt;b &amp; c\"");
  EXPECT_EQ(dot_label("end\\"), "\"end\\\\\"");
  EXPECT_EQ(dot_label("operator<<(std::ostream&)"), "\"operator<<(std::ostream&amp;)\"");
}

TEST(GraphDotWriter, IdsDotCannotSpellGetIndexNames) {
  Graph g;
  g.add_node("node#1", NodeKind::Symbol);
  g.add_node("odd\\", NodeKind::Symbol, "odd\\");
  g.add_node("ok\\x", NodeKind::Symbol);
  g.add_edge("odd\\", "ok\\x", EdgeKind::Defines);
  std::string dot = to_dot(g, DotOptions{.tooltips = false});
  EXPECT_TRUE(contains(dot, "  \"node#1#\" [label=\"odd\\\\\",")) << dot;
  EXPECT_TRUE(contains(dot, "  \"ok\\x\" [label=\"ok\\\\x\",")) << dot;
  EXPECT_TRUE(contains(dot, "  \"node#1#\" -> \"ok\\x\" [")) << dot;
}

TEST(GraphDotWriter, WritesNodesWithKindStylesAndEdgesWithKindStyles) {
  std::string dot = to_dot(testing::small_build_graph(), DotOptions{.clusters = false});
  EXPECT_TRUE(dot.starts_with("// 12 nodes, 16 edges; written by glassbox\ndigraph \"small\" {\n")) << dot;
  EXPECT_TRUE(dot.ends_with("}\n"));
  EXPECT_TRUE(contains(dot, "rankdir=LR")) << dot;
  EXPECT_TRUE(contains(dot, "  \"lib/libcore.so\" [label=\"core\", shape=box, style=\"filled\", fillcolor=\"#cfe2f3\""))
      << dot;
  EXPECT_TRUE(contains(dot, "  \"/p/core/a.h\" [label=\"a.h\", shape=note,")) << dot;
  EXPECT_TRUE(contains(dot, "  \"/usr/lib/libm.so\" [label=\"libm.so\", shape=box, style=\"dashed\"")) << dot;
  EXPECT_TRUE(contains(dot, "  \"lib/libcpu.so\" -> \"lib/libcore.so\" [style=solid,")) << dot;
  EXPECT_TRUE(contains(dot, "  \"lib/libcpu.so\" -> \"lib/libcore.so\" [style=dashed,")) << dot;
  EXPECT_TRUE(contains(dot, "  \"/p/core/a.cpp\" -> \"/p/core/a.h\" [style=dotted, color=\"#999999\"")) << dot;
  EXPECT_FALSE(contains(dot, "subgraph"));
}

TEST(GraphDotWriter, TooltipsAndFileLinks) {
  std::string dot = to_dot(testing::small_build_graph());
  // Absolute path: linked as is; tooltip with kind, path and size.
  EXPECT_TRUE(contains(dot,
                       "tooltip=\"a.cpp\\nsource\\nid: /p/core/a.cpp\\npath: /p/core/a.cpp\\nsize: 100 B\", "
                       "URL=\"file:///p/core/a.cpp\""))
      << dot;
  // No path: no link.
  auto target_line = dot.substr(dot.find("\"lib/libcore.so\" [label"));
  target_line = target_line.substr(0, target_line.find('\n'));
  EXPECT_FALSE(contains(target_line, "URL=")) << target_line;
  EXPECT_TRUE(contains(target_line, "tooltip=\"core\\nlibrary\\nid: lib/libcore.so\"")) << target_line;
  // Edge tooltip names both ends and the kind.
  EXPECT_TRUE(contains(dot, "tooltip=\"cpu -> core (links)\"")) << dot;
  std::string bare = to_dot(testing::small_build_graph(), DotOptions{.tooltips = false, .links = false});
  EXPECT_FALSE(contains(bare, "tooltip="));
  EXPECT_FALSE(contains(bare, "URL="));
}

TEST(GraphDotWriter, NodeTooltipAndUrlHelpers) {
  Node node{
      "gen/x.cpp",
      NodeKind::GeneratedSource,
      "x.cpp",
      {{"path", "gen dir/x#1.cpp"}, {"size", "2048"}, {"compile_ms", "1500"}, {"file", "ops.yaml"}, {"line", "12"}}};
  EXPECT_EQ(node_tooltip(node),
            "x.cpp\ngenerated_source\nid: gen/x.cpp\npath: gen dir/x#1.cpp\nsize: 2.0 KiB\ncompile: 1.50 s\n"
            "defined at: ops.yaml:12");
  EXPECT_EQ(node_url(node, ""), "");  // relative path and no root
  EXPECT_EQ(node_url(node, "/build"), "file:///build/gen%20dir/x%231.cpp");
  node.attributes["url"] = "https://example.org/x?a=1&b=2";
  node.attributes["tooltip"] = "custom";
  EXPECT_EQ(node_url(node, "/build"), "https://example.org/x?a=1&b=2");
  EXPECT_EQ(node_tooltip(node), "custom");
}

TEST(GraphDotWriter, RelativePathsResolveAgainstTheSourceRoot) {
  Graph g;
  g.set_attribute("source_root", "/src/glassbox");
  g.add_node("engine/cpu/add.cpp", NodeKind::Source, "add.cpp", {{"path", "engine/cpu/add.cpp"}});
  EXPECT_TRUE(contains(to_dot(g), "URL=\"file:///src/glassbox/engine/cpu/add.cpp\"")) << to_dot(g);
  EXPECT_TRUE(contains(to_dot(g, DotOptions{.source_root = "/other"}), "URL=\"file:///other/engine/cpu/add.cpp\""));
}

TEST(GraphDotWriter, NestedClustersFromTheClusterAttribute) {
  Graph g;
  g.add_node("a", NodeKind::Source, "", {{"cluster", "engine/cpu"}});
  g.add_node("b", NodeKind::Source, "", {{"cluster", "engine"}});
  g.add_node("c", NodeKind::Source, "", {{"cluster", "engine/ops"}});
  g.add_node("d", NodeKind::Source);
  g.add_node("e", NodeKind::Source, "", {{"cluster", "/usr/include/sys"}});
  g.add_edge("a", "c", EdgeKind::Includes);
  std::string dot = to_dot(g, DotOptions{.tooltips = false});
  std::string expected_body =
      "  subgraph \"cluster_engine\" {\n"
      "    graph [label=\"engine\", labeljust=l, style=\"rounded,filled\", fillcolor=\"#f8f8f8\", color=\"#bbbbbb\", "
      "tooltip=\"engine\"];\n"
      "    \"b\" [label=\"b\", shape=note, style=\"filled\", fillcolor=\"#fff2cc\", color=\"#bf9000\", "
      "fontcolor=\"black\"];\n"
      "    subgraph \"cluster_engine/cpu\" {\n"
      "      graph [label=\"cpu\", labeljust=l, style=\"rounded,filled\", fillcolor=\"#ffffff\", color=\"#bbbbbb\", "
      "tooltip=\"engine/cpu\"];\n"
      "      \"a\" [label=\"a\", shape=note, style=\"filled\", fillcolor=\"#fff2cc\", color=\"#bf9000\", "
      "fontcolor=\"black\"];\n"
      "    }\n"
      "    subgraph \"cluster_engine/ops\" {\n"
      "      graph [label=\"ops\", labeljust=l, style=\"rounded,filled\", fillcolor=\"#ffffff\", color=\"#bbbbbb\", "
      "tooltip=\"engine/ops\"];\n"
      "      \"c\" [label=\"c\", shape=note, style=\"filled\", fillcolor=\"#fff2cc\", color=\"#bf9000\", "
      "fontcolor=\"black\"];\n"
      "    }\n"
      "  }\n"
      // "/usr" and "/usr/include" hold nothing but the next box, so only the innermost is drawn.
      "  subgraph \"cluster_/usr/include/sys\" {\n"
      "    graph [label=\"/usr/include/sys\", labeljust=l, style=\"rounded,filled\", fillcolor=\"#f8f8f8\", "
      "color=\"#bbbbbb\", tooltip=\"/usr/include/sys\"];\n"
      "    \"e\" [label=\"e\", shape=note, style=\"filled\", fillcolor=\"#fff2cc\", color=\"#bf9000\", "
      "fontcolor=\"black\"];\n"
      "  }\n"
      "  \"a\" -> \"c\" [style=dotted, color=\"#999999\", arrowhead=normal];\n"
      "}\n";
  std::string unclustered_d =
      "  \"d\" [label=\"d\", shape=note, style=\"filled\", fillcolor=\"#fff2cc\", color=\"#bf9000\", "
      "fontcolor=\"black\"];\n";
  ASSERT_TRUE(contains(dot, unclustered_d)) << dot;
  EXPECT_TRUE(dot.ends_with(unclustered_d + expected_body)) << dot;
}

TEST(GraphDotWriter, ClusterByDirectoryThenWrite) {
  std::string dot = to_dot(cluster_by_directory(testing::small_build_graph()));
  EXPECT_TRUE(contains(dot, "subgraph \"cluster_core\" {")) << dot;
  EXPECT_TRUE(contains(dot, "subgraph \"cluster_cpu\" {")) << dot;
  EXPECT_TRUE(contains(dot, "subgraph \"cluster_app\" {")) << dot;
}

TEST(GraphDotWriter, EdgeLabelsCountsAndPassThroughAttributes) {
  Graph g;
  g.add_node("op", NodeKind::Operator, "aten::add", {{"dot:penwidth", "2"}});
  g.add_node("k", NodeKind::Kernel, "add_cpu");
  g.add_edge("op", "k", EdgeKind::DispatchesTo, "CPU", {{"count", "3"}, {"dot:weight", "5"}});
  std::string dot = to_dot(g);
  EXPECT_TRUE(contains(dot, ", penwidth=\"2\"];")) << dot;
  EXPECT_TRUE(contains(dot, "label=\"CPU\", tooltip=\"aten::add -> add_cpu (dispatches_to, 3 edges)\", weight=\"5\"];"))
      << dot;
  EXPECT_FALSE(contains(to_dot(g, DotOptions{.edge_labels = false}), "label=\"CPU\""));
}

TEST(GraphDotWriter, LegendListsTheKindsPresent) {
  std::string dot = to_dot(testing::small_build_graph(), DotOptions{.legend = true});
  EXPECT_TRUE(contains(dot, "subgraph \"cluster_legend\" {")) << dot;
  EXPECT_TRUE(contains(dot, "\"legend:library\" [label=\"library\"")) << dot;
  EXPECT_TRUE(
      contains(dot, "\"legend:edge:depends:from\" -> \"legend:edge:depends:to\" [label=\"depends\", style=dashed"))
      << dot;
  EXPECT_FALSE(contains(dot, "legend:kernel"));
  EXPECT_FALSE(contains(dot, "legend:edge:registers"));
}

TEST(GraphDotWriter, TitleRankdirAndGraphAttributes) {
  Graph g("t");
  g.set_attribute("title", "Module \"deps\"");
  g.add_node("a", NodeKind::Target);
  std::string dot = to_dot(g, DotOptions{.rankdir = "TB", .graph_attributes = {{"splines", "ortho"}}});
  EXPECT_TRUE(contains(dot,
                       "graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11, newrank=true, compound=true, "
                       "label=\"Module \\\"deps\\\"\", labelloc=t, splines=\"ortho\"];"))
      << dot;
  try {
    to_dot(g, DotOptions{.rankdir = "sideways"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'sideways'"), std::string::npos);
  }
}

TEST(GraphDotWriter, OutputIsDeterministic) {
  Graph g = cluster_by_directory(testing::small_build_graph());
  EXPECT_EQ(to_dot(g, DotOptions{.legend = true}), to_dot(g, DotOptions{.legend = true}));
}

}  // namespace
}  // namespace glassbox::graphs
