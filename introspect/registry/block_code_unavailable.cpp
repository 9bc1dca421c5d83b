// Built when Capstone was not found (Debian: libcapstone-dev): registration blocks' code is not read.
#include "introspect/registry/block_code.h"

namespace glassbox::introspect {

bool block_code_available() { return false; }

std::vector<uint64_t> rip_relative_loads(const uint8_t*, std::size_t, uint64_t) { return {}; }

}  // namespace glassbox::introspect
