#pragma once
// The module-dependency graph of a CMake build: one node per target (labelled by its artifact,
// "lib/libcore.so"), the sources each compiles, external libraries it links. Link edges are the
// direct ones (each target's target_link_libraries items, as `cmake --graphviz` draws them) or,
// when CMake cannot tell, those of the link command lines (what the linker sees, transitive);
// build-order edges come from the codemodel's `dependencies`, kept as a separate edge kind.
//
//   nodes  Library (type STATIC/SHARED/MODULE/OBJECT_LIBRARY), Executable, Target (INTERFACE_LIBRARY,
//          UTILITY), Source / Header / GeneratedSource, External (system or imported libraries)
//   edges  Links     consumer -> library it links (objects of an OBJECT_LIBRARY: via=objects)
//          Depends   target -> target built before it (build order)
//          Compiles  target -> source
#include <filesystem>
#include <string>

#include "graphs/graph.h"
#include "introspect/buildtree/cmake_graphviz.h"
#include "introspect/buildtree/compile_database.h"
#include "introspect/buildtree/file_api.h"
#include "introspect/buildtree/ninja_log.h"

namespace glassbox::introspect {

struct ModuleGraphOptions {
  std::string configuration;  // multi-config generators: which one ("" = the first)
  bool sources = true;        // add source nodes and Compiles edges
  bool build_order = true;    // add Depends edges
  // Keep a Depends edge even when a Links edge joins the same two targets (they say the same thing
  // in a picture; the data keeps both by default).
  bool redundant_build_order = true;
  bool generator_targets = false;  // ALL_BUILD, ZERO_CHECK and the like
  // Custom targets (UTILITY: CTest's Continuous*/Nightly*/Experimental*, a project's add_custom_target).
  bool utility_targets = false;
  // Where link edges come from. Auto: `cmake --graphviz` (direct edges), else the link command lines.
  enum class LinkEdges { Auto, CMakeGraphviz, LinkLines };
  LinkEdges link_edges = LinkEdges::Auto;
  std::string cmake;  // for `cmake --graphviz`; default: the build's CMAKE_COMMAND
};

// The graph attribute "link_edges" says which method gave the link edges (kLinkEdges*).
inline constexpr std::string_view kLinkEdgesFromGraphviz = "direct, from cmake --graphviz";
inline constexpr std::string_view kLinkEdgesFromLinkLines = "transitive, from the link command lines";

// Node ids: a target's name; a source's path relative to the source dir (absolute when outside);
// an external library "external:<name or path>".
std::string external_node_id(std::string_view library);

// compile_db and ninja_log are optional: they add compile and link times to nodes. `direct_links`
// (optional) gives the direct link edges; without it they come from the link command lines.
graphs::Graph build_module_graph(const FileApiReply& reply, const CompileDatabase* compile_db,
                                 const NinjaLog* ninja_log, const ModuleGraphOptions& options = {},
                                 const CMakeGraphviz* direct_links = nullptr);

// Reads what the build directory has (the File API reply is required, the compile database and
// .ninja_log are used when present) and builds the graph.
struct BuildDirInputs {
  FileApiReply reply;
  std::optional<CompileDatabase> compile_db;
  std::optional<NinjaLog> ninja_log;
  std::optional<CMakeGraphviz> direct_links;
  std::vector<std::string> warnings;  // optional inputs that could not be read, and why
};
BuildDirInputs read_build_dir(const std::filesystem::path& build_dir, const FileApiOptions& file_api = {},
                              const ModuleGraphOptions& options = {});
graphs::Graph module_graph_of(const std::filesystem::path& build_dir, const ModuleGraphOptions& options = {},
                              const FileApiOptions& file_api = {});

}  // namespace glassbox::introspect
