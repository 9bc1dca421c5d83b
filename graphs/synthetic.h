#pragma once
// A made-up but realistically shaped build graph (libraries and executables in nested
// directories, their sources and headers, links, build-order dependencies, compiles and includes)
// for benchmarks, tests and demos of the writers at scale.
#include <cstddef>
#include <cstdint>
#include <string>

#include "graphs/graph.h"

namespace glassbox::graphs {

struct SyntheticOptions {
  std::size_t nodes = 1000;  // approximate; the result has exactly this many
  std::size_t edges = 2000;  // approximate: at least the structural edges, then includes up to this
  std::uint32_t seed = 1;
  std::string root = "/src/project";  // prefix of every "path"
};

Graph make_synthetic_build_graph(const SyntheticOptions& options = {});

}  // namespace glassbox::graphs
