#pragma once
// Small graphs and compact views of graphs shared by the graphs tests.
#include <string>
#include <vector>

#include "graphs/graph.h"

namespace glassbox::graphs::testing {

// Node ids in graph order.
inline std::vector<std::string> node_ids(const Graph& graph) {
  std::vector<std::string> ids;
  for (const Node& node : graph.nodes()) ids.push_back(node.id);
  return ids;
}

// Edges in graph order as "from -kind-> to".
inline std::vector<std::string> edge_list(const Graph& graph) {
  std::vector<std::string> edges;
  for (const Edge& edge : graph.edges())
    edges.push_back(graph.node(edge.from).id + " -" + std::string(to_string(edge.kind)) + "-> " +
                    graph.node(edge.to).id);
  return edges;
}

// A build in /p: libcore.so (core/a.cpp, core/b.cpp with their objects and headers), libcpu.so
// (cpu/c.cpp) linking libcore and libm, and the executable app (app/main.cpp) linking libcpu.
inline Graph small_build_graph() {
  Graph g("small");
  g.set_attribute("source_root", "/p");
  auto target = [&](const std::string& id, NodeKind kind, const std::string& label, const std::string& dir) {
    g.add_node(id, kind, label, {{"directory", "/p/" + dir}});
  };
  auto file = [&](const std::string& path, NodeKind kind, const std::string& size) {
    g.add_node(path, kind, path.substr(path.rfind('/') + 1), {{"path", path}, {"size", size}});
  };
  target("lib/libcore.so", NodeKind::Library, "core", "core");
  target("lib/libcpu.so", NodeKind::Library, "cpu", "cpu");
  target("bin/app", NodeKind::Executable, "app", "app");
  file("/p/core/a.cpp", NodeKind::Source, "100");
  file("/p/core/b.cpp", NodeKind::Source, "200");
  file("/p/core/a.h", NodeKind::Header, "10");
  file("/p/core/b.h", NodeKind::Header, "20");
  file("/p/cpu/c.cpp", NodeKind::Source, "300");
  file("/p/app/main.cpp", NodeKind::Source, "400");
  g.add_node("core/a.o", NodeKind::Object, "a.o", {{"target", "lib/libcore.so"}});
  g.add_node("core/b.o", NodeKind::Object, "b.o");  // owner found through its edges
  g.add_node("/usr/lib/libm.so", NodeKind::External, "libm.so", {{"path", "/usr/lib/libm.so"}});

  g.add_edge("lib/libcore.so", "/p/core/a.cpp", EdgeKind::Compiles);
  g.add_edge("lib/libcore.so", "/p/core/b.cpp", EdgeKind::Compiles);
  g.add_edge("/p/core/a.cpp", "core/a.o", EdgeKind::Compiles);
  g.add_edge("/p/core/b.cpp", "core/b.o", EdgeKind::Compiles);
  g.add_edge("lib/libcore.so", "core/a.o", EdgeKind::Compiles);
  g.add_edge("lib/libcore.so", "core/b.o", EdgeKind::Compiles);
  g.add_edge("/p/core/a.cpp", "/p/core/a.h", EdgeKind::Includes);
  g.add_edge("/p/core/b.cpp", "/p/core/b.h", EdgeKind::Includes);
  g.add_edge("/p/core/b.h", "/p/core/a.h", EdgeKind::Includes);
  g.add_edge("/p/cpu/c.cpp", "/p/core/a.h", EdgeKind::Includes);
  g.add_edge("lib/libcpu.so", "/p/cpu/c.cpp", EdgeKind::Compiles);
  g.add_edge("lib/libcpu.so", "lib/libcore.so", EdgeKind::Links);
  g.add_edge("lib/libcpu.so", "lib/libcore.so", EdgeKind::Depends);
  g.add_edge("lib/libcpu.so", "/usr/lib/libm.so", EdgeKind::Links);
  g.add_edge("bin/app", "/p/app/main.cpp", EdgeKind::Compiles);
  g.add_edge("bin/app", "lib/libcpu.so", EdgeKind::Links);
  return g;
}

}  // namespace glassbox::graphs::testing
