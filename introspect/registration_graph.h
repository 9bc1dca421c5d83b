#pragma once
// The operator-registration graph: three sources of truth joined into one picture.
//   1. the running registry (glassbox-registry JSON, registry/registry_dump.h),
//   2. the sources (introspect/source_scan.h),
//   3. the binaries (BinaryRegistrationRecord below: what the ELF/DWARF reader found).
// Every registration is keyed by (operator, dispatch key) - "def" for a schema, operator "" for a
// key's fallback - and each source's file:line is compared. Where they disagree, the row, the
// graph's nodes and edges and the `disagreements` list say so.
//
// Graph, per operator:
//   operator -> schema (ops.yaml:LINE) -> registration (file:line) -> dispatch key -> kernel
//            -> kernel source (file:line) -> shared library -> CMake target
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphs/graph.h"
#include "introspect/file_api.h"
#include "introspect/source_scan.h"

namespace glassbox::introspect {

// One registration found in a binary (introspect/binary_registrations.h has the reader's own type;
// binary_registration_records_from() converts).
struct BinaryRegistrationRecord {
  std::string kind;          // "def", "impl", "fallback"; "block" for a block's function; "op_handle"
  std::string block;         // the block's macro ("GLASSBOX_LIBRARY_IMPL", "TORCH_LIBRARY") or "op_call"
  std::string ns;
  std::string dispatch_key;  // "" for a def
  std::string op;            // "add.Tensor" (qualified or not); "" for a block or fallback
  std::string symbol;        // mangled
  std::string demangled;
  std::string file;          // from DWARF; "" when the binary has no line info
  int line = 0;
  std::string library;       // the shared library (path as given to the reader)
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
    out.push_back(BinaryRegistrationRecord{macro.starts_with("op_") ? "op_handle" : "block", macro, std::string(r.ns),
                                           std::string(r.dispatch_key), std::string(r.op), std::string(r.symbol),
                                           std::string(r.demangled), std::string(r.file), int(r.line),
                                           std::string(r.library)});
  }
  return out;
}

struct RegistrationInputs {
  std::optional<std::string> registry_json;          // glassbox-registry JSON text
  const SourceScan* sources = nullptr;               // nullptr: not scanned
  std::optional<std::vector<BinaryRegistrationRecord>> binary;  // nullopt: not read
  const FileApiReply* reply = nullptr;               // which target builds which source and library
};

struct RegistrationFilter {
  std::string op_regex;  // ECMAScript, searched in "ns::name.overload"
  std::string key;       // a dispatch key: only registrations for it (and the operators' schemas)
};

struct RegistrationRow {
  std::string op;             // "glassbox::add.Tensor"; "(fallback)" for a key's fallback
  std::string key;            // the key registered for ("def" rows are not in the table)
  std::string serves;         // runtime keys whose dispatch-table slot this registration fills
  std::string kernel;         // qualified kernel function
  std::string registered_at;  // file:line (registry first, then sources, then binary)
  std::string kernel_at;      // file:line of the kernel's definition
  std::string schema_at;      // ops.yaml:LINE when the registration names it
  std::string library;        // shared library holding the kernel
  std::string target;         // CMake target building it
  std::string found_in;       // "registry,sources,binary": who has this registration
  std::vector<std::string> disagreements;
  std::string agreement() const;  // "ok" or the disagreements joined by "; "
};

struct Disagreement {
  std::string op, key, what;
};

struct RegistrationView {
  std::vector<RegistrationRow> rows;              // by operator, then key
  std::vector<Disagreement> disagreements;
  graphs::Graph graph{"registrations"};
  std::vector<std::string> sources_used;          // "registry", "sources", "binary", "file_api"
};

RegistrationView build_registration_view(const RegistrationInputs& inputs, const RegistrationFilter& filter = {});

// {"sources_used", "rows": [...], "disagreements": [...], "graph": <graphs JSON>}
std::string registration_view_to_json(const RegistrationView& view);

// True when two "file:line" sites name the same place: equal lines, and files equal or one a path
// suffix of the other. __FILE__ is spelled relative to wherever the compiler was run from (and
// after its prefix maps), so "generated/x/Register.cpp:9" and "build/dev/generated/x/Register.cpp:9"
// are the same registration.
bool same_site(std::string_view a, std::string_view b);

// The registry of a process that loads `libraries` (dlopen, in order) and asks the registry for
// its JSON through the C entry point glassbox_registry_json() (registry/registry_json_c_api.cpp).
// Throws glassbox::Error naming the library that failed to load or lacks the entry point.
std::string registry_json_from_libraries(const std::vector<std::string>& libraries);

}  // namespace glassbox::introspect
