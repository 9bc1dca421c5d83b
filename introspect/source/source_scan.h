#pragma once
// Operator registrations as written in the sources, found with libclang: every translation unit of
// a compile database is parsed with its own flags, registration blocks (GLASSBOX_LIBRARY,
// _FRAGMENT, _IMPL and PyTorch's TORCH_LIBRARY, _FRAGMENT, _IMPL) are found among its macro
// expansions, and the def/impl/fallback calls inside them are read: namespace, dispatch key,
// operator and overload, kernel function and where it is defined, and where the call is.
//
// Units whose main file names no registration macro are parsed without function bodies (they
// only contribute kernel definitions); the others with bodies, but only the blocks are visited.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "introspect/buildtree/compile_database.h"

namespace glassbox::introspect {

struct SourceRegistration {
  std::string kind;          // "def", "impl" or "fallback"
  std::string block;         // the block's macro: "GLASSBOX_LIBRARY_IMPL", "TORCH_LIBRARY", ...
  std::string ns;            // the block's namespace ("_" for fallbacks of every namespace)
  std::string dispatch_key;  // the block's key, or the key given to impl(); "" for a def
  std::string op;            // operator name without overload ("add"); "" for a fallback
  std::string overload;      // "Tensor"; "" when none
  std::string schema;        // the def's schema text; "" otherwise
  std::string kernel;        // qualified kernel function ("glassbox::native::add_cpu"), "" for a def
  std::string kernel_file;   // where the kernel is defined (any unit), else declared
  int kernel_line = 0;
  bool kernel_defined = false;  // kernel_file:kernel_line is the definition
  std::string file;             // the call (relative to the source root when inside it)
  int line = 0;
  std::string block_file;  // the block's macro
  int block_line = 0;
  std::string yaml_file;  // a "// engine/ops/ops.yaml:41" comment on the call's line, else ""
  int yaml_line = 0;
  std::string unit;        // the translation unit it was found in
  std::string kernel_usr;  // libclang's USR of the kernel, to find its definition in other units

  // "ns::op.overload" (or "ns::op"); "" for a fallback.
  std::string qualified_op() const;
};

// A unit with compile errors (a missing header, an unknown member...). libclang recovers from
// most: the registrations it could still read are kept, and the unit's errors are listed here.
struct UnitError {
  std::string file;                      // the translation unit
  std::string message;                   // "file:line:col: error: ..." of the first error, and how many more
  std::vector<std::string> diagnostics;  // every error ("file:line:col: error: ..."), at most 50
  std::size_t registrations = 0;         // found in the unit despite the errors
  bool parsed = true;                    // false: libclang could not parse it at all (nothing kept)
};

struct SourceScanOptions {
  int jobs = 0;             // threads; 0: one per core
  std::string unit_filter;  // ECMAScript regex on a unit's file: scan only matching units
  std::string source_root;  // paths under it are reported relative to it; "" keeps them absolute
  // Parse only the units with a line that opens a registration block: much faster, but kernels
  // are then placed at their declarations unless a registering unit defines them.
  bool registering_units_only = false;
};

struct SourceScan {
  std::vector<SourceRegistration> registrations;  // by file, then line
  std::vector<UnitError> errors;                  // units with compile errors, by file
  std::vector<std::string> warnings;              // compile-database entries skipped, and why
  std::vector<std::string> units;                 // units scanned (relative like the rest)
  std::size_t skipped_units = 0;                  // without registration blocks, and CUDA units or
                                                  // registering_units_only
  std::string source_root;
};

// True when glassbox was built with libclang; the scans below throw glassbox::Error otherwise.
bool source_scan_available();

SourceScan scan_sources(const CompileDatabase& db, const SourceScanOptions& options = {});
// Reads BUILD_DIR's compile_commands.json (an entry that cannot be read is skipped with a warning
// in SourceScan::warnings); the source root defaults to the File API's source dir.
SourceScan scan_build_dir(const std::filesystem::path& build_dir, SourceScanOptions options = {});

// {"source_root", "units", "warnings", "errors": [{file, message, diagnostics, registrations}],
//  "registrations": [{...}]}
std::string source_scan_to_json(const SourceScan& scan, int indent = 2);

// "add.Tensor(Tensor self) -> Tensor" or "aten::add.Tensor" -> {ns, op, overload}; ns "" when absent.
struct OperatorNameParts {
  std::string ns, op, overload;
};
OperatorNameParts split_operator_name(std::string_view schema_or_name);

}  // namespace glassbox::introspect
