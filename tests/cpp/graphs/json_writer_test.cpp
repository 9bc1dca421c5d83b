#include "graphs/json_writer.h"

#include <gtest/gtest.h>

#include "graph_fixtures.h"

#if GLASSBOX_TEST_HAVE_NLOHMANN_JSON
#include <nlohmann/json.hpp>
#endif

namespace glassbox::graphs {
namespace {

TEST(GraphJsonWriter, StringEscaping) {
  EXPECT_EQ(json_string("plain"), "\"plain\"");
  EXPECT_EQ(json_string("q\"b\\s/"), "\"q\\\"b\\\\s/\"");
  EXPECT_EQ(json_string("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(json_string(std::string("\x01\x1f\0", 3)), "\"\\u0001\\u001f\\u0000\"");
  EXPECT_EQ(json_string("caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x93\x88"), "\"caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x93\x88\"");
  // Invalid UTF-8 (a stray continuation byte, a truncated sequence, an overlong '/') -> U+FFFD each.
  EXPECT_EQ(json_string("a\x80z"), "\"a\xEF\xBF\xBDz\"");
  EXPECT_EQ(json_string("a\xE2\x86"), "\"a\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_EQ(json_string("\xC0\xAF"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");
}

TEST(GraphJsonWriter, CompactLayout) {
  Graph g("g");
  g.add_node("a", NodeKind::Library, "A", {{"size", "1"}});
  g.add_node("b", NodeKind::Library);
  g.add_edge("a", "b", EdgeKind::Links, "", {{"count", "2"}});
  EXPECT_EQ(to_json(g, JsonOptions{.pretty = false}),
            "{\"name\": \"g\", \"attributes\": {},\"nodes\": ["
            "{\"id\": \"a\", \"kind\": \"library\", \"label\": \"A\", \"attributes\": {\"size\": \"1\"}},"
            "{\"id\": \"b\", \"kind\": \"library\", \"label\": \"b\", \"attributes\": {}}],"
            "\"edges\": [{\"from\": \"a\", \"to\": \"b\", \"kind\": \"links\", \"label\": \"\", \"attributes\": "
            "{\"count\": \"2\"}}]}");
}

TEST(GraphJsonWriter, EmptyGraph) {
  EXPECT_EQ(to_json(Graph("e")),
            "{\n  \"name\": \"e\", \"attributes\": {},\n  \"nodes\": [\n  ],\n  \"edges\": [\n  ]\n}\n");
}

#if GLASSBOX_TEST_HAVE_NLOHMANN_JSON
TEST(GraphJsonWriter, ParsesBackToTheSameGraph) {
  Graph g = testing::small_build_graph();
  g.add_node("weird \"id\"\\\n\x7f\xff", NodeKind::Symbol, "", {{"k\ty", "v\x01"}});
  for (bool pretty : {true, false}) {
    nlohmann::json json = nlohmann::json::parse(to_json(g, JsonOptions{.pretty = pretty}));
    EXPECT_EQ(json["name"], "small");
    EXPECT_EQ(json["attributes"]["source_root"], "/p");
    ASSERT_EQ(json["nodes"].size(), g.node_count());
    ASSERT_EQ(json["edges"].size(), g.edge_count());
    for (NodeIndex i = 0; i + 1 < g.node_count(); ++i) {
      const Node& node = g.node(i);
      const auto& n = json["nodes"][i];
      EXPECT_EQ(n["id"], node.id);
      EXPECT_EQ(n["kind"], to_string(node.kind));
      EXPECT_EQ(n["label"], node.display_label());
      EXPECT_EQ(n["attributes"].size(), node.attributes.size());
      for (const auto& [key, value] : node.attributes) EXPECT_EQ(n["attributes"][key], value);
    }
    const auto& weird = json["nodes"][g.node_count() - 1];
    EXPECT_EQ(weird["id"], "weird \"id\"\\\n\x7f\xEF\xBF\xBD");
    EXPECT_EQ(weird["attributes"]["k\ty"], "v\x01");
    for (EdgeIndex e = 0; e < g.edge_count(); ++e) {
      const Edge& edge = g.edge(e);
      const auto& j = json["edges"][e];
      EXPECT_EQ(j["from"], g.node(edge.from).id);
      EXPECT_EQ(j["to"], g.node(edge.to).id);
      EXPECT_EQ(j["kind"], to_string(edge.kind));
    }
  }
}
#else
TEST(GraphJsonWriter, StructureWithoutAParser) {
  std::string json = to_json(testing::small_build_graph());
  EXPECT_TRUE(
      json.starts_with("{\n  \"name\": \"small\", \"attributes\": {\"source_root\": \"/p\"},\n  \"nodes\": [\n"));
  EXPECT_TRUE(json.ends_with("\"attributes\": {}}\n  ]\n}\n"));
  std::size_t ids = 0, froms = 0;
  for (std::size_t at = 0; (at = json.find("{\"id\": ", at)) != std::string::npos; ++at) ++ids;
  for (std::size_t at = 0; (at = json.find("{\"from\": ", at)) != std::string::npos; ++at) ++froms;
  EXPECT_EQ(ids, 12u);
  EXPECT_EQ(froms, 16u);
}
#endif

}  // namespace
}  // namespace glassbox::graphs
