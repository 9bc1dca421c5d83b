#pragma once
// The module graph made readable at any scale, as a picture of a build's layering: link edges that
// other link edges imply are left out (transitive reduction; build-order edges that links or other
// build-order edges imply too), each target's sources become one node per directory with a count
// and summed compile time, drawn in a box with their target, and the external libraries share a
// box of their own. The DOT writer's `dot` layout then ranks executables above the libraries they
// use and those above the external libraries.
#include "graphs/graph.h"

namespace glassbox::introspect {

struct ModulePictureOptions {
  bool all_edges = false;      // keep the link and build-order edges others imply
  bool group_sources = true;   // per target, one node per source directory
  bool group_external = true;  // external libraries in one box
  // With more executables than this, those under one top-level source directory (tests/, tools/)
  // fold into one node; 0 never folds them.
  std::size_t max_executables = 12;
};

graphs::Graph module_picture(const graphs::Graph& module_graph, const ModulePictureOptions& options = {});

// "850 ms", "12.3 s", "4 min 05 s", "1 h 02 min"
std::string short_duration(long long ms);

}  // namespace glassbox::introspect
