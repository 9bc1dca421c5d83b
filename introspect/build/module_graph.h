#pragma once
// The module-dependency graph of a CMake build: one node per target (labelled by its artifact,
// "lib/libcore.so"), the sources each compiles, external libraries it links. Link edges come from
// the link command lines (what the linker really sees); build-order edges from the codemodel's
// `dependencies`, kept as a separate edge kind.
//
//   nodes  Library (type STATIC/SHARED/MODULE/OBJECT_LIBRARY), Executable, Target (INTERFACE_LIBRARY,
//          UTILITY), Source / Header / GeneratedSource, External (system or imported libraries)
//   edges  Links     consumer -> library it links (objects of an OBJECT_LIBRARY: via=objects)
//          Depends   target -> target built before it (build order)
//          Compiles  target -> source
#include <filesystem>
#include <string>

#include "graphs/graph.h"
#include "introspect/build/compile_database.h"
#include "introspect/build/file_api.h"
#include "introspect/build/ninja_log.h"

namespace glassbox::introspect {

struct ModuleGraphOptions {
  std::string configuration;          // multi-config generators: which one ("" = the first)
  bool sources = true;                // add source nodes and Compiles edges
  bool build_order = true;            // add Depends edges
  // Keep a Depends edge even when a Links edge joins the same two targets (they say the same thing
  // in a picture; the data keeps both by default).
  bool redundant_build_order = true;
  bool generator_targets = false;     // ALL_BUILD, ZERO_CHECK and the like
};

// Node ids: a target's name; a source's path relative to the source dir (absolute when outside);
// an external library "external:<name or path>".
std::string external_node_id(std::string_view library);

// compile_db and ninja_log are optional: they add compile and link times to nodes.
graphs::Graph build_module_graph(const FileApiReply& reply, const CompileDatabase* compile_db,
                                 const NinjaLog* ninja_log, const ModuleGraphOptions& options = {});

// Reads what the build directory has (the File API reply is required, the compile database and
// .ninja_log are used when present) and builds the graph.
struct BuildDirInputs {
  FileApiReply reply;
  std::optional<CompileDatabase> compile_db;
  std::optional<NinjaLog> ninja_log;
  std::vector<std::string> warnings;  // optional inputs that could not be read, and why
};
BuildDirInputs read_build_dir(const std::filesystem::path& build_dir, const FileApiOptions& file_api = {});
graphs::Graph module_graph_of(const std::filesystem::path& build_dir, const ModuleGraphOptions& options = {},
                              const FileApiOptions& file_api = {});

}  // namespace glassbox::introspect
