#include "introspect/buildtree/module_picture.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "graphs/collapse.h"
#include "graphs/reduction.h"

namespace glassbox::introspect {
namespace {

using graphs::EdgeKind;
using graphs::NodeKind;
namespace attr = graphs::attr;

bool is_file_kind(NodeKind kind) {
  return kind == NodeKind::Source || kind == NodeKind::Header || kind == NodeKind::GeneratedSource;
}

constexpr std::string_view kExternalBox = "external libraries";
const std::string kExecutablesIn = "executables in ";          // id (and box) of folded executables
constexpr std::string_view kWrapsExternal = "wraps_external";  // an interface target drawn with the external libraries

// Executables under one top-level source directory fold into one node ("tools/ 31 executables"),
// when there are more than `max` in all and at least two in the directory.
graphs::Graph group_executables(const graphs::Graph& g, std::size_t max) {
  std::string root;
  if (auto it = g.attributes().find(attr::kSourceRoot); it != g.attributes().end()) root = it->second;
  std::map<std::string, std::vector<graphs::NodeIndex>> by_top;
  std::size_t executables = 0;
  for (graphs::NodeIndex i = 0; i < g.node_count(); ++i) {
    const graphs::Node& node = g.node(i);
    if (node.kind != NodeKind::Executable) continue;
    ++executables;
    const std::string dir = graphs::path_relative_to(std::string(node.attribute(attr::kDirectory)), root);
    if (dir.empty() || dir == "." || dir.front() == '/') continue;
    by_top[dir.substr(0, dir.find('/'))].push_back(i);
  }
  if (max == 0 || executables <= max) return g;
  graphs::Contraction c;
  c.into.assign(g.node_count(), "");
  c.fold_kind.assign(g.node_count(), NodeKind::Executable);
  c.fold_label.assign(g.node_count(), "");
  for (const auto& [top, members] : by_top) {
    if (members.size() < 2) continue;
    for (graphs::NodeIndex i : members) c.into[i] = kExecutablesIn + top;
  }
  graphs::Graph result = graphs::contract(g, c);
  for (const auto& [top, members] : by_top) {
    if (members.size() < 2) continue;
    const auto i = result.index_of(kExecutablesIn + top);
    result.set_label(i, std::to_string(members.size()) + " executables");
    result.set_attribute(i, std::string(attr::kType), "EXECUTABLE");
  }
  return result;
}

struct DirectoryTotals {
  std::size_t files = 0;
  long long compile_ms = 0;
  bool timed = false;
};

constexpr std::size_t kListedDirectories = 8;

// Each target's files fold into one node beside it, listing its source directories with how many
// files each holds and their summed compile time, slowest first; target and list share a box.
graphs::Graph group_sources(const graphs::Graph& g) {
  graphs::Contraction c;
  c.into.assign(g.node_count(), "");
  c.fold_kind.assign(g.node_count(), NodeKind::Directory);
  c.fold_label.assign(g.node_count(), "");
  std::map<std::string, std::map<std::string, DirectoryTotals>> per_target;  // target id -> directory -> totals
  for (const graphs::Edge& e : g.edges()) {
    const graphs::Node& file = g.node(e.to);
    if (e.kind != EdgeKind::Compiles || !is_file_kind(file.kind)) continue;
    const std::string& target = g.node(e.from).id;
    // A file compiled by several targets is counted in each list; its node folds into the first.
    if (c.into[e.to].empty()) c.into[e.to] = "files:" + target;
    // The file's directory as the graph names it: relative to the sources, or "<build>/...".
    std::string dir = std::filesystem::path(file.display_label()).parent_path().string();
    DirectoryTotals& totals = per_target[target][dir.empty() ? "." : dir];
    ++totals.files;
    if (auto ms = file.attribute(attr::kCompileMs); !ms.empty()) {
      totals.compile_ms += std::stoll(std::string(ms));
      totals.timed = true;
    }
  }
  graphs::Graph folded = graphs::contract(g, c);
  // Each target points at its own list only (a shared file's fold made edges to another's).
  graphs::Graph result(folded.name());
  for (const auto& [key, value] : folded.attributes()) result.set_attribute(key, value);
  for (const graphs::Node& n : folded.nodes()) result.add_node(n.id, n.kind, n.label, n.attributes);
  for (const auto& [target, dirs] : per_target) {
    if (!result.contains("files:" + target)) result.add_node("files:" + target, NodeKind::Directory);
  }
  for (const graphs::Edge& e : folded.edges()) {
    const std::string& to = folded.node(e.to).id;
    if (e.kind == EdgeKind::Compiles && to.rfind("files:", 0) == 0 && to != "files:" + folded.node(e.from).id) continue;
    result.add_edge(e.from, e.to, e.kind, e.label, e.attributes);
  }
  for (const auto& [target, dirs] : per_target)
    result.ensure_edge(result.index_of(target), result.index_of("files:" + target), EdgeKind::Compiles);
  for (const auto& [target, dirs] : per_target) {
    std::vector<std::pair<std::string, DirectoryTotals>> rows(dirs.begin(), dirs.end());
    std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
      return x.second.compile_ms != y.second.compile_ms ? x.second.compile_ms > y.second.compile_ms
                                                        : x.second.files > y.second.files;
    });
    std::size_t files = 0;
    for (const auto& [dir, totals] : rows) files += totals.files;
    std::string label = std::to_string(files) + (files == 1 ? " file" : " files");
    if (rows.size() > 1) label += " in " + std::to_string(rows.size()) + " directories";
    label += '\v';
    for (std::size_t i = 0; i < rows.size() && i < kListedDirectories; ++i) {
      const auto& [dir, totals] = rows[i];
      label += dir + "/  " + std::to_string(totals.files);
      if (totals.timed) label += ", " + short_duration(totals.compile_ms);
      label += '\v';
    }
    if (rows.size() > kListedDirectories)
      label += "... " + std::to_string(rows.size() - kListedDirectories) + " more\v";
    const auto list = result.index_of("files:" + target);
    result.set_label(list, label);
    result.set_attribute(list, std::string(attr::kCount), std::to_string(files));
    result.set_attribute(list, std::string(attr::kCluster), target);
    result.set_attribute(result.index_of(target), std::string(attr::kCluster), target);
  }
  return result;
}

// Imported targets often wrap other imported targets and files (PkgConfig::OPENBLAS -> libopenblas.so,
// CUDA::cublas -> cublasLt, culibos). Each external library a project target links keeps its node;
// the externals reached only through it fold into it and are named in its label.
graphs::Graph group_externals(const graphs::Graph& g) {
  const std::size_t n = g.node_count();
  // An INTERFACE target without sources that links only external libraries wraps them
  // (glassbox_openblas -> PkgConfig::OPENBLAS -> libopenblas.so): it is drawn with them.
  std::vector<bool> wrapper(n, false), has_files(n, false);
  for (const graphs::Edge& e : g.edges())
    if (e.kind == EdgeKind::Compiles) has_files[e.from] = true;
  for (graphs::NodeIndex i = 0; i < n; ++i) {
    if (g.node(i).attribute(attr::kType) != "INTERFACE_LIBRARY" || has_files[i] || g.out_edges(i).empty()) continue;
    wrapper[i] = true;
    for (graphs::EdgeIndex e : g.out_edges(i))
      if (g.node(g.edge(e).to).kind != NodeKind::External) wrapper[i] = false;
  }
  auto is_external = [&](graphs::NodeIndex i) { return g.node(i).kind == NodeKind::External || wrapper[i]; };
  std::vector<bool> linked_by_project(n, false);
  for (const graphs::Edge& e : g.edges())
    if (is_external(e.to) && !is_external(e.from)) linked_by_project[e.to] = true;
  // owner[i]: the one project-linked external that reaches external i, or n when none or several.
  std::vector<graphs::NodeIndex> owner(n, n);
  std::vector<bool> shared(n, false);
  for (graphs::NodeIndex top = 0; top < n; ++top) {
    if (!linked_by_project[top]) continue;
    std::vector<graphs::NodeIndex> stack = {top};
    std::vector<bool> seen(n, false);
    seen[top] = true;
    while (!stack.empty()) {
      const graphs::NodeIndex at = stack.back();
      stack.pop_back();
      for (graphs::EdgeIndex e : g.out_edges(at)) {
        const graphs::NodeIndex next = g.edge(e).to;
        if (!is_external(next) || linked_by_project[next] || seen[next]) continue;
        seen[next] = true;
        if (owner[next] != n && owner[next] != top) shared[next] = true;
        owner[next] = top;
        stack.push_back(next);
      }
    }
  }
  graphs::Contraction c;
  c.into.assign(n, "");
  c.fold_kind.assign(n, NodeKind::External);
  c.fold_label.assign(n, "");
  std::map<graphs::NodeIndex, std::vector<std::string>> members;
  for (graphs::NodeIndex i = 0; i < n; ++i) {
    if (owner[i] == n || shared[i]) continue;
    c.into[i] = g.node(owner[i]).id;
    members[owner[i]].push_back(g.node(i).display_label());
  }
  graphs::Graph result = graphs::contract(g, c);
  for (graphs::NodeIndex i = 0; i < n; ++i)
    if (wrapper[i]) result.set_attribute(result.index_of(g.node(i).id), std::string(kWrapsExternal), "true");
  for (const auto& [top, names] : members) {
    // The library files when there are any (what gets loaded), else the imported targets' names.
    std::vector<std::string> shown;
    for (const auto& name : names)
      if (name.rfind("lib", 0) == 0) shown.push_back(name);
    if (shown.empty()) shown = names;
    std::string list;
    for (const auto& name : shown) list += (list.empty() ? "" : ", ") + name;
    if (list.size() > 40) list = "+ " + std::to_string(shown.size()) + " more";
    const auto i = result.index_of(g.node(top).id);
    result.set_label(i, result.node(i).display_label() + "\n(" + list + ")");
  }
  return result;
}

}  // namespace

std::string short_duration(long long ms) {
  char text[32];
  if (ms < 1000) std::snprintf(text, sizeof text, "%lld ms", ms);
  else if (ms < 60'000) std::snprintf(text, sizeof text, "%.1f s", ms / 1000.0);
  else if (ms < 3'600'000) std::snprintf(text, sizeof text, "%lld min %02lld s", ms / 60'000, ms / 1000 % 60);
  else std::snprintf(text, sizeof text, "%lld h %02lld min", ms / 3'600'000, ms / 60'000 % 60);
  return text;
}

graphs::Graph module_picture(const graphs::Graph& module_graph, const ModulePictureOptions& options) {
  graphs::Graph g = group_executables(module_graph, options.max_executables);
  if (options.group_sources) g = group_sources(g);
  if (options.group_external) {
    g = group_externals(g);
    for (graphs::NodeIndex i = 0; i < g.node_count(); ++i)
      if (g.node(i).kind == NodeKind::External || g.node(i).attribute(kWrapsExternal) == "true")
        g.set_attribute(i, std::string(attr::kCluster), std::string(kExternalBox));
  }
  // Targets are named by their box; the node shows the artifact's file name alone.
  for (graphs::NodeIndex i = 0; i < g.node_count(); ++i) {
    const graphs::Node& node = g.node(i);
    if (graphs::is_target_kind(node.kind) && !node.attribute(attr::kCluster).empty() &&
        node.attribute(attr::kCluster) != kExternalBox && node.id.rfind(kExecutablesIn, 0) != 0 &&
        node.label.find('/') != std::string::npos) {
      g.set_label(i, std::filesystem::path(node.label).filename().string());
    }
  }
  g.set_attribute("dot:ranksep", "0.3");
  g.set_attribute("dot:nodesep", "0.15");
  if (!options.all_edges) {
    g = graphs::transitive_reduction(g, EdgeKind::Depends, {EdgeKind::Links, EdgeKind::Depends});
    g = graphs::transitive_reduction(g, EdgeKind::Links);
  }
  return g;
}

}  // namespace glassbox::introspect
