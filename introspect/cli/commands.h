#pragma once
// The glassbox commands. Each lives in its own file (deps_command.cpp, ...) and is listed once in
// commands.cpp; a command gets its arguments (after its name) and returns the exit status.
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace glassbox::introspect::cli {

using CommandArgs = std::vector<std::string>;

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(const CommandArgs& args, std::ostream& out);
};

const std::vector<Command>& all_commands();
const Command* find_command(std::string_view name);

int run_deps(const CommandArgs& args, std::ostream& out);
int run_compile_db(const CommandArgs& args, std::ostream& out);
int run_build_times(const CommandArgs& args, std::ostream& out);
int run_includes(const CommandArgs& args, std::ostream& out);
int run_sources(const CommandArgs& args, std::ostream& out);
int run_ops(const CommandArgs& args, std::ostream& out);
int run_symbols(const CommandArgs& args, std::ostream& out);

// The CLI as a function (main() calls it; tests and the Python module can too): prints errors as
// "glassbox: error: ..." to `err` and returns 0, 1 (bad input) or 2 (bad usage).
int run_cli(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace glassbox::introspect::cli
