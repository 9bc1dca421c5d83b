#pragma once
// The flags libclang gets for a compile command (language, standard, includes, macros, forced
// includes: what parsing needs, nothing GCC- or nvcc-only), and the shims it needs for headers of
// newer standard libraries than it knows.
#include <string>
#include <vector>

#include "introspect/buildtree/compile_database.h"

namespace glassbox::introspect {

// A CUDA unit (a .cu file, or compiled by nvcc).
bool is_cuda_unit(const CompileCommand& command);

// The arguments for clang_parseTranslationUnit() (the source file itself not included).
std::vector<std::string> libclang_arguments(const CompileCommand& command);

}  // namespace glassbox::introspect
