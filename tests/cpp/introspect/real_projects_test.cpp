// `glassbox deps` on CMake projects nobody here wrote, obtained by package name: Debian's googletest
// sources (package googletest, /usr/src/googletest, with its own tests: ~80 targets) and llama.cpp
// from the llama-cpp-python sdist on PyPI (~130 targets, imported and interface targets, external
// libraries by path), fetched into ~/.cache/glassbox/cmake-projects once and reused. Each is
// configured with static and with shared libraries; glassbox's direct link edges must equal the ones
// `cmake --graphviz` draws (read here from the "// a -> b" comments CMake writes on each edge line),
// and no custom (utility) target may be drawn by default.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>

#include "engine/core/error.h"
#include "introspect/buildtree/module_graph.h"
#include "introspect/support/process.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

using Set = std::set<std::string>;

constexpr const char* kLlamaSdist = "llama_cpp_python-0.3.36";

std::filesystem::path cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::filesystem::path base = xdg && *xdg ? xdg : std::filesystem::path(home ? home : "/tmp") / ".cache";
  return base / "glassbox" / "cmake-projects";
}

// The llama.cpp tree inside the sdist, downloaded with pip and unpacked when not cached yet.
std::filesystem::path llama_cpp_source() {
  const auto dir = cache_dir();
  const auto source = dir / kLlamaSdist / "vendor" / "llama.cpp";
  if (std::filesystem::exists(source / "CMakeLists.txt")) return source;
  std::filesystem::create_directories(dir);
  const auto tarball = dir / (std::string(kLlamaSdist) + ".tar.gz");
  if (!std::filesystem::exists(tarball)) {
    const auto r = run_process({GLASSBOX_TEST_PYTHON, "-m", "pip", "download", "llama-cpp-python==0.3.36", "--no-deps",
                                "--no-binary", ":all:", "--no-build-isolation", "-d", dir.string()});
    if (r.exit_code != 0 || !std::filesystem::exists(tarball)) {
      throw Error("pip download llama-cpp-python==0.3.36 failed:\n" + r.output + r.error_output);
    }
  }
  const auto r = run_process({"tar", "xzf", tarball.string(), "-C", dir.string()});
  if (r.exit_code != 0) throw Error("unpacking " + tarball.string() + " failed:\n" + r.error_output);
  return source;
}

struct Project {
  std::string name;
  std::filesystem::path source;
  std::vector<std::string> cmake_args;
};

std::filesystem::path configure(const Project& p, bool shared) {
  const auto build = testing::work_dir() / ("real-" + p.name + (shared ? "-shared" : "-static"));
  std::filesystem::remove_all(build);
  std::filesystem::create_directories(build);
  write_file_api_query(build);
  std::vector<std::string> argv = {testing::cmake_program(),
                                   "-S",
                                   p.source.string(),
                                   "-B",
                                   build.string(),
                                   "-G",
                                   "Ninja",
                                   "-DCMAKE_MAKE_PROGRAM=" + std::string(testing::ninja_program()),
                                   std::string("-DBUILD_SHARED_LIBS=") + (shared ? "ON" : "OFF")};
  argv.insert(argv.end(), p.cmake_args.begin(), p.cmake_args.end());
  const auto r = run_process(argv);
  if (r.exit_code != 0) throw Error("configuring " + p.name + " failed:\n" + r.output + r.error_output);
  return build;
}

// CMake's direct edges, from its own graphviz file: every edge line ends with "// from -> to".
Set reference_edges(const std::filesystem::path& build) {
  const auto dot = build / "reference" / "graph.dot";
  std::filesystem::create_directories(dot.parent_path());
  const auto r = run_process({testing::cmake_program(), "--graphviz=" + dot.string(), build.string()});
  if (r.exit_code != 0) throw Error("cmake --graphviz failed:\n" + r.output + r.error_output);
  Set edges;
  std::ifstream in(dot);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("legendNode") != std::string::npos) continue;
    const auto comment = line.find("// ");
    if (comment == std::string::npos || line.find("->") > comment) continue;
    edges.insert(line.substr(comment + 3));
  }
  return edges;
}

std::string name_of(const graphs::Node& n) {
  return n.attribute("name").empty() ? n.id : std::string(n.attribute("name"));
}

void expect_graphviz_edges(const Project& p, bool shared) {
  SCOPED_TRACE(p.name + (shared ? " shared" : " static"));
  const auto build = configure(p, shared);
  ModuleGraphOptions options;
  options.sources = false;
  const graphs::Graph g = module_graph_of(build, options);
  EXPECT_EQ(g.attributes().at("link_edges"), kLinkEdgesFromGraphviz);

  Set ours;
  for (const auto& e : g.edges())
    if (e.kind == graphs::EdgeKind::Links) ours.insert(name_of(g.node(e.from)) + " -> " + name_of(g.node(e.to)));
  const Set reference = reference_edges(build);
  EXPECT_GE(reference.size(), 40u);
  EXPECT_EQ(ours, reference);

  // Every target of the reply is a node except custom targets; interface targets are drawn.
  const FileApiReply reply = read_file_api(build);
  std::size_t utilities = 0, interfaces = 0;
  for (const Target& t : reply.configuration().targets) {
    if (t.type == "UTILITY") {
      ++utilities;
      EXPECT_FALSE(g.contains(t.name)) << t.name;
      continue;
    }
    if (t.type == "INTERFACE_LIBRARY") ++interfaces;
    EXPECT_TRUE(g.contains(t.name)) << t.name;
  }
  for (const auto& n : g.nodes()) EXPECT_NE(n.attribute("type"), "UTILITY") << n.id;
  // With the custom targets asked for, they are back (the CTest dashboard targets among them).
  options.utility_targets = true;
  const graphs::Graph all = module_graph_of(build, options);
  std::size_t drawn_utilities = 0;
  for (const auto& n : all.nodes()) drawn_utilities += n.attribute("type") == "UTILITY";
  EXPECT_EQ(drawn_utilities, utilities);
  ::testing::Test::RecordProperty(p.name + (shared ? "_shared" : "_static"),
                                  std::to_string(reply.configuration().targets.size()) + " targets, " +
                                      std::to_string(ours.size()) + " direct link edges, " + std::to_string(utilities) +
                                      " utility, " + std::to_string(interfaces) + " interface");
}

TEST(RealCMakeProjects, GoogletestDirectLinkEdgesEqualCMakeGraphviz) {
  const Project googletest{"googletest", "/usr/src/googletest", {"-Dgtest_build_tests=ON", "-Dgmock_build_tests=ON"}};
  if (!std::filesystem::exists(googletest.source / "CMakeLists.txt")) {
    GTEST_SKIP() << "Debian package googletest is not installed (apt-get install googletest)";
  }
  expect_graphviz_edges(googletest, false);
  expect_graphviz_edges(googletest, true);
}

TEST(RealCMakeProjects, LlamaCppDirectLinkEdgesEqualCMakeGraphviz) {
  const Project llama{"llama.cpp", llama_cpp_source(), {"-DGGML_NATIVE=OFF", "-DLLAMA_BUILD_TESTS=ON"}};
  expect_graphviz_edges(llama, false);
  expect_graphviz_edges(llama, true);
  const auto build = testing::work_dir() / "real-llama.cpp-shared";
  const FileApiReply reply = read_file_api(build);
  std::size_t utilities = 0;
  for (const Target& t : reply.configuration().targets) {
    utilities += t.name.rfind("Experimental", 0) == 0 || t.name.rfind("Nightly", 0) == 0;
  }
  EXPECT_GT(utilities, 0u) << "llama.cpp includes CTest: its dashboard targets must be in the reply";
}

}  // namespace
}  // namespace glassbox::introspect
