// glassbox includes BUILD_DIR: the include graph Ninja recorded.
#include <algorithm>
#include <iostream>

#include "introspect/buildtree/file_api.h"
#include "introspect/buildtree/include_graph.h"
#include "introspect/cli/arguments.h"
#include "introspect/cli/commands.h"
#include "introspect/cli/graph_output.h"
#include "introspect/cli/text_table.h"
#include "introspect/support/process.h"

namespace glassbox::introspect::cli {
namespace {

ArgumentParser includes_parser() {
  ArgumentParser p("glassbox includes",
                   "The headers each translation unit included, as Ninja recorded them from the compiler's\n"
                   "depfiles (BUILD_DIR/.ninja_deps; `ninja -t deps` when that cannot be read). Headers\n"
                   "outside the source and build trees are external (--no-system hides them).");
  p.positional("BUILD_DIR", "a Ninja build directory that has been built");
  p.option("source", "FILE", "only translation units whose path ends with FILE");
  p.option("source-root", "DIR", "the project's source directory (default: from the CMake File API reply)");
  p.option("top", "N", "rows in the table (default 20)");
  add_graph_options(p);
  return p;
}

void print_includes_table(const graphs::Graph& g, std::size_t top, std::ostream& out) {
  std::vector<std::pair<std::size_t, graphs::NodeIndex>> headers, sources;
  for (graphs::NodeIndex i = 0; i < g.node_count(); ++i) {
    const auto& n = g.node(i);
    if (n.kind == graphs::NodeKind::Source) sources.push_back({g.out_edges(i).size(), i});
    else headers.push_back({g.in_edges(i).size(), i});
  }
  auto by_count = [](const auto& a, const auto& b) { return a.first > b.first; };
  std::stable_sort(headers.begin(), headers.end(), by_count);
  std::stable_sort(sources.begin(), sources.end(), by_count);
  out << sources.size() << " translation units, " << headers.size() << " headers, " << g.edge_count()
      << " includes\n\n";
  out << "most included headers\n";
  TextTable h({">TUs", "kind", "header"});
  for (std::size_t i = 0; i < headers.size() && i < top; ++i) {
    const auto& n = g.node(headers[i].second);
    h.add_row({std::to_string(headers[i].first), std::string(graphs::to_string(n.kind)), elide_front(n.id, 80)});
  }
  h.print(out);
  out << "\ntranslation units with the most headers\n";
  TextTable s({">headers", "source"});
  for (std::size_t i = 0; i < sources.size() && i < top; ++i) {
    s.add_row({std::to_string(sources[i].first), elide_front(g.node(sources[i].second).id, 80)});
  }
  s.print(out);
}

}  // namespace

int run_includes(const CommandArgs& args, std::ostream& out) {
  const ArgumentParser parser = includes_parser();
  const ParsedArguments parsed = parser.parse(args);
  if (parsed.help) {
    out << parser.help();
    return 0;
  }
  const std::filesystem::path build_dir = parsed.positional("BUILD_DIR");
  const NinjaDeps deps = read_ninja_deps(build_dir, find_program("ninja"));
  if (deps.truncated)
    std::cerr << "glassbox: warning: " << deps.file << ": ends inside a record (kept what came before)\n";

  IncludeGraphOptions options;
  options.build_root = std::filesystem::absolute(build_dir).lexically_normal().string();
  if (!options.build_root.empty() && options.build_root.back() == '/') options.build_root.pop_back();
  options.source = parsed.value("source");
  options.source_root = parsed.value("source-root");
  if (options.source_root.empty() && find_reply_index(build_dir)) {
    try {
      options.source_root = read_file_api(build_dir).codemodel.source_dir;
    } catch (const Error& e) {
      std::cerr << "glassbox: warning: " << e.what() << "\n";
    }
  }
  const graphs::Graph graph = build_include_graph(deps, options);
  const std::size_t top = static_cast<std::size_t>(std::max(1, parsed.integer("top", 20)));
  write_graph(graph, read_graph_options(parsed), out,
              [top](const graphs::Graph& g, std::ostream& o) { print_includes_table(g, top, o); });
  return 0;
}

}  // namespace glassbox::introspect::cli
