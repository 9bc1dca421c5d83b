#pragma once
// What the graph-drawing commands (deps, includes) share: the --format/-o/filter options, applying
// them to a graph, and writing the result as a table, JSON, DOT, SVG or PNG.
#include <functional>
#include <ostream>
#include <string>

#include "graphs/filters.h"
#include "graphs/graph.h"
#include "introspect/cli/arguments.h"

namespace glassbox::introspect::cli {

enum class OutputFormat { Table, Json, Dot, Svg, Png };

struct GraphOutputOptions {
  OutputFormat format = OutputFormat::Table;
  std::string output;  // -o FILE; "" for stdout
  graphs::FilterOptions filters;
  std::string engine;  // Graphviz layout engine; "" chooses by size
  std::string rankdir = "LR";
  bool legend = false;
  bool links = true;  // file:// links on nodes in SVG
};

// Adds --format, --json/--dot/--svg/--png, -o, --include, --exclude, --root, --depth, --no-system,
// --collapse-sources, --cluster, --cluster-depth, --engine, --rankdir, --legend, --no-links.
void add_graph_options(ArgumentParser& parser);
GraphOutputOptions read_graph_options(const ParsedArguments& args);

// Maps each --root to a node id: an id, else a node whose label or "name" attribute equals it.
// Throws glassbox::Error listing a few candidates when nothing matches.
void resolve_roots(const graphs::Graph& graph, graphs::FilterOptions& filters);

// Applies the filters, then writes the graph in the chosen format to -o or `out`. `print_table`
// writes the command's own table for --format table.
void write_graph(const graphs::Graph& graph, GraphOutputOptions options, std::ostream& out,
                 const std::function<void(const graphs::Graph&, std::ostream&)>& print_table);

}  // namespace glassbox::introspect::cli
