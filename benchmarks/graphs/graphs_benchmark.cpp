// graphs_benchmark [NODES [EDGES]]: builds a synthetic build graph (1,000 nodes and 2,000 edges by
// default, clustered by directory), renders it to SVG with dot and with sfdp, and prints the
// seconds each step takes next to the target of 10 s per render. Also times the model, the
// filters and the writers on a 100,000-node graph, the size of PyTorch's graphs.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "graphs/filters.h"
#include "graphs/json_writer.h"
#include "graphs/render.h"
#include "graphs/synthetic.h"

using namespace glassbox::graphs;

namespace {

template <class Step>
double seconds(Step&& step) {
  auto start = std::chrono::steady_clock::now();
  step();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void row(const char* what, double s, const char* target = "") { std::printf("  %-52s %8.3f s  %s\n", what, s, target); }

}  // namespace

int main(int argc, char** argv) {
  std::size_t nodes = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1000;
  std::size_t edges = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 2 * nodes;

  Graph graph;
  double build =
      seconds([&] { graph = cluster_by_directory(make_synthetic_build_graph({.nodes = nodes, .edges = edges})); });
  std::string dot_text;
  double write = seconds([&] { dot_text = to_dot(graph); });
  std::printf("graph: %zu nodes, %zu edges, DOT %zu bytes\n", graph.node_count(), graph.edge_count(), dot_text.size());
  row("build and cluster the graph", build);
  row("write DOT", write);
  if (!rendering_available()) {
    std::printf("  rendering: glassbox was built without Graphviz\n");
    return 0;
  }
  std::printf("  Graphviz %s\n", graphviz_version().c_str());
  std::size_t svg_bytes = 0;
  for (const char* engine : {"dot", "sfdp"}) {
    double s = seconds([&] { svg_bytes = render(dot_text, RenderOptions{.engine = engine}).size(); });
    std::string what = std::string("render SVG with ") + engine + " (" + std::to_string(svg_bytes / 1024) + " KiB)";
    row(what.c_str(), s, s <= 10 ? "(target <= 10 s: met)" : "(target <= 10 s: MISSED)");
  }
  double png = seconds(
      [&] { svg_bytes = render(dot_text, RenderOptions{.format = ImageFormat::Png, .engine = "sfdp"}).size(); });
  row(("render PNG with sfdp (" + std::to_string(svg_bytes / 1024) + " KiB)").c_str(), png);

  std::printf("graph: 100,000 nodes, 200,000 edges (model, filters and writers only)\n");
  Graph large;
  row("build", seconds([&] { large = make_synthetic_build_graph({.nodes = 100'000, .edges = 200'000}); }));
  row("collapse objects and sources, cluster", seconds([&] {
        FilterOptions options;
        options.collapse_objects = options.collapse_sources = options.cluster_by_directory = true;
        Graph collapsed = apply_filters(large, options);
        std::printf("    -> %zu nodes, %zu edges\n", collapsed.node_count(), collapsed.edge_count());
      }));
  row("exclude by regex", seconds([&] { exclude_matching(large, "detail|impl"); }));
  row("reachable within 3 of one executable", seconds([&] { reachable_from(large, {large.node(9).id}, 3); }));
  row("write DOT", seconds([&] { to_dot(large); }));
  row("write JSON", seconds([&] { to_json(large); }));
  return 0;
}
