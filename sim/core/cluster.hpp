#pragma once
// Static description of the cluster: nodes, their GPUs, and the leaf switch (or topology
// block) each node hangs off. Built from scenario JSON, slurm.conf or a fabric topology.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/node_labels.hpp"
#include "sim/core/types.hpp"

namespace floorsim {

struct ClusterConfig {
  std::vector<std::string> node_names;  // e.g. "gpu001"; used in node_list (hostlist form)
  std::vector<int32_t> node_gpus;       // GPUs per node (0 = a CPU-only node)
  // CPUs and memory per node: each either empty (not given for any node: never binds) or one
  // entry per node, 0 meaning "not given" for that node (slurm.conf CPUs=, RealMemory=).
  // Both are consumable where given: give memory only where it is (SelectTypeParameters
  // CR_*_Memory); with CR_Core or CR_CPU leave node_mem_bytes empty.
  std::vector<int32_t> node_cpus;
  std::vector<int64_t> node_mem_bytes;
  std::vector<uint32_t> node_leaf;      // leaf switch / block index per node
  std::vector<std::string> leaf_names;  // by leaf index
  int32_t gpus_per_nvlink_domain = 0;   // 0 = a node is its own NVLink domain
  // Kubernetes node labels (scenario cluster.labels, node_groups[].labels): both empty when the
  // scenario gives none; else one index per node into label_sets (a group's nodes share a set).
  std::vector<NodeLabels> label_sets;
  std::vector<uint32_t> node_label_set;

  size_t nodes() const { return node_names.size(); }
  int64_t total_gpus() const {
    int64_t t = 0;
    for (auto g : node_gpus) t += g;
    return t;
  }
  bool gives_cpus() const {
    for (auto c : node_cpus)
      if (c > 0) return true;
    return false;
  }
  bool gives_mem() const {
    for (auto m : node_mem_bytes)
      if (m > 0) return true;
    return false;
  }
  bool gives_labels() const { return !node_label_set.empty(); }
  const NodeLabels& labels(size_t n) const {
    static const NodeLabels kNone;
    return n < node_label_set.size() ? label_sets[node_label_set[n]] : kNone;
  }
  int32_t max_node_gpus() const {
    int32_t m = 0;
    for (auto g : node_gpus) m = g > m ? g : m;
    return m;
  }
};

// Makes `count` nodes named prefix + zero-padded number, `nodes_per_leaf` per leaf switch
// (0 = all on one leaf).
ClusterConfig uniform_cluster(const std::string& prefix, size_t count, int32_t gpus_per_node,
                              size_t nodes_per_leaf = 0);

// Slurm hostlist compression of node names: "gpu[001-004,007],cpu01".
std::string hostlist(const std::vector<std::string>& names);
// Expands "n[1-3],gpu[01-02]" into names; throws std::invalid_argument on a malformed list.
std::vector<std::string> expand_hostlist(const std::string& list);

}  // namespace floorsim
