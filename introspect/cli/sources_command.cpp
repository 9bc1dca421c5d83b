// glassbox sources BUILD_DIR: operator registrations as written in the sources (libclang).
#include <iostream>
#include <optional>
#include <regex>

#include "introspect/cli/arguments.h"
#include "introspect/cli/commands.h"
#include "introspect/cli/text_table.h"
#include "introspect/source/source_scan.h"

namespace glassbox::introspect::cli {
namespace {

ArgumentParser sources_parser() {
  ArgumentParser p("glassbox sources",
                   "Operator registrations as written in the sources: every translation unit of the\n"
                   "build's compile_commands.json is parsed with libclang (with its own flags), and the\n"
                   "def/impl/fallback calls inside GLASSBOX_LIBRARY* and TORCH_LIBRARY* blocks are listed\n"
                   "with their namespace, dispatch key, kernel and file:line. A unit with compile errors\n"
                   "(a missing header, an unknown member) keeps the registrations libclang could read, and\n"
                   "its errors are listed under its name (the exit status is then 1). A compile-database\n"
                   "entry that cannot be read is skipped with a warning.");
  p.positional("BUILD_DIR", "a build directory with compile_commands.json (or the file itself)");
  p.option("grep", "REGEX", "keep registrations whose operator, kernel, key or file matches")
      .option("units", "REGEX", "scan only the translation units whose path matches")
      .option("jobs", "N", "parse N units at a time (default: one per core)", "j")
      .flag("registering-units",
            "parse only units with a line opening a registration block (faster; kernels are then "
            "placed at their declarations)")
      .option("source-root", "DIR", "print paths relative to DIR (default: the File API's source dir)")
      .flag("json", "print JSON instead of a table")
      .epilog(
          "examples:\n"
          "  glassbox sources build/dev\n"
          "  glassbox sources build/dev --grep 'add\\.' --units 'Register'\n"
          "  glassbox sources ~/pytorch/build --units aten/src/ATen/native --json");
  return p;
}

std::string site(const std::string& file, int line) { return file.empty() ? "" : file + ":" + std::to_string(line); }

void print_table(const SourceScan& scan, const std::vector<const SourceRegistration*>& rows, std::ostream& out) {
  TextTable table({"kind", "operator", "key", "kernel", "registered at", "kernel at", "schema (yaml)"});
  for (const SourceRegistration* r : rows) {
    const std::string op = r->kind == "fallback" ? "(fallback, " + r->ns + ")" : r->qualified_op();
    table.add_row(
        {r->kind, op, r->dispatch_key, r->kernel, site(r->file, r->line),
         site(r->kernel_file, r->kernel_line) + (r->kernel_file.empty() || r->kernel_defined ? "" : " (decl)"),
         site(r->yaml_file, r->yaml_line)});
  }
  table.print(out);
  out << "\n" << rows.size() << " registrations in " << scan.units.size() << " translation units";
  if (scan.skipped_units) out << " (" << scan.skipped_units << " units without registration blocks skipped)";
  if (!scan.errors.empty()) out << "; " << scan.errors.size() << " with compile errors";
  out << "\n";
}

}  // namespace

int run_sources(const CommandArgs& args, std::ostream& out) {
  const ArgumentParser parser = sources_parser();
  const ParsedArguments parsed = parser.parse(args);
  if (parsed.help) {
    out << parser.help();
    return 0;
  }
  SourceScanOptions options;
  options.jobs = parsed.integer("jobs", 0);
  if (options.jobs < 0) throw UsageError("--jobs must be at least 1");
  options.unit_filter = parsed.value("units");
  options.source_root = parsed.value("source-root");
  options.registering_units_only = parsed.has("registering-units");
  std::optional<std::regex> grep;
  if (parsed.has("grep")) {
    try {
      grep.emplace(parsed.value("grep"));
    } catch (const std::regex_error& e) {
      throw UsageError("--grep: not a valid regex: " + std::string(e.what()));
    }
  }

  SourceScan scan = scan_build_dir(parsed.positional("BUILD_DIR"), options);
  for (const auto& w : scan.warnings) std::cerr << "glassbox: warning: " << w << "\n";
  for (const auto& e : scan.errors) {
    if (!e.parsed) {
      std::cerr << "glassbox: error: " << e.file << " does not parse: " << e.message << "\n";
      continue;
    }
    std::cerr << "glassbox: error: " << e.file << ": compile errors; " << e.registrations
              << " registrations read despite them:\n";
    for (const auto& d : e.diagnostics) std::cerr << "  " << d << "\n";
  }
  std::vector<const SourceRegistration*> rows;
  for (const auto& r : scan.registrations) {
    if (grep && !std::regex_search(r.qualified_op(), *grep) && !std::regex_search(r.kernel, *grep) &&
        !std::regex_search(r.dispatch_key, *grep) && !std::regex_search(r.file, *grep))
      continue;
    rows.push_back(&r);
  }
  if (parsed.has("json")) {
    if (grep) {
      std::vector<SourceRegistration> kept;
      for (auto* r : rows) kept.push_back(*r);
      scan.registrations = std::move(kept);
    }
    out << source_scan_to_json(scan) << "\n";
  } else {
    print_table(scan, rows, out);
  }
  return scan.errors.empty() ? 0 : 1;
}

}  // namespace glassbox::introspect::cli
