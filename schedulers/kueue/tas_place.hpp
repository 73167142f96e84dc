#pragma once
// Topology-Aware Scheduling over the simulator's cluster (Kueue docs:
// concepts/topology_aware_scheduling). A level whose key the cluster's node labels give takes
// its domains from the labels (nodes without it are not in the Topology); the other levels are
// laid bottom up onto the structure the cluster already has, the one the slurm model's topology
// uses too: kubernetes.io/hostname = a node; the next level up = the node's leaf (rack or
// block: cluster.nodes_per_leaf, node_groups, slurm.conf topology, a fabric's edge switch);
// above it, the scenario fabric's switch levels; any level above those = the whole cluster
// (warned). The job's podset annotations come from the scheduler block's `job_annotations`.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "schedulers/kueue/manifest_model.hpp"
#include "schedulers/kueue/tas.hpp"
#include "sim/core/cluster.hpp"
#include "sim/core/config_spec.hpp"
#include "sim/core/job_state.hpp"
#include "sim/core/types.hpp"

namespace floorsim::kueue {

// The Kueue annotations one job class carries (scheduler.job_annotations).
struct JobAnnotations {
  bool topology = false;  // a podset-*-topology annotation is set
  tas::Kind kind = tas::Kind::Unconstrained;
  std::string level;      // required / preferred level
  int32_t min_count = 0;  // kueue.x-k8s.io/job-min-parallelism (0 = not set)
};

// By class StrId (index into the workload's strings; classes not listed: none). Unknown
// annotations are warnings; bad values are InputError at /scheduler/job_annotations/CLASS/KEY.
std::vector<JobAnnotations> read_job_annotations(const cfg::json& block, const StringTable& strings,
                                                 const std::string& file, std::vector<std::string>& warnings);

class TasPlacer {
 public:
  TasPlacer() = default;
  // One topology snapshot per TAS flavor (a flavor whose topologyName names a Topology).
  TasPlacer(const BuiltModel& b, const ClusterConfig& cluster, const std::vector<std::vector<uint32_t>>* fabric_tree,
            std::vector<std::string>& warnings);

  bool any() const { return !snaps_.empty(); }
  bool is_tas(int flavor) const { return flavor >= 0 && static_cast<size_t>(flavor) < by_flavor_.size() && by_flavor_[flavor] >= 0; }
  // Bit f: flavor f cannot take a podset with annotations `a` (Kueue's flavor assigner: a
  // topology request needs a TAS flavor whose Topology has the requested level).
  uint64_t unfit_flavors(const JobAnnotations& a) const;
  // A warning for each class whose topology request no flavor can take (never admitted, as in
  // Kueue, where no flavor passes the flavor assigner's TAS check).
  void warn_unplaceable(const std::vector<JobAnnotations>& by_class, const StringTable& strings,
                        std::vector<std::string>& warnings) const;
  // The job's pods at TAS flavor `flavor` within `free` (0 = node down) and `allowed` (empty =
  // all): "" and the shares, or Kueue's reason. Pods: `nodes` of gpus/nodes GPUs each, one per
  // node (the exact node count the job asks for), or, with nodes 0, one per GPU (the split first
  // fit allows).
  std::string place(int flavor, const JobSpec& js, const JobAnnotations& a, std::span<const int32_t> free,
                    std::span<const uint8_t> allowed, std::vector<NodeShare>& out) const;

 private:
  struct Snapshot {
    tas::Domains domains;
    bool host_leaves = false;
    std::vector<uint32_t> leaf_off, leaf_nodes;  // CSR: nodes of each leaf, index order
  };
  std::vector<Snapshot> snaps_;
  std::vector<int> by_flavor_;  // flavor id -> snapshot (-1: not a TAS flavor)
};

}  // namespace floorsim::kueue
