#include "graphs/clusters.h"

#include <filesystem>

namespace glassbox::graphs {

std::string cluster_of_directory(std::string directory, const ClusterOptions& options) {
  std::string relative = path_relative_to(directory, options.root);
  if (relative.empty() || relative == ".") return {};
  if (options.max_depth <= 0) return relative;
  // Keep the first max_depth components; a leading '/' is not a component.
  std::size_t components = 0;
  for (std::size_t i = 0; i < relative.size(); ++i) {
    if (relative[i] != '/' || i == 0) continue;
    if (++components == static_cast<std::size_t>(options.max_depth)) return relative.substr(0, i);
  }
  return relative;
}

Graph cluster_by_directory(const Graph& graph, const ClusterOptions& options) {
  ClusterOptions effective = options;
  if (effective.root.empty())
    if (auto it = graph.attributes().find(attr::kSourceRoot); it != graph.attributes().end())
      effective.root = it->second;
  Graph result = graph;
  for (NodeIndex i = 0; i < result.node_count(); ++i) {
    const Node& node = result.node(i);
    if (node.kind == NodeKind::External) continue;
    std::string directory = directory_of(node);
    if (directory.empty()) continue;
    // A directory node sits beside its siblings, in its parent's cluster; the root's node in none.
    if (node.kind == NodeKind::Directory && effective.directory_nodes_in_parent)
      directory = cluster_of_directory(directory, effective).empty()
                      ? std::string()
                      : std::filesystem::path(directory).parent_path().generic_string();
    std::string cluster = cluster_of_directory(std::move(directory), effective);
    if (cluster.empty()) result.erase_attribute(i, attr::kCluster);
    else result.set_attribute(i, std::string(attr::kCluster), std::move(cluster));
  }
  return result;
}

}  // namespace glassbox::graphs
