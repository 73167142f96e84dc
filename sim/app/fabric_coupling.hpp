#pragma once
// Couples the fabric's contention model to the engine (issue 5, "coupling to the scheduler"):
// when a job of a communicating class starts, its runtime is stretched by
//   stretch = (1 - comm_fraction) + comm_fraction * slowdown,
// where slowdown = its collective's time with every running communicating job's flows on the
// fabric / the same collective on an idle fabric (fabric::job_comm, one max-min solve), from
// the nodes it was given (cluster node i = fabric host i). So placement (hops, shared uplinks,
// tapers) and the other tenants change runtimes. First-order: the factor is fixed at start.
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

// What a scenario's "fabric" block loads once (validated with the scenario); each run builds
// its own FabricRuntime from it (the solver's scratch state is per run).
struct FabricCoupling {
  std::shared_ptr<const fabric::FabricScenario> fabric;
  std::vector<ClassTraffic> by_class;  // by class StrId
};

class FabricRuntime final : public RuntimeModel {
 public:
  explicit FabricRuntime(const FabricCoupling& c);
  double stretch(JobIdx j, std::span<const NodeShare> placement, const Snapshot& view) override;
  nlohmann::json report() const override;

 private:
  std::shared_ptr<const fabric::FabricScenario> fab_;
  std::vector<ClassTraffic> by_class_;  // by class StrId
  fabric::MaxMinSolver solver_;
  fabric::FailureSet healthy_;
  std::vector<fabric::JobTraffic> running_;  // scratch
  uint64_t evaluated_ = 0, disconnected_ = 0;
  double slowdown_sum_ = 0, slowdown_max_ = 1, stretch_max_ = 1;
};

// Loads a resolved "fabric" block (null -> no fabric). Paths resolve against base_dir.
// Throws InputError naming `file` and the JSON pointer (or the fabric file's own).
FabricCoupling load_fabric_coupling(const nlohmann::json& block, const std::string& base_dir, const std::string& file,
                                    const Workload& w, const ClusterConfig& cluster);

}  // namespace floorsim::app
