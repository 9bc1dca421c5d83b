#include "introspect/cli/graph_output.h"

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "graphs/dot_writer.h"
#include "graphs/json_writer.h"
#include "graphs/render.h"

namespace glassbox::introspect::cli {
namespace {

OutputFormat parse_format(const std::string& name) {
  if (name == "table") return OutputFormat::Table;
  if (name == "json") return OutputFormat::Json;
  if (name == "dot") return OutputFormat::Dot;
  if (name == "svg") return OutputFormat::Svg;
  if (name == "png") return OutputFormat::Png;
  throw UsageError("--format must be table, json, dot, svg or png (got \"" + name + "\")");
}

OutputFormat format_from_extension(const std::string& file, OutputFormat fallback) {
  const auto ext = std::filesystem::path(file).extension().string();
  if (ext == ".json") return OutputFormat::Json;
  if (ext == ".dot" || ext == ".gv") return OutputFormat::Dot;
  if (ext == ".svg") return OutputFormat::Svg;
  if (ext == ".png") return OutputFormat::Png;
  return fallback;
}

void write_bytes(const std::string& bytes, const std::string& file, std::ostream& out) {
  if (file.empty() || file == "-") {
    out << bytes;
    return;
  }
  std::ofstream f(file, std::ios::binary | std::ios::trunc);
  if (!f) throw Error(file + ": cannot open for writing");
  f << bytes;
  if (!f) throw Error(file + ": write failed");
}

}  // namespace

void add_graph_options(ArgumentParser& parser) {
  parser.option("format", "FORMAT", "table (default), json, dot, svg or png")
      .flag("json", "same as --format json")
      .flag("dot", "same as --format dot")
      .flag("svg", "same as --format svg")
      .flag("png", "same as --format png")
      .option("output", "FILE", "write to FILE (the format follows its extension unless --format is given)", "o")
      .option("include", "REGEX", "keep only nodes whose id or label matches", "", true)
      .option("exclude", "REGEX", "drop nodes whose id or label matches", "", true)
      .option("root", "NAME",
              "keep what is reachable from NAME (a target, its alias or artifact file name, a file or node id)", "",
              true)
      .option("depth", "N", "with --root: at most N edges away")
      .flag("both-directions", "with --root: follow edges both ways (who uses it, too)")
      .flag("no-system", "hide external nodes (system and imported libraries, system headers)")
      .flag("collapse-sources", "fold sources into one node per directory")
      .flag("cluster", "draw nodes in boxes by source directory")
      .option("cluster-depth", "N", "with --cluster: at most N directory levels")
      .option("engine", "NAME", "Graphviz layout: dot, sfdp, neato, ... (default: by size)")
      .option("rankdir", "DIR", "dot's direction: LR (default), TB, RL, BT")
      .flag("legend", "add a legend of node and edge kinds")
      .flag("no-links", "SVG without file:// links on nodes (for images published elsewhere)");
}

GraphOutputOptions read_graph_options(const ParsedArguments& args) {
  GraphOutputOptions o;
  o.output = args.value("output");
  if (!o.output.empty()) o.format = format_from_extension(o.output, OutputFormat::Table);
  for (const char* shortcut : {"json", "dot", "svg", "png"})
    if (args.has(shortcut)) o.format = parse_format(shortcut);
  if (args.has("format")) o.format = parse_format(args.value("format"));
  o.filters.include = args.values("include");
  o.filters.exclude = args.values("exclude");
  o.filters.roots = args.values("root");
  o.filters.depth = args.integer("depth", -1);
  if (args.has("depth") && o.filters.roots.empty()) throw UsageError("--depth needs --root NAME");
  if (args.has("both-directions")) o.filters.direction = graphs::Direction::Both;
  o.filters.hide_external = args.has("no-system");
  o.filters.collapse_sources = args.has("collapse-sources");
  o.filters.cluster_by_directory = args.has("cluster");
  o.filters.clusters.max_depth = args.integer("cluster-depth", 0);
  o.engine = args.value("engine");
  o.rankdir = args.value("rankdir", "LR");
  o.legend = args.has("legend");
  o.links = !args.has("no-links");
  return o;
}

void resolve_roots(const graphs::Graph& graph, graphs::FilterOptions& filters) {
  for (auto& root : filters.roots) {
    if (graph.contains(root)) continue;
    std::string found;
    // A target's name, label (its artifact path), ALIAS ("ns::name") or artifact file name.
    for (const auto& n : graph.nodes()) {
      if (n.label == root || n.attribute("name") == root) {
        found = n.id;
        break;
      }
    }
    for (const auto& n : graph.nodes()) {
      if (!found.empty()) break;
      const std::string aliases = "," + std::string(n.attribute("aliases")) + ",";
      const std::string path(n.attribute(graphs::attr::kPath));
      if (aliases.find("," + root + ",") != std::string::npos ||
          (graphs::is_target_kind(n.kind) && !path.empty() && std::filesystem::path(path).filename() == root)) {
        found = n.id;
      }
    }
    if (found.empty()) {
      std::string candidates;
      int shown = 0;
      for (const auto& n : graph.nodes()) {
        if (!graphs::is_target_kind(n.kind) || shown == 8) continue;
        candidates += (shown++ ? ", " : "") + n.id;
      }
      throw Error("--root " + root + ": no such node (targets: " + candidates + (shown == 8 ? ", ..." : "") + ")");
    }
    root = found;
  }
}

void write_graph(const graphs::Graph& graph, GraphOutputOptions options, std::ostream& out,
                 const std::function<void(const graphs::Graph&, std::ostream&)>& print_table) {
  resolve_roots(graph, options.filters);
  const std::string source_root(graph.attributes().count("source_root") ? graph.attributes().at("source_root") : "");
  if (options.filters.cluster_by_directory && options.filters.clusters.root.empty()) {
    options.filters.clusters.root = source_root;
  }
  const graphs::Graph shown = graphs::apply_filters(graph, options.filters);

  graphs::DotOptions dot;
  dot.rankdir = options.rankdir;
  dot.legend = options.legend;
  dot.links = options.links;
  dot.source_root = source_root;
  switch (options.format) {
    case OutputFormat::Table: {
      std::ostringstream text;
      print_table(shown, text);
      write_bytes(text.str(), options.output, out);
      return;
    }
    case OutputFormat::Json: write_bytes(graphs::to_json(shown), options.output, out); return;
    case OutputFormat::Dot: write_bytes(graphs::to_dot(shown, dot), options.output, out); return;
    case OutputFormat::Svg:
    case OutputFormat::Png: {
      const bool png = options.format == OutputFormat::Png;
      if (png && (options.output.empty() || options.output == "-") && isatty(STDOUT_FILENO)) {
        throw UsageError("PNG output needs -o FILE (or a redirect)");
      }
      graphs::RenderOptions render;
      render.format = png ? graphs::ImageFormat::Png : graphs::ImageFormat::Svg;
      render.engine = options.engine;
      write_bytes(graphs::render(shown, render, dot), options.output, out);
      return;
    }
  }
}

}  // namespace glassbox::introspect::cli
