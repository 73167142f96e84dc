#pragma once
// ResourceFlavors onto nodes (Kueue docs: concepts/resource_flavor). A flavor's nodeLabels are
// a node selector: Kueue adds them to the pods' nodeSelector, so its workloads run only on
// nodes that carry every one of those labels. With node labels in the scenario's cluster the
// flavor's nodes are those; the scheduler block's `flavor_nodes` (flavor -> node name prefix)
// names them by prefix instead, and wins where both are given (a warning says so).
#include <cstdint>
#include <string>
#include <vector>

#include "schedulers/kueue/manifest.hpp"
#include "sim/core/cluster.hpp"
#include "sim/core/config_spec.hpp"

namespace floorsim::kueue {

// By flavor id (`names`, the model's flavors; the first `flavors.size()` are the declared
// ResourceFlavors): the nodes a workload assigned that flavor may use (1 = allowed), or empty
// for every node. Throws InputError at /scheduler/flavor_nodes/FLAVOR for an unknown flavor or
// a prefix no node has. Warns about a flavor whose nodeLabels match no node (its pods never
// find one, as in Kubernetes), about nodeLabels in a cluster that gives nodes no labels (not
// matched: any node), and about a flavor mapped both ways.
std::vector<std::vector<uint8_t>> flavor_node_masks(const std::vector<ResourceFlavorObj>& flavors,
                                                    const std::vector<std::string>& names, const cfg::json& flavor_nodes,
                                                    const ClusterConfig& cluster, const std::string& scen_file,
                                                    std::vector<std::string>& warnings);

}  // namespace floorsim::kueue
