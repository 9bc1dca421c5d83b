#pragma once
// The addresses a function's machine code loads (x86-64 `lea reg, [rip + disp]`), through the
// Capstone disassembler: what a registration block's code passes to m.impl / m.def (its operator
// name strings). Without Capstone at build time, block_code_available() is false and
// rip_relative_loads() returns nothing.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace glassbox::introspect {

bool block_code_available();

// The targets of the RIP-relative `lea` instructions in code[0, size), placed at `address`.
std::vector<uint64_t> rip_relative_loads(const uint8_t* code, std::size_t size, uint64_t address);

}  // namespace glassbox::introspect
