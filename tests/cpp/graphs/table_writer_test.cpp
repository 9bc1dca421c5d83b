#include "graphs/table_writer.h"

#include <gtest/gtest.h>

#include "graph_fixtures.h"

namespace glassbox::graphs {
namespace {

TEST(GraphTableWriter, CountsKindsAndListsTheMostConnected) {
  std::string table = summary_table(testing::small_build_graph(), TableOptions{.top_nodes = 2});
  EXPECT_NE(table.find("graph small: 12 nodes, 16 edges"), std::string::npos) << table;
  EXPECT_NE(table.find("  library                    2\n"), std::string::npos) << table;
  EXPECT_NE(table.find("  includes                   4\n"), std::string::npos) << table;
  EXPECT_EQ(table.find("symbol"), std::string::npos) << table;  // absent kinds are not listed
  // libcore.so (6 out, 2 in) and libcpu.so (4 out, 1 in) have the most edges.
  auto core = table.find("core  ");
  auto cpu = table.find("cpu  ");
  ASSERT_NE(core, std::string::npos) << table;
  ASSERT_NE(cpu, std::string::npos) << table;
  EXPECT_LT(core, cpu);
  EXPECT_EQ(table.find("app  "), std::string::npos) << table;
}

TEST(GraphTableWriter, EmptyGraph) {
  EXPECT_EQ(summary_table(Graph("empty")),
            "graph empty: 0 nodes, 0 edges\n\n  node kind              count\n\n  edge kind              count\n");
}

}  // namespace
}  // namespace glassbox::graphs
