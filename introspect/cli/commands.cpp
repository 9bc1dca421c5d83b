#include "introspect/cli/commands.h"

#include "introspect/cli/arguments.h"

namespace glassbox::introspect::cli {

const std::vector<Command>& all_commands() {
  static const std::vector<Command> commands = {
      {"deps", "module-dependency graph of a CMake build: targets, libraries, sources", run_deps},
      {"compile-db", "translation units per target with a summary of their flags", run_compile_db},
      {"build-times", "slowest compiles and links, per-target totals, critical path (.ninja_log)", run_build_times},
      {"includes", "include graph recorded by Ninja (.ninja_deps)", run_includes},
      {"sources", "operator registrations found in the sources (libclang)", run_sources},
      {"ops", "operators per dispatch key: registry, sources and build joined, as a table or graph", run_ops},
      {"symbols", "symbols of an ELF file, demangled, with file:line and size totals (a faster nm -C -l)", run_symbols},
  };
  return commands;
}

const Command* find_command(std::string_view name) {
  for (const auto& c : all_commands())
    if (c.name == name) return &c;
  return nullptr;
}

namespace {
std::string main_help() {
  std::string text =
      "usage: glassbox <command> [arguments] [options]\n\n"
      "Reads CMake/Ninja build directories (the CMake File API reply, compile_commands.json,\n"
      ".ninja_log, .ninja_deps) and prints or draws what they contain.\n\ncommands:\n";
  for (const auto& c : all_commands()) {
    std::string name(c.name);
    text += "  " + name + std::string(name.size() < 14 ? 14 - name.size() : 1, ' ') + std::string(c.summary) + "\n";
  }
  text += "\n`glassbox <command> --help` describes a command's options.\n";
  return text;
}
}  // namespace

int run_cli(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
    if (argv.size() >= 2 && argv[0] == "help") return run_cli({argv[1], "--help"}, out, err);
    out << main_help();
    return argv.empty() ? 2 : 0;
  }
  const Command* command = find_command(argv[0]);
  if (!command) {
    err << "glassbox: error: unknown command \"" << argv[0] << "\"\n\n" << main_help();
    return 2;
  }
  const CommandArgs args(argv.begin() + 1, argv.end());
  try {
    return command->run(args, out);
  } catch (const UsageError& e) {
    err << "glassbox " << command->name << ": error: " << e.what() << "\n"
        << "(see glassbox " << command->name << " --help)\n";
    return 2;
  } catch (const Error& e) {
    err << "glassbox: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    err << "glassbox: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace glassbox::introspect::cli
