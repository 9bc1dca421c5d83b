// glassbox ops: the registration table and graph of operators, joined from the running registry
// (JSON), the sources (libclang), the binaries (ELF symbols and DWARF) and the build (CMake File API).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "engine/core/error.h"
#include "introspect/buildtree/file_api.h"
#include "introspect/cli/arguments.h"
#include "introspect/cli/commands.h"
#include "introspect/cli/graph_output.h"
#include "introspect/cli/text_table.h"
#include "introspect/registry/registration_graph.h"
#include "introspect/registry/registration_inputs.h"
#include "introspect/registry/torch_registrations.h"
#include "introspect/source/source_scan.h"

namespace glassbox::introspect::cli {
namespace {

ArgumentParser ops_parser() {
  ArgumentParser p(
      "glassbox ops",
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
      .option("binary", "LIB",
              "read this binary's registrations (repeatable; default: the --load libraries, "
              "else the build's engine libraries)",
              "", true)
      .option("units", "REGEX", "with --build: scan only the translation units whose path matches")
      .option("jobs", "N", "with --build: parse N units at a time (default: one per core)", "j")
      .flag("registering-units",
            "with --build: parse only units with a line opening a registration block (faster; "
            "kernels are then placed at their declarations)")
      .option("torch", "PYTHON",
              "real PyTorch: read its live registry with this interpreter (one that can import "
              "torch), in a child process with a time limit; where it cannot, and --torch-lib is given, a C++ reader "
              "built against that wheel's headers loads libc10.so + libtorch_cpu.so instead")
      .option("torch-lib", "DIR",
              "real PyTorch: its torch/lib folder, whose libtorch_cpu.so (and libtorch_cuda.so) "
              "are read for the binary side (default: the live torch's); alone, the binaries are all there is")
      .flag("torch-cpu-only", "real PyTorch: do not read libtorch_cuda.so")
      .option("torch-reader", "FILE",
              "real PyTorch: the live registry reader (default: the source tree's "
              "python/glassbox/introspect_torch.py)")
      .option("timeout", "S", "real PyTorch: stop reading the live registry after S seconds (default 300)")
      .flag("dispatch-table",
            "also print each operator's computed dispatch table, as PyTorch's "
            "_dispatch_dump_table prints it (from the live registry)")
      .epilog(
          "examples:\n"
          "  glassbox ops --build build/dev --op '^glassbox::add\\.Tensor$'\n"
          "  glassbox ops --build build/dev --op matmul --format svg -o matmul.svg\n"
          "  python -c 'import glassbox; print(glassbox.registry.to_json())' > reg.json\n"
          "  glassbox ops --registry reg.json --key CPU\n"
          "  glassbox ops --torch ~/.cache/glassbox/torch-venv-cp311/bin/python --op 'aten::add\\.Tensor'\n"
          "  glassbox ops --torch-lib .../site-packages/torch/lib --op 'aten::add\\.Tensor'   # binaries alone");
  return p;
}

std::string read_text(const std::string& file) {
  if (file == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file + ": cannot be read");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void print_ops_table(const RegistrationView& view, std::ostream& out) {
  TextTable table(
      {"operator", "key", "serves", "kernel", "registered at", "kernel at", "library", "target", "agreement"});
  for (const auto& r : view.rows)
    table.add_row({r.op, r.key, r.serves, r.inferred && !r.kernel.empty() ? r.kernel + " (inferred)" : r.kernel,
                   r.registered_at, r.kernel_at, r.library, r.target, r.agreement()});
  table.print(out);
  std::string used;
  for (const auto& s : view.sources_used) used += (used.empty() ? "" : ", ") + s;
  out << "\n"
      << view.rows.size() << " registrations and " << view.schemas.size() << " schemas; " << view.disagreements.size()
      << " disagreements; from " << (used.empty() ? "nothing" : used) << " (--format json|dot|svg|png for the graph)\n";
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

void print_torch_agreement(const RegistrationView& view, std::ostream& out) {
  const TorchAgreement a = torch_agreement(view);
  if (a.live == 0 || a.binary == 0) return;
  char pairs[32], triples[32];
  std::snprintf(pairs, sizeof pairs, "%.1f%%", a.pair_percent());
  std::snprintf(triples, sizeof triples, "%.1f%%", a.percent());
  out << "binary alone vs live registry, aten operators: " << a.agree << " of " << a.all()
      << " (operator, key, kernel) triples agree (" << triples << "); (operator, key) pairs " << a.both << " of "
      << a.all() << " (" << pairs << "); live " << a.live << ", binary " << a.binary << "; kernels checked by name "
      << a.kernel_checked << ", unnamed by the binary " << a.kernel_unnamed << "; " << a.from_python
      << " registered from Python (in no binary) left out\n";
  for (const auto& e : a.live_only) out << "  live only: " << e << "\n";
  for (const auto& e : a.binary_only) out << "  binary only: " << e << "\n";
  for (const auto& e : a.kernel_differs) out << "  kernel differs: " << e << "\n";
}

// `glassbox ops --torch PYTHON` / `--torch-lib DIR`: real PyTorch's registrations, live and from
// its binaries, through the same view as glassbox's.
int run_torch_ops(const ParsedArguments& parsed, const GraphOutputOptions& output, std::ostream& out) {
  RegistrationInputs inputs;
  std::string lib_dir = parsed.value("torch-lib");
  std::vector<std::string> notes;
  if (parsed.has("torch")) {
    TorchLiveOptions live;
    live.python = parsed.value("torch");
    live.reader = parsed.value("torch-reader", GLASSBOX_TORCH_READER);
    live.op_regex = parsed.value("op");
    live.timeout_seconds = parsed.integer("timeout", 300);
    // Where this interpreter cannot import torch, the wheel's own headers and libraries can still be read.
    if (!lib_dir.empty()) {
      std::filesystem::path lib = std::filesystem::path(lib_dir).lexically_normal();
      if (!lib.has_filename()) lib = lib.parent_path();  // ".../torch/lib/"
      live.torch_dir = lib.parent_path().string();
    }
    try {
      inputs.registry_json = torch_live_registry_json(live);
      const TorchLiveInfo info = torch_live_info(*inputs.registry_json);
      if (lib_dir.empty()) lib_dir = info.lib_dir;
      notes.push_back("live registry: " + info.producer + " through " + live.python);
    } catch (const glassbox::Error& e) {
      if (lib_dir.empty()) throw;
      std::cerr << "glassbox: warning: " << e.what() << "\nglassbox: the binaries alone are read (" << lib_dir << ")\n";
    }
  }
  if (!lib_dir.empty() && !parsed.has("no-binary")) {
    const auto libs = torch_kernel_libraries(lib_dir, !parsed.has("torch-cpu-only"));
    if (libs.empty()) {
      notes.push_back(lib_dir + " has no libtorch_cpu.so: the binary side is not read");
    } else {
      TorchBinaryKernels bin = read_torch_binaries(libs);
      for (auto& n : bin.notes) notes.push_back(std::move(n));
      notes.push_back("binaries: " + std::to_string(bin.schemas) + " operator schemas, " +
                      std::to_string(bin.boxed_kernels) + " kernels behind TORCH_FN boxing wrappers, " +
                      std::to_string(bin.boxed_kernels - bin.unplaced) +
                      " of them placed at an (operator, key) by "
                      "their names, " +
                      std::to_string(bin.not_in_blocks) +
                      " of which are for a key no registration "
                      "block is for (left out: not registered at load); " +
                      std::to_string(bin.from_block_code) +
                      " more (operator, key) registrations "
                      "from the code of " +
                      std::to_string(bin.blocks) +
                      " TORCH_LIBRARY_IMPL blocks (all inferred); "
                      "where both place a kernel, the block's and the name's agree on " +
                      std::to_string(bin.block_kernels_agree) + " of " + std::to_string(bin.block_kernels_checked));
      inputs.binary = std::move(bin.registrations);
      for (const auto& lib : bin.libraries)
        if (lib.has_symtab && !lib.has_lines)
          notes.push_back(lib.library + ": no DWARF: the kernels have no file:line");
      // Not handed to the join: its notes are about registration blocks, not read here.
      inputs.kernel_definitions = std::move(bin.definitions);
    }
  }
  if (!inputs.registry_json && !inputs.binary) {
    std::string why;
    for (const auto& n : notes) why += "; " + n;
    throw ValueError("ops: no PyTorch registry or binary could be read" + why);
  }

  RegistrationFilter filter;
  filter.op_regex = parsed.value("op");
  filter.key = parsed.value("key");
  RegistrationView view = build_registration_view(inputs, filter);
  for (auto& n : notes) view.notes.push_back(std::move(n));
  if (output.format == OutputFormat::Table) {
    std::ostringstream text;
    print_ops_table(view, text);
    if (inputs.registry_json && inputs.binary) print_torch_agreement(view, text);
    if (parsed.has("dispatch-table") && inputs.registry_json)
      text << "\n" << torch_dispatch_table_text(*inputs.registry_json, filter.op_regex);
    write_text(text.str(), output.output, out);
    return 0;
  }
  for (const auto& n : view.notes) std::cerr << "glassbox: note: " << n << "\n";
  if (output.format == OutputFormat::Json) {
    write_text(registration_view_to_json(view) + "\n", output.output, out);
  } else {
    GraphOutputOptions graph_output = output;
    graph_output.rankdir = parsed.value("rankdir", "LR");
    write_graph(view.graph, graph_output, out, [](const graphs::Graph&, std::ostream&) {});
  }
  return 0;
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
  if (parsed.has("torch") || parsed.has("torch-lib")) return run_torch_ops(parsed, output, out);
  const std::string build = parsed.value("build");
  if (build.empty() && !parsed.has("registry") && !parsed.has("load"))
    throw UsageError("give --build BUILD_DIR, --registry FILE, --load LIB, --torch PYTHON or --torch-lib DIR");

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
      for (const auto& e : scan->errors)
        std::cerr << "glassbox: error: " << e.file << " does not parse: " << e.message << "\n";
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
          if (!r.kernel.empty() && r.kernel.front() != '(')
            kernels.push_back(r.kernel.starts_with("::") ? r.kernel.substr(2) : r.kernel);
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
