#pragma once
// Topology-Aware Scheduling (Kueue docs: concepts/topology_aware_scheduling): where the pods of
// one PodSet go among a Topology's domains, as Kueue's TASFlavorSnapshot findTopologyAssignment
// (pkg/cache/tas_flavor_snapshot.go) does with its default profile (BestFit). A pure function
// from the domains and the pods each leaf domain can take to an assignment or the reason there
// is none; the caller owns the node capacities and maps leaves to nodes.
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace floorsim::kueue::tas {

inline constexpr const char* kHostname = "kubernetes.io/hostname";

// A Topology's domains by level, level 0 the top; the last level's domains are the leaves.
// A domain is identified by its whole path of level values, as Kueue's domain ids are.
struct Domains {
  std::string topology;                 // the Topology's name (in reasons)
  std::vector<std::string> level_keys;  // spec.levels[].nodeLabel, top first
  struct Level {
    std::vector<std::string> value;     // by domain: its label value at this level
    std::vector<uint32_t> parent;       // by domain: index in the level above (level 0: 0)
    std::vector<uint32_t> rank;         // by domain: position of its values path in lexical order
    std::vector<uint32_t> child_off, children;  // CSR into the level below
  };
  std::vector<Level> levels;
  size_t leaves() const { return levels.empty() ? 0 : levels.back().value.size(); }
};

// `leaf_paths[i]`: leaf i's value at every level, top first (as many as `level_keys`).
Domains build(std::string topology, std::vector<std::string> level_keys,
              const std::vector<std::vector<std::string>>& leaf_paths);

// The podset annotations kueue.x-k8s.io/podset-required-topology, podset-preferred-topology,
// podset-unconstrained-topology (or none on a TAS flavor: implied unconstrained).
enum class Kind : uint8_t { Required, Preferred, Unconstrained };
struct PodSetRequest {
  Kind kind = Kind::Unconstrained;
  std::string level;  // nodeLabel of the required / preferred level; unused when unconstrained
  int32_t count = 0;  // pods
};

struct Assignment {
  std::vector<std::pair<uint32_t, int32_t>> leaves;  // (leaf, pods), in lexical order of the leaves' paths
  std::string reason;                                // empty when the pods fit
  bool fits() const { return reason.empty(); }
};

// `leaf_fit[i]`: how many of the pods leaf i can take now.
// Required: every pod in one domain of that level, or no assignment. Preferred: the lowest
// level from that one up where one domain takes them all, else several domains of the top
// level, largest first. Unconstrained: leaves largest first. Ties go to the smallest domain that
// still fits (BestFit), then to lexical order.
Assignment assign(const Domains& d, std::span<const int32_t> leaf_fit, const PodSetRequest& r);

}  // namespace floorsim::kueue::tas
