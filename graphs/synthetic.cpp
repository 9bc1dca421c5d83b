#include "graphs/synthetic.h"

#include <array>
#include <random>

namespace glassbox::graphs {
namespace {

constexpr std::array<std::string_view, 10> kTopDirectories = {"core", "ops",  "cpu",    "cuda",  "autograd",
                                                              "io",   "util", "python", "tools", "distributed"};
constexpr std::array<std::string_view, 6> kSubDirectories = {"", "kernels", "detail", "impl", "native", "quantized"};
constexpr std::array<std::string_view, 16> kWords = {"tensor", "iterator", "dispatch", "storage", "allocator", "reduce",
                                                     "binary", "unary",    "matmul",   "schema",  "registry",  "stream",
                                                     "graph",  "function", "engine",   "layout"};

// Deterministic across standard libraries (std:: distributions are not).
class Random {
 public:
  explicit Random(std::uint32_t seed) : engine_(seed) {}
  std::size_t below(std::size_t n) { return n == 0 ? 0 : engine_() % n; }
  bool chance(unsigned percent) { return below(100) < percent; }

 private:
  std::mt19937 engine_;
};

std::string file_stem(Random& random, std::size_t serial) {
  std::string stem(kWords[random.below(kWords.size())]);
  stem += '_';
  stem += kWords[random.below(kWords.size())];
  return stem + "_" + std::to_string(serial);
}

}  // namespace

Graph make_synthetic_build_graph(const SyntheticOptions& options) {
  Random random(options.seed);
  Graph graph("synthetic");
  graph.set_attribute(std::string(attr::kSourceRoot), options.root);
  const std::size_t total = std::max<std::size_t>(options.nodes, 4);
  const std::size_t targets = std::max<std::size_t>(2, total / 25);
  const std::size_t externals = std::max<std::size_t>(1, total / 100);
  const std::size_t files = total - targets - externals;
  const std::size_t headers = files * 3 / 10;
  const std::size_t sources = files - headers;

  std::vector<NodeIndex> target_nodes, header_nodes;
  std::vector<std::string> target_directories;
  for (std::size_t t = 0; t < targets; ++t) {
    std::string directory = std::string(kTopDirectories[t % kTopDirectories.size()]);
    if (auto sub = kSubDirectories[(t / kTopDirectories.size()) % kSubDirectories.size()]; !sub.empty())
      directory += "/" + std::string(sub);
    bool executable = t % 10 == 9;
    std::string name = (executable ? "run_" : "libglass_") + directory;
    for (char& c : name)
      if (c == '/') c = '_';
    name += "_" + std::to_string(t);
    Attributes attributes{{std::string(attr::kDirectory), options.root + "/" + directory},
                          {std::string(attr::kType), executable ? "EXECUTABLE" : "SHARED_LIBRARY"},
                          {std::string(attr::kSize), std::to_string(50'000 + random.below(5'000'000))}};
    std::string id = executable ? "bin/" + name : "lib/" + name + ".so";
    target_nodes.push_back(
        graph.add_node(id, executable ? NodeKind::Executable : NodeKind::Library, name, std::move(attributes)));
    target_directories.push_back(std::move(directory));
  }
  std::vector<NodeIndex> external_nodes;
  for (std::size_t e = 0; e < externals; ++e) {
    std::string path = "/usr/lib/x86_64-linux-gnu/libext" + std::to_string(e) + ".so";
    external_nodes.push_back(graph.add_node(path, NodeKind::External, "libext" + std::to_string(e) + ".so",
                                            {{std::string(attr::kPath), path}}));
  }
  for (std::size_t h = 0; h < headers; ++h) {
    std::size_t owner = random.below(targets);
    std::string path = options.root + "/" + target_directories[owner] + "/" + file_stem(random, h) + ".h";
    header_nodes.push_back(graph.add_node(
        path, NodeKind::Header, path.substr(path.rfind('/') + 1),
        {{std::string(attr::kPath), path}, {std::string(attr::kSize), std::to_string(500 + random.below(40'000))}}));
  }
  std::vector<NodeIndex> source_nodes;
  for (std::size_t s = 0; s < sources; ++s) {
    std::size_t owner = s % targets;
    std::string path = options.root + "/" + target_directories[owner] + "/" + file_stem(random, s) + ".cpp";
    NodeIndex index = graph.add_node(path, NodeKind::Source, path.substr(path.rfind('/') + 1),
                                     {{std::string(attr::kPath), path},
                                      {std::string(attr::kSize), std::to_string(1'000 + random.below(120'000))},
                                      {std::string(attr::kCompileMs), std::to_string(200 + random.below(30'000))},
                                      {std::string(attr::kTarget), graph.node(target_nodes[owner]).id}});
    source_nodes.push_back(index);
    graph.add_edge(target_nodes[owner], index, EdgeKind::Compiles);
  }
  // Libraries link earlier libraries (a DAG, like a layered project); build order follows links.
  for (std::size_t t = 1; t < targets; ++t) {
    std::size_t links = 1 + random.below(graph.node(target_nodes[t]).kind == NodeKind::Executable ? 4 : 2);
    for (std::size_t l = 0; l < links; ++l) {
      NodeIndex dependency = target_nodes[random.below(t)];
      if (graph.node(dependency).kind == NodeKind::Executable ||
          graph.find_edge(target_nodes[t], dependency, EdgeKind::Links))
        continue;
      graph.add_edge(target_nodes[t], dependency, EdgeKind::Links);
      if (random.chance(50)) graph.add_edge(target_nodes[t], dependency, EdgeKind::Depends);
    }
    if (random.chance(30)) graph.ensure_edge(target_nodes[t], external_nodes[random.below(externals)], EdgeKind::Links);
  }
  // Includes fill the remaining edge budget, mostly headers of the same target.
  std::size_t attempts = 0;
  while (graph.edge_count() < options.edges && !source_nodes.empty() && !header_nodes.empty() &&
         attempts++ < options.edges * 4) {
    bool from_header = random.chance(20);
    NodeIndex from =
        from_header ? header_nodes[random.below(header_nodes.size())] : source_nodes[random.below(source_nodes.size())];
    NodeIndex to = header_nodes[random.below(header_nodes.size())];
    if (from == to || graph.find_edge(from, to, EdgeKind::Includes)) continue;
    graph.add_edge(from, to, EdgeKind::Includes);
  }
  return graph;
}

}  // namespace glassbox::graphs
