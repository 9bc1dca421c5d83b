#pragma once
// The operator-registration graph: three sources of truth joined into one picture.
//   1. the running registry (glassbox-registry JSON, registry/registry_dump.h),
//   2. the sources (introspect/source_scan.h),
//   3. the binaries (BinaryRegistrationRecord below: what the ELF/DWARF reader found).
// Every registration is keyed by (operator, dispatch key) - "def" for a schema, operator "" for a
// key's fallback - and each source's file:line is compared. A binary places a registration when a
// block's function of its namespace and key, built from that file, has code at that line (DWARF
// line table). Where the sources of truth disagree, the row, the graph's nodes and edges and the
// `disagreements` list say so; what a binary cannot show (no .symtab, no DWARF) is a note.
//
// Graph, per operator:
//   operator -> schema (ops.yaml:LINE) -> registration (file:line) -> dispatch key -> kernel
//            -> kernel source (file:line) -> shared library -> CMake target
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphs/graph.h"
#include "introspect/buildtree/file_api.h"
#include "introspect/source/source_scan.h"

namespace glassbox::introspect {

// One registration found in a binary (introspect/binary_registrations.h has the reader's own type;
// binary_registration_records_from() converts).
struct BinaryRegistrationRecord {
  std::string kind;   // "def", "impl", "fallback"; "block" for a block's function; "op_handle"
  std::string block;  // the block's macro ("GLASSBOX_LIBRARY_IMPL", "TORCH_LIBRARY") or "op_call"
  std::string ns;
  std::string dispatch_key;  // "" for a def
  std::string op;            // "add.Tensor" (qualified or not); "" for a block or fallback
  std::string symbol;        // mangled
  std::string demangled;
  std::string file;  // from DWARF; "" when the binary has no line info
  int line = 0;
  std::string library;          // the shared library (path as given to the reader)
  std::vector<int> code_lines;  // blocks: the lines of `file` with code in the block's function
  bool inferred = false;        // key, operator and kernel inferred (from symbol names), not read
  std::string unit;             // the translation unit whose static initialiser runs the block ("" unknown)
};

// What one binary read could show. Blocks are local symbols (gone with .symtab) and are placed at
// file:line only with DWARF; compile_units (from DWARF) say which sources it was built from, so
// that a registration written in one of them is expected in it.
struct BinaryLibraryRecord {
  std::string library;
  bool has_symtab = true;
  bool has_lines = true;
  std::string line_message;  // why it has no lines
  std::vector<std::string> compile_units;
};

// Converts the binary reader's records (BinaryRegistration of introspect/binary_registrations.h:
// blocks' functions and operator handles). A template over the record type, so that this join does
// not depend on the reader's header; `to_string(kind)` is found next to the reader's kind enum and
// gives the block's macro or "op_call" / "op_redispatch".
template <class Records>
std::vector<BinaryRegistrationRecord> binary_registration_records_from(const Records& records) {
  std::vector<BinaryRegistrationRecord> out;
  for (const auto& r : records) {
    const std::string macro(to_string(r.kind));
    out.push_back(BinaryRegistrationRecord{macro.starts_with("op_") ? "op_handle" : "block",
                                           macro,
                                           std::string(r.ns),
                                           std::string(r.dispatch_key),
                                           std::string(r.op),
                                           std::string(r.symbol),
                                           std::string(r.demangled),
                                           std::string(r.file),
                                           int(r.line),
                                           std::string(r.library),
                                           {},
                                           false,
                                           ""});
    if constexpr (requires { r.code_lines; }) out.back().code_lines.assign(r.code_lines.begin(), r.code_lines.end());
  }
  return out;
}

// Converts the reader's BinaryRegistrationScan (introspect/binary_registrations.h) of one binary.
template <class Scan>
BinaryLibraryRecord binary_library_record_from(const Scan& scan) {
  return BinaryLibraryRecord{std::string(scan.library),
                             bool(scan.has_symtab),
                             to_string(scan.line_status) == "present",
                             std::string(scan.line_message),
                             {scan.compile_units.begin(), scan.compile_units.end()}};
}

// Where a kernel function is defined, as a binary shows it (FunctionDefinition of
// introspect/binary/binary_registrations.h): symbol, size, library and, with DWARF, file:line.
struct KernelDefinitionRecord {
  std::string name;  // qualified, without parameters: "glassbox::native::mm_cpu"
  std::string symbol;
  uint64_t size = 0;
  std::string file;  // absolute as DWARF has it, or ""
  int line = 0;
  std::string library;
};

struct RegistrationInputs {
  std::optional<std::string> registry_json;                     // glassbox-registry JSON text
  const SourceScan* sources = nullptr;                          // nullptr: not scanned
  std::optional<std::vector<BinaryRegistrationRecord>> binary;  // nullopt: not read
  std::vector<BinaryLibraryRecord> binary_libraries;            // the binaries `binary` was read from
  const FileApiReply* reply = nullptr;                          // which target builds which source and library
  // The kernels' definitions in the binaries: a kernel the sources place only at a declaration (a
  // header) or not at all is placed at its definition, and its target is the one compiling that.
  std::vector<KernelDefinitionRecord> kernel_definitions;
};

struct RegistrationFilter {
  std::string op_regex;  // ECMAScript, searched in "ns::name.overload"
  // A dispatch key: only registrations for it or filling its slot of the dispatch table (a
  // CompositeImplicitAutograd kernel serving CPU), and the operators' schemas.
  std::string key;
};

struct RegistrationRow {
  std::string op;             // "glassbox::add.Tensor"; "(fallback)" for a key's fallback
  std::string key;            // the key registered for ("def" rows are not in the table)
  std::string serves;         // runtime keys whose dispatch-table slot this registration fills
  std::string kernel;         // qualified kernel function
  std::string registered_at;  // file:line (registry first, then sources, then binary)
  std::string kernel_at;      // file:line of the kernel's definition
  std::string kernel_symbol;  // the kernel's symbol in the binary (mangled) and its size in bytes
  uint64_t kernel_size = 0;
  std::string schema_at;    // ops.yaml:LINE when the registration names it
  std::string library;      // shared library holding the kernel
  std::string target;       // CMake target building it
  std::string found_in;     // "registry,sources,binary": who has this registration
  bool inferred = false;    // the binary's part of it is inferred (from symbol names)
  std::string binary_unit;  // the unit whose static initialiser runs the block registering it (binary)
  // Where each source of truth places it ("" where it does not): the registry's recorded
  // file:line, the call found in the sources, and the line of a registration block's code in the
  // binary (DWARF) that is one of the first two.
  std::string registry_at, sources_at, binary_at;
  std::vector<std::string> disagreements;
  std::string agreement() const;  // "ok" or the disagreements joined by "; "
};

struct Disagreement {
  std::string op, key, what;
};

struct RegistrationView {
  std::vector<RegistrationRow> rows;        // kernels and fallbacks, by operator, then key
  std::vector<RegistrationRow> schemas;     // one per operator's def (key "def"), by operator
  std::vector<Disagreement> disagreements;  // of both
  std::vector<std::string> notes;           // what a source could not show (a stripped binary)
  graphs::Graph graph{"registrations"};
  std::vector<std::string> sources_used;  // "registry", "sources", "binary", "file_api"
};

RegistrationView build_registration_view(const RegistrationInputs& inputs, const RegistrationFilter& filter = {});

// {"sources_used", "notes", "rows": [...], "schemas": [...], "disagreements": [...], "graph": <graphs JSON>}
std::string registration_view_to_json(const RegistrationView& view);

// True when two "file:line" sites name the same place: equal lines, and files equal or one a path
// suffix of the other. __FILE__ is spelled relative to wherever the compiler was run from (and
// after its prefix maps), so "generated/x/Register.cpp:9" and "build/dev/generated/x/Register.cpp:9"
// are the same registration; leading "./" and "../" ("../../tests/a.cpp:3") are not compared.
bool same_site(std::string_view a, std::string_view b);

// The registry of a process that loads `libraries` (dlopen, in order) and asks the registry for
// its JSON through the C entry point glassbox_registry_json() (registry/registry_json_c_api.cpp).
// Throws glassbox::Error naming the library that failed to load or lacks the entry point.
std::string registry_json_from_libraries(const std::vector<std::string>& libraries);

}  // namespace glassbox::introspect
