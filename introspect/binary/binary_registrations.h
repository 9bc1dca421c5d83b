#pragma once
// Operator registrations found in a binary from its symbols alone (and placed at file:line when it
// has DWARF):
//   - glassbox's GLASSBOX_LIBRARY / _FRAGMENT / _IMPL blocks, whose bodies are the static functions
//     glassbox_library_init_<ns>, glassbox_library_fragment_init_<ns>_<n> and
//     glassbox_library_impl_init_<ns>_<key>_<n> (registry/library.h);
//   - PyTorch's TORCH_LIBRARY / _FRAGMENT / _IMPL blocks (TORCH_LIBRARY_init_<ns>,
//     TORCH_LIBRARY_FRAGMENT_init_<ns>_<n>, TORCH_LIBRARY_IMPL_init_<ns>_<key>_<n>);
//   - the typed operator handles' call/redispatch functions: at::_ops::<op>::call (PyTorch) and
//     glassbox::ops::<op>::call (glassbox's generated Operators.h).
// The blocks' functions are local symbols: they are in .symtab only, so a fully stripped binary
// shows none of them (its exported op handles are still found in .dynsym).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "introspect/binary/dwarf_lines.h"
#include "introspect/binary/elf_file.h"

namespace glassbox::introspect {

enum class BinaryRegistrationKind : uint8_t {
  GlassboxLibrary,          // GLASSBOX_LIBRARY(ns, m)
  GlassboxLibraryFragment,  // GLASSBOX_LIBRARY_FRAGMENT(ns, m)
  GlassboxLibraryImpl,      // GLASSBOX_LIBRARY_IMPL(ns, key, m)
  TorchLibrary,             // TORCH_LIBRARY(ns, m)
  TorchLibraryFragment,     // TORCH_LIBRARY_FRAGMENT(ns, m)
  TorchLibraryImpl,         // TORCH_LIBRARY_IMPL(ns, key, m)
  OpCall,                   // <ops namespace>::<op>::call
  OpRedispatch,             // <ops namespace>::<op>::redispatch
};

// The macro's name ("GLASSBOX_LIBRARY_IMPL", "TORCH_LIBRARY") or "op_call" / "op_redispatch".
std::string_view to_string(BinaryRegistrationKind kind);

struct BinaryRegistration {
  BinaryRegistrationKind kind = BinaryRegistrationKind::GlassboxLibrary;
  std::string ns;            // the block's namespace ("_" for fallback blocks); "aten" / "glassbox" for op handles
  std::string dispatch_key;  // *_IMPL blocks: the key ("CPU"); else ""
  std::string op;            // op handles: the operator's struct name, <name>_<overload> ("add_Tensor"); else ""
  std::string symbol, demangled;
  uint64_t address = 0;
  std::string file;  // from DWARF: the line of the function's first instruction; "" without line info
  uint32_t line = 0;
  // Blocks: the lines of `file` that have code in the block's function (DWARF line table), i.e.
  // where its def/impl/fallback calls are; empty without line info.
  std::vector<uint32_t> code_lines;
  std::string library;  // the binary's path
};

// Where a function named in a registration (a kernel) is defined in a binary: its symbol, its size
// and the line of its first instruction (DWARF), which GCC and Clang give as the definition's line.
struct FunctionDefinition {
  std::string name;  // qualified, without parameters: "glassbox::native::mm_cpu"
  std::string symbol, demangled;
  uint64_t address = 0, size = 0;
  std::string file;  // "" without line info
  uint32_t line = 0;
  std::string library;
};

// What one binary shows of its registrations, and how much it can show: a binary without .symtab
// has no blocks (they are local symbols), one without DWARF has them without lines.
struct BinaryRegistrationScan {
  std::string library;
  std::vector<BinaryRegistration> registrations;
  bool has_symtab = false;
  DwarfLines::Status line_status = DwarfLines::Status::Missing;
  std::string line_message;                   // why there are no lines; "" when present
  std::vector<std::string> compile_units;     // the sources of its DWARF compile units
  std::vector<FunctionDefinition> functions;  // the definitions asked for (scan's `functions`)
};

// The qualified name of a demangled function symbol, without its parameters and return type
// ("at::(anonymous namespace)::wrapper_CPU_add_Tensor"); "" when it is not a function's name.
std::string qualified_function_name(std::string_view demangled);

// The definitions among elf's defined functions whose qualified name is in `names` (each function
// once; compiler-made clones such as "f.cold" are left out), placed by `lines` when it has DWARF.
std::vector<FunctionDefinition> find_function_definitions(const ElfFile& elf, const DwarfLines* lines,
                                                          const std::vector<std::string>& names);

// The registration a symbol stands for, or nullopt (not a defined function of a known pattern, or
// a compiler-made clone such as "f.cold"). file/line/library are left empty.
std::optional<BinaryRegistration> classify_registration_symbol(const ElfSymbol& symbol);

// Every registration among elf's symbols (each function once, even when in both tables), placed
// by `lines` when it is given and has DWARF; ordered by kind, namespace, key, operator.
std::vector<BinaryRegistration> find_binary_registrations(const ElfFile& elf, const DwarfLines* lines);

// Reads `binary` (both symbol tables and its DWARF) and finds its registrations.
std::vector<BinaryRegistration> find_binary_registrations(const std::filesystem::path& binary,
                                                          const DwarfOptions& options = {});
// The same, with what the binary lacks (symbol table, line information) and its compile units.
// `functions`: qualified names whose definitions to find too (BinaryRegistrationScan::functions).
BinaryRegistrationScan scan_binary_registrations(const std::filesystem::path& binary, const DwarfOptions& options = {},
                                                 const std::vector<std::string>& functions = {});

}  // namespace glassbox::introspect
