#pragma once
// Where the registration view's inputs come from for a glassbox build or a set of libraries: the
// libraries that register the engine's operators, and what their ELF symbols and DWARF show of
// their registrations (the third source of truth, beside the registry and the sources).
#include <string>
#include <vector>

#include "introspect/buildtree/file_api.h"
#include "introspect/registry/registration_graph.h"

namespace glassbox::introspect {

// The build's glassbox_core, glassbox_cpu and glassbox_cuda libraries (those that exist), in
// load order: core holds the built-in fallbacks, cpu and cuda the operators.
std::vector<std::string> engine_libraries(const FileApiReply& reply);

// Reads each library's registration blocks and their lines into inputs.binary and
// inputs.binary_libraries, and the definitions of the functions named in `kernels` (qualified,
// without parameters) into inputs.kernel_definitions. Throws glassbox::Error for a file that is
// not a readable ELF file.
void read_binary_side(const std::vector<std::string>& libraries, RegistrationInputs& inputs,
                      const std::vector<std::string>& kernels = {});

}  // namespace glassbox::introspect
