// glassbox deps BUILD_DIR: the module-dependency graph of a CMake build.
#include <fstream>
#include <iostream>
#include <sstream>

#include "graphs/html_explorer.h"
#include "introspect/buildtree/module_graph.h"
#include "introspect/buildtree/module_picture.h"
#include "introspect/cli/arguments.h"
#include "introspect/cli/commands.h"
#include "introspect/cli/graph_output.h"
#include "introspect/cli/text_table.h"

namespace glassbox::introspect::cli {
namespace {

ArgumentParser deps_parser() {
  ArgumentParser p("glassbox deps",
                   "The module-dependency graph of a CMake build (read from the CMake File API reply):\n"
                   "targets labelled by their artifacts (lib/libcore.so), the sources each compiles, and\n"
                   "the libraries each links. Link edges are the direct ones (each target's\n"
                   "target_link_libraries items, read with `cmake --graphviz` into BUILD_DIR/.glassbox/),\n"
                   "else those of the link command lines; build-order edges are drawn apart, dashed.\n"
                   "Custom (utility) targets, CTest's Continuous*/Nightly*/Experimental* among them, are\n"
                   "left out unless --utility-targets.");
  p.positional("BUILD_DIR", "a CMake build directory (configured with the Ninja or Makefile generators)");
  add_graph_options(p);
  p.flag("configure", "write the File API query into BUILD_DIR and re-run cmake there first")
      .option("cmake", "PATH", "the cmake to run with --configure (default: cmake)")
      .option("config", "NAME", "multi-config builds: the configuration to show (default: the first)")
      .flag("targets-only", "leave sources out")
      .flag("no-build-order", "leave build-order edges out")
      .flag("all-build-order", "keep build-order edges that repeat a link edge")
      .flag("generator-targets", "include generator targets (ALL_BUILD, ZERO_CHECK)")
      .flag("utility-targets", "include custom targets (add_custom_target, CTest's dashboard targets)")
      .flag("all-edges", "pictures: keep link and build-order edges that other edges imply")
      .flag("source-files", "pictures: one node per source file (default: per target, one per directory, counted)")
      .option("html", "FILE",
              "write a self-contained HTML explorer of the picture (pan, zoom, search, click a\n"
              "target for its sources with compile times and sizes); works offline")
      .flag("link-lines", "link edges from the link command lines (transitive) instead of cmake --graphviz")
      .epilog(
          "examples:\n"
          "  glassbox deps build/dev\n"
          "  glassbox deps build/dev -o deps.png        # targets, their source directories, external libraries\n"
          "  glassbox deps build/dev --collapse-sources --cluster -o deps.svg\n"
          "  glassbox deps build/dev --root glassbox_cuda --depth 1 --format dot");
  return p;
}

std::string short_type(std::string_view type) {
  if (type == "SHARED_LIBRARY") return "shared";
  if (type == "STATIC_LIBRARY") return "static";
  if (type == "MODULE_LIBRARY") return "module";
  if (type == "OBJECT_LIBRARY") return "object";
  if (type == "INTERFACE_LIBRARY") return "interface";
  if (type == "EXECUTABLE") return "executable";
  if (type == "UTILITY") return "custom";
  return std::string(type);
}

void print_deps_table(const graphs::Graph& g, std::ostream& out) {
  const auto& attrs = g.attributes();
  if (auto t = attrs.find("title"); t != attrs.end()) out << t->second << "\n\n";
  TextTable table({"target", "type", "artifact", ">sources", ">compile", "links", "built after", "defined at"});
  std::size_t externals = 0, files = 0;
  for (graphs::NodeIndex i = 0; i < g.node_count(); ++i) {
    const graphs::Node& n = g.node(i);
    if (n.kind == graphs::NodeKind::External) ++externals;
    if (!graphs::is_target_kind(n.kind)) {
      if (n.kind != graphs::NodeKind::External) ++files;
      continue;
    }
    std::size_t sources = 0;
    std::string links, after;
    for (auto e : g.out_edges(i)) {
      const graphs::Edge& edge = g.edge(e);
      const graphs::Node& to = g.node(edge.to);
      const std::string count(edge.attribute("count"));
      if (edge.kind == graphs::EdgeKind::Compiles) sources += count.empty() ? 1 : std::stoul(count);
      if (edge.kind == graphs::EdgeKind::Links) links += (links.empty() ? "" : ", ") + to.display_label();
      if (edge.kind == graphs::EdgeKind::Depends) after += (after.empty() ? "" : ", ") + to.id;
    }
    const std::string name(n.attribute("name").empty() ? std::string_view(n.id) : n.attribute("name"));
    const std::string artifact = n.display_label() == name ? "" : n.display_label();
    const std::string compile(n.attribute(graphs::attr::kCompileMs));
    const std::string site =
        n.attribute(graphs::attr::kFile).empty()
            ? ""
            : std::string(n.attribute(graphs::attr::kFile)) + ":" + std::string(n.attribute(graphs::attr::kLine));
    table.add_row({name, short_type(n.attribute(graphs::attr::kType)), artifact, sources ? std::to_string(sources) : "",
                   compile.empty() ? "" : format_ms(std::stoll(compile)), links, after, site});
  }
  table.print(out);
  out << "\n"
      << table.rows() << " targets, " << files << " files, " << externals << " external libraries; " << g.edge_count()
      << " edges (--format svg|png|dot|json to draw them)\n";
  if (auto m = attrs.find("link_edges"); m != attrs.end()) out << "link edges: " << m->second << "\n";
}

}  // namespace

int run_deps(const CommandArgs& args, std::ostream& out) {
  const ArgumentParser parser = deps_parser();
  const ParsedArguments parsed = parser.parse(args);
  if (parsed.help) {
    out << parser.help();
    return 0;
  }
  GraphOutputOptions output = read_graph_options(parsed);
  FileApiOptions file_api;
  file_api.configure = parsed.has("configure");
  file_api.cmake = parsed.value("cmake", "cmake");
  ModuleGraphOptions options;
  options.configuration = parsed.value("config");
  options.sources = !parsed.has("targets-only");
  options.build_order = !parsed.has("no-build-order");
  options.redundant_build_order = parsed.has("all-build-order");
  options.generator_targets = parsed.has("generator-targets");
  options.utility_targets = parsed.has("utility-targets");
  if (parsed.has("link-lines")) options.link_edges = ModuleGraphOptions::LinkEdges::LinkLines;
  options.cmake = parsed.value("cmake");

  const BuildDirInputs inputs = read_build_dir(parsed.positional("BUILD_DIR"), file_api, options);
  for (const auto& w : inputs.warnings) std::cerr << "glassbox: warning: " << w << "\n";
  const graphs::Graph graph = build_module_graph(inputs.reply, inputs.compile_db ? &*inputs.compile_db : nullptr,
                                                 inputs.ninja_log ? &*inputs.ninja_log : nullptr, options,
                                                 inputs.direct_links ? &*inputs.direct_links : nullptr);
  // Pictures show the layering: implied edges left out, sources counted per directory.
  const bool html = parsed.has("html");
  const bool picture = html || output.format == OutputFormat::Dot || output.format == OutputFormat::Svg ||
                       output.format == OutputFormat::Png;
  if (picture) {
    ModulePictureOptions view;
    view.all_edges = parsed.has("all-edges");
    if (!output.filters.roots.empty() || parsed.has("source-files"))
      view.max_executables = 0;  // keep what was asked for
    view.group_sources = options.sources && !parsed.has("source-files") && !output.filters.collapse_sources &&
                         !output.filters.cluster_by_directory;
    if (!html) {
      write_graph(module_picture(graph, view), output, out, print_deps_table);
      return 0;
    }
    GraphOutputOptions svg = output;
    svg.format = OutputFormat::Svg;
    svg.output.clear();
    svg.links = false;  // a click selects; it must not follow a file:// link
    std::ostringstream image;
    write_graph(module_picture(graph, view), svg, image, print_deps_table);
    graphs::HtmlExplorerOptions page;
    if (auto t = graph.attributes().find("title"); t != graph.attributes().end()) page.title = t->second;
    const std::string file = parsed.value("html");
    std::ofstream html_file(file, std::ios::binary | std::ios::trunc);
    if (!html_file) throw Error(file + ": cannot open for writing");
    html_file << graphs::html_explorer(image.str(), graph, page);
    if (!html_file) throw Error(file + ": write failed");
    out << "explorer written to " << file << "\n";
    return 0;
  }
  write_graph(graph, output, out, print_deps_table);
  return 0;
}

}  // namespace glassbox::introspect::cli
