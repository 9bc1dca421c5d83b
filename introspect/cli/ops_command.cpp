// glassbox ops: the registration table and graph of operators, joined from the running registry
// (JSON), the sources (libclang), the binaries (ELF symbols and DWARF) and the build (CMake File API).
#include <fstream>
#include <iostream>
#include <sstream>

#include "introspect/cli/arguments.h"
#include "introspect/cli/commands.h"
#include "introspect/cli/graph_output.h"
#include "introspect/cli/text_table.h"
#include "engine/core/error.h"
#include "introspect/build/file_api.h"
#include "introspect/registry/registration_graph.h"
#include "introspect/registry/registration_inputs.h"
#include "introspect/source/source_scan.h"

namespace glassbox::introspect::cli {
namespace {

ArgumentParser ops_parser() {
  ArgumentParser p("glassbox ops",
                   "Where each operator is declared, registered and implemented, per dispatch key: a\n"
                   "table like a dispatcher's table dump with the kernel, the registration's and the\n"
                   "kernel's file:line, the library and the CMake target, and the graph\n"
                   "  operator -> schema (ops.yaml line) -> registration -> key -> kernel -> source -> library -> target.\n"
                   "The running registry (--registry FILE, or --load LIB, or the build's engine libraries),\n"
                   "the sources (--build: scanned with libclang) and the binaries (their registration blocks'\n"
                   "code lines, from ELF symbols and DWARF) are compared; where they disagree the agreement\n"
                   "column, the graph (red) and the JSON's \"disagreements\" say so. A binary without\n"
                   ".symtab or DWARF cannot show its registrations (or their lines): a note says so.");
  add_graph_options(p);
  p.option("op", "REGEX", "operators whose \"ns::name.overload\" matches")
      .option("key", "KEY", "registrations for this dispatch key only (CPU, Meta, CompositeImplicitAutograd, ...)")
      .option("build", "BUILD_DIR", "scan this build's sources and read its CMake File API reply")
      .option("registry", "FILE", "the registry as JSON (glassbox.registry.to_json(), or '-' for stdin)")
      .option("load", "LIB", "dlopen LIB (repeatable, in order) and read the registry it fills", "", true)
      .flag("no-registry", "do not load the build's libraries for the registry")
      .flag("no-binary", "do not read the libraries' symbols and DWARF (the third source of truth)")
      .option("binary", "LIB", "read this binary's registrations (repeatable; default: the --load libraries, "
              "else the build's engine libraries)", "", true)
      .option("units", "REGEX", "with --build: scan only the translation units whose path matches")
      .option("jobs", "N", "with --build: parse N units at a time (default: one per core)", "j")
      .flag("registering-units", "with --build: parse only units with a line opening a registration block (faster; "
            "kernels are then placed at their declarations)")
      .epilog("examples:\n"
              "  glassbox ops --build build/dev --op '^glassbox::add\\.Tensor$'\n"
              "  glassbox ops --build build/dev --op matmul --format svg -o matmul.svg\n"
              "  python -c 'import glassbox; print(glassbox.registry.to_json())' > reg.json\n"
              "  glassbox ops --registry reg.json --key CPU");
  return p;
}

std::string read_text(const std::string& file) {
  if (file == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file + ": cannot be read");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void print_ops_table(const RegistrationView& view, std::ostream& out) {
  TextTable table({"operator", "key", "serves", "kernel", "registered at", "kernel at", "library", "target", "agreement"});
  for (const auto& r : view.rows)
    table.add_row({r.op, r.key, r.serves, r.kernel, r.registered_at, r.kernel_at, r.library, r.target, r.agreement()});
  table.print(out);
  std::string used;
  for (const auto& s : view.sources_used) used += (used.empty() ? "" : ", ") + s;
  out << "\n" << view.rows.size() << " registrations and " << view.schemas.size() << " schemas; "
      << view.disagreements.size() << " disagreements; from " << (used.empty() ? "nothing" : used)
      << " (--format json|dot|svg|png for the graph)\n";
  for (const auto& n : view.notes) out << "note: " << n << "\n";
}

void write_text(const std::string& text, const std::string& file, std::ostream& out) {
  if (file.empty() || file == "-") {
    out << text;
    return;
  }
  std::ofstream f(file, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) throw Error(file + ": cannot write");
}

}  // namespace

int run_ops(const CommandArgs& args, std::ostream& out) {
  const ArgumentParser parser = ops_parser();
  const ParsedArguments parsed = parser.parse(args);
  if (parsed.help) {
    out << parser.help();
    return 0;
  }
  const GraphOutputOptions output = read_graph_options(parsed);
  const std::string build = parsed.value("build");
  if (build.empty() && !parsed.has("registry") && !parsed.has("load"))
    throw UsageError("give --build BUILD_DIR, --registry FILE or --load LIB");

  RegistrationInputs inputs;
  std::optional<FileApiReply> reply;
  std::optional<SourceScan> scan;
  if (!build.empty()) {
    if (find_reply_index(build)) reply = read_file_api(build);
    else std::cerr << "glassbox: warning: " << build << " has no CMake File API reply: no libraries or targets\n";
    SourceScanOptions options;
    options.jobs = parsed.integer("jobs", 0);
    options.unit_filter = parsed.value("units");
    options.registering_units_only = parsed.has("registering-units");
    if (reply) options.source_root = reply->codemodel.source_dir;
    if (source_scan_available()) {
      scan = scan_sources(read_compile_database(build), options);
      for (const auto& e : scan->errors) std::cerr << "glassbox: error: " << e.file << " does not parse: " << e.message << "\n";
      inputs.sources = &*scan;
    } else {
      std::cerr << "glassbox: warning: built without libclang: the sources are not scanned\n";
    }
    inputs.reply = reply ? &*reply : nullptr;
  }
  if (parsed.has("registry")) {
    inputs.registry_json = read_text(parsed.value("registry"));
  } else if (parsed.has("load")) {
    inputs.registry_json = registry_json_from_libraries(parsed.values("load"));
  } else if (reply && !parsed.has("no-registry")) {
    const auto libs = engine_libraries(*reply);
    if (libs.empty()) std::cerr << "glassbox: warning: no glassbox_cpu library in " << build << ": registry not read\n";
    else inputs.registry_json = registry_json_from_libraries(libs);
  }

  // The binary side: registration blocks and their lines, read from the same libraries' ELF/DWARF.
  std::vector<std::string> binaries;
  if (parsed.has("binary")) binaries = parsed.values("binary");
  else if (parsed.has("load")) binaries = parsed.values("load");
  else if (reply) binaries = engine_libraries(*reply);
  if (!binaries.empty() && !parsed.has("no-binary")) {
    try {
      std::vector<std::string> kernels;  // to place at their definitions
      if (scan)
        for (const auto& r : scan->registrations)
          if (!r.kernel.empty() && r.kernel.front() != '(') kernels.push_back(r.kernel.starts_with("::") ? r.kernel.substr(2) : r.kernel);
      read_binary_side(binaries, inputs, kernels);
    } catch (const glassbox::Error& e) {
      if (parsed.has("binary")) throw;  // asked for by name
      std::cerr << "glassbox: warning: the binaries are not read: " << e.what() << "\n";
    }
  }

  RegistrationFilter filter;
  filter.op_regex = parsed.value("op");
  filter.key = parsed.value("key");
  const RegistrationView view = build_registration_view(inputs, filter);
  if (output.format != OutputFormat::Table)  // the table prints them below itself
    for (const auto& n : view.notes) std::cerr << "glassbox: note: " << n << "\n";
  if (output.format == OutputFormat::Table) {
    std::ostringstream text;
    print_ops_table(view, text);
    write_text(text.str(), output.output, out);
  } else if (output.format == OutputFormat::Json) {
    write_text(registration_view_to_json(view) + "\n", output.output, out);
  } else {
    GraphOutputOptions graph_output = output;
    graph_output.rankdir = parsed.value("rankdir", "LR");
    write_graph(view.graph, graph_output, out, [](const graphs::Graph&, std::ostream&) {});
  }
  return scan && !scan->errors.empty() ? 1 : 0;
}

}  // namespace glassbox::introspect::cli
