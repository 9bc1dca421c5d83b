#pragma once
// CMake's own picture of a project's direct link dependencies: `cmake --graphviz=FILE BUILD_DIR`
// draws every target's target_link_libraries items (LINK_LIBRARIES and INTERFACE_LINK_LIBRARIES),
// targets and external libraries alike, but not build-order dependencies or custom targets. File API
// replies before codemodel 2.9 list only the transitive build-order closure, so this is how the
// direct link edges of such a build are read.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace glassbox::introspect {

struct GraphvizNode {
  std::string name;                  // the target name, or the item as written ("m", "Threads::Threads")
  std::vector<std::string> aliases;  // ALIAS targets ("GTest::gtest")
  std::string shape;                 // egg executable, octagon static, doubleoctagon shared, tripleoctagon
                                     // module, pentagon interface, hexagon object, septagon unknown,
                                     // box custom; an external library has "ellipse"
};

struct GraphvizEdge {
  std::string from, to;  // names
  std::string scope;     // "public", "private" or "interface" (CMake's solid, dotted, dashed)
};

struct CMakeGraphviz {
  std::string file;
  std::vector<GraphvizNode> nodes;
  std::vector<GraphvizEdge> edges;
  const GraphvizNode* find(std::string_view name) const;
};

// Parses the main file `cmake --graphviz` writes (not the per-target ones). Throws naming the line
// on text that is not CMake's graphviz output.
CMakeGraphviz parse_cmake_graphviz(std::string_view text, std::string_view origin);

// Runs `cmake --graphviz=<build>/.glassbox/graphviz/targets.dot <build>` unless that file is newer
// than the File API reply (which every cmake run rewrites), then parses it. `cmake` should be the
// cmake that configured the build (CMAKE_COMMAND in its cache). Throws with CMake's output on failure.
CMakeGraphviz cmake_graphviz_of(const std::filesystem::path& build_dir, const std::string& cmake);

}  // namespace glassbox::introspect
