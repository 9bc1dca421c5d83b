#pragma once
// The include graph recorded by Ninja: each translation unit and the headers it pulled in
// (directly or not; a depfile does not say which header included which).
//
//   nodes  Source (the translation unit), Header (in the source or build tree),
//          External (headers elsewhere: the system, third-party installs)
//   edges  Includes   source -> header
#include <string>

#include "graphs/graph.h"
#include "introspect/buildtree/ninja_deps.h"

namespace glassbox::introspect {

struct IncludeGraphOptions {
  std::string source_root;  // headers under it (or under build_root) are the project's
  std::string build_root;   // Ninja's relative paths are resolved against it
  // Only translation units whose path ends with this ("engine/core/tensor.cpp"); "" for all.
  std::string source;
};

// Node ids are paths relative to source_root (absolute outside it). Header nodes carry
// "included_by": the number of translation units including them.
graphs::Graph build_include_graph(const NinjaDeps& deps, const IncludeGraphOptions& options);

}  // namespace glassbox::introspect
