#pragma once
// Couples the fabric's contention model to the engine (issue 5, "coupling to the scheduler"):
// when a job of a communicating class starts, its runtime is stretched by
//   stretch = (1 - comm_fraction) + comm_fraction * slowdown,
// where slowdown = its collective's time with every running communicating job's flows on the
// fabric / the same collective on an idle fabric (fabric::job_comm, one max-min solve), from
// the nodes it was given (cluster node i = fabric host i). So placement (hops, shared uplinks,
// tapers) and the other tenants change runtimes. First-order: the factor is fixed at start.
//
// Timed link/switch/pod failures (the block's "failures", issue 7): between at_s and
// at_s + duration_s the failed links carry nothing, so jobs started in that window are routed
// around them (fewer live uplinks: more sharing, longer collectives) or find no live path
// (counted as disconnected starts, not guessed into the runtime). Running jobs keep the factor
// they started with (the same first-order rule). At equal times a recovery is applied before a
// failure, so a link that fails at t is dead at t and one that recovers at t is live at t.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fabric/maxmin.hpp"
#include "fabric/signoff.hpp"
#include "fabric/traffic.hpp"
#include "sim/core/cluster.hpp"
#include "sim/core/config_spec.hpp"
#include "sim/core/runtime_model.hpp"

namespace floorsim::app {

// The scenario's "fabric" block.
std::shared_ptr<const cfg::ObjectSpec> fabric_coupling_spec();

struct ClassTraffic {
  bool communicates = false;
  fabric::Pattern pattern = fabric::Pattern::Training;
  double bytes_per_collective = 0;
  double comm_fraction = 0;  // share of the job's trace runtime spent communicating
};

struct TimedFabricFailure {
  SimTime at_s = 0;
  SimTime until_s = kNever;        // at_s + duration_s (kNever = permanent)
  std::vector<uint64_t> links;     // directed link ids it kills
  std::string what;                // human-readable (the fabric's own naming)
};

// What a scenario's "fabric" block loads once (validated with the scenario); each run builds
// its own FabricRuntime from it (the solver's scratch state is per run).
struct FabricCoupling {
  std::shared_ptr<const fabric::FabricScenario> fabric;
  std::vector<ClassTraffic> by_class;  // by class StrId
  std::vector<TimedFabricFailure> failures;  // in the order given
};

class FabricRuntime final : public RuntimeModel {
 public:
  explicit FabricRuntime(const FabricCoupling& c);
  double stretch(JobIdx j, std::span<const NodeShare> placement, const Snapshot& view) override;
  nlohmann::json report() const override;

 private:
  std::shared_ptr<const fabric::FabricScenario> fab_;
  std::vector<ClassTraffic> by_class_;  // by class StrId
  std::vector<TimedFabricFailure> failures_;
  struct Change {
    SimTime t;
    uint8_t up;       // 1 = recovery (applied first at equal times)
    uint32_t failure; // index into failures_
  };
  std::vector<Change> changes_;  // sorted (t, !up, failure)
  size_t next_change_ = 0;
  std::vector<uint16_t> dead_count_;  // by directed link: active failures killing it
  struct FailureStats {
    uint64_t starts = 0, disconnected = 0;
    double slowdown_sum = 0, slowdown_max = 1;
  };
  std::vector<FailureStats> failure_stats_;
  void advance_to(SimTime now);

  fabric::MaxMinSolver solver_;
  fabric::FailureSet live_;  // what is dead now
  std::vector<fabric::JobTraffic> running_;  // scratch
  uint64_t evaluated_ = 0, disconnected_ = 0;
  double slowdown_sum_ = 0, slowdown_max_ = 1, stretch_max_ = 1;
};

// The fabric's switch tree over the first `nodes` hosts (cluster node i = fabric host i):
// [level][node] = index of the node's level-(level+1) subtree, from the edge switch (hosts per
// edge switch m1) up to the top (one subtree). SchedulerContext::fabric_tree.
std::vector<std::vector<uint32_t>> fabric_switch_tree(const FabricCoupling& c, size_t nodes);

// Loads a resolved "fabric" block (null -> no fabric). Paths resolve against base_dir.
// Throws InputError naming `file` and the JSON pointer (or the fabric file's own).
FabricCoupling load_fabric_coupling(const nlohmann::json& block, const std::string& base_dir, const std::string& file,
                                    const Workload& w, const ClusterConfig& cluster);

}  // namespace floorsim::app
