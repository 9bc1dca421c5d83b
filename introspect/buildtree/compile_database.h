#pragma once
// compile_commands.json: one entry per translation unit, in either the "command" (a shell command
// line) or the "arguments" (argv) form, with response files (@file) expanded.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "introspect/buildtree/compile_flags.h"

namespace glassbox::introspect {

struct CompileCommand {
  std::string directory;               // the entry's working directory
  std::string file;                    // the source, resolved against directory
  std::string output;                  // the "output" field, else -o; resolved against directory
  std::vector<std::string> arguments;  // argv with response files expanded
  CompileFlags flags;                  // arguments classified

  const std::string& compiler() const { return flags.compiler; }
};

struct CompileDatabase {
  std::string file;  // where it was read from
  std::vector<CompileCommand> commands;
  std::vector<std::string> warnings;  // e.g. a response file that no longer exists

  // The entries compiling `source` (absolute or relative to an entry's directory).
  std::vector<const CompileCommand*> find_source(std::string_view source) const;
};

// Reads compile_commands.json from a build directory (or the file itself).
CompileDatabase read_compile_database(const std::filesystem::path& build_dir_or_file);

// Parses the text of a compile_commands.json; `origin` names it in errors.
CompileDatabase parse_compile_database(std::string_view text, std::string_view origin);

// Expands "@file" arguments (relative to `directory`) in place, recursively. A response file that
// cannot be read is kept as a literal argument and reported in `warnings`, as compilers do.
std::vector<std::string> expand_response_files(const std::vector<std::string>& arguments,
                                               const std::filesystem::path& directory,
                                               std::vector<std::string>* warnings);

}  // namespace glassbox::introspect
