// ResourceFlavors onto nodes: nodeLabels as a node selector over the cluster's node labels, or
// the scheduler block's flavor_nodes prefixes (Kueue docs: concepts/resource_flavor).
#include "schedulers/kueue/flavor_nodes.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace floorsim::kueue {
namespace {

std::string where(const ResourceFlavorObj& f) { return f.pos.file + ":" + f.pos.where() + ": ResourceFlavor " + f.name; }

std::string selector_text(const NodeLabels& sel) {
  std::string s;
  for (const auto& [k, v] : sel) s += (s.empty() ? "" : ", ") + k + "=" + v;
  return s;
}

}  // namespace

std::vector<std::vector<uint8_t>> flavor_node_masks(const std::vector<ResourceFlavorObj>& flavors,
                                                    const std::vector<std::string>& names, const cfg::json& flavor_nodes,
                                                    const ClusterConfig& cluster, const std::string& scen_file,
                                                    std::vector<std::string>& warnings) {
  std::vector<std::vector<uint8_t>> masks(std::max<size_t>(names.size(), 1));
  const size_t nodes = cluster.nodes();
  for (const auto& [fl, prefix_j] : flavor_nodes.items()) {
    const std::string ptr = "/scheduler/flavor_nodes/" + fl;
    auto it = std::find(names.begin(), names.end(), fl);
    if (it == names.end())
      throw InputError(scen_file, ptr, "flavor " + fl + " is not in the manifests; expected a ResourceFlavor name");
    const std::string prefix = prefix_j.get<std::string>();
    auto& mask = masks[static_cast<size_t>(it - names.begin())];
    mask.assign(nodes, 0);
    size_t hits = 0;
    for (size_t nd = 0; nd < nodes; ++nd)
      if (cluster.node_names[nd].rfind(prefix, 0) == 0) mask[nd] = 1, ++hits;
    if (hits == 0)
      throw InputError(scen_file, ptr, "no node name starts with \"" + prefix + "\"; expected a node name prefix");
  }
  for (size_t f = 0; f < flavors.size() && f < masks.size(); ++f) {
    const ResourceFlavorObj& fl = flavors[f];
    if (fl.node_labels.empty()) continue;
    if (flavor_nodes.contains(fl.name)) {
      warnings.push_back(where(fl) + ": scheduler.flavor_nodes maps it to the nodes named " +
                         flavor_nodes.at(fl.name).get<std::string>() + "*; its spec.nodeLabels (" +
                         selector_text(fl.node_labels) + ") are not used for placement");
      continue;
    }
    if (!cluster.gives_labels()) {
      warnings.push_back(where(fl) + " spec.nodeLabels are not matched to nodes (the cluster gives nodes no labels: "
                                     "cluster.labels, node_groups[].labels); its pods may run on any node");
      continue;
    }
    auto& mask = masks[f];
    mask.assign(nodes, 0);
    size_t hits = 0;
    for (size_t nd = 0; nd < nodes; ++nd)
      if (labels_match(cluster.labels(nd), cluster.node_names[nd], fl.node_labels)) mask[nd] = 1, ++hits;
    if (hits == 0)
      warnings.push_back(where(fl) + " spec.nodeLabels (" + selector_text(fl.node_labels) +
                         ") match no node of the cluster; workloads assigned it never find a node (their pods "
                         "stay Pending, as in Kubernetes)");
  }
  return masks;
}

}  // namespace floorsim::kueue
