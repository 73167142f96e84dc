#pragma once
// Every scheduler model is one entry here: its type name, its parameter spec (with defaults,
// validated by cfg::resolve) and a factory. The scenario's "scheduler" block picks one by "type".
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedulers/common/node_resources.hpp"
#include "sim/core/cluster.hpp"
#include "sim/core/config_spec.hpp"
#include "sim/core/scheduler_api.hpp"
#include "sim/core/warnings.hpp"

namespace floorsim {

// What a model may read while it is being built.
struct SchedulerContext {
  const Workload& workload;        // jobs and their interned names (read-only)
  const ClusterConfig& cluster;
  std::string base_dir;            // directory of the scenario file, for relative paths
  std::string scenario_file;       // for error messages
  uint64_t seed = 1;
  // The scenario fabric's switch tree (null without a "fabric" block), for topology-aware
  // placement: [level][node] = the node's switch subtree at that level (0 = edge switch, the
  // last level = the top). See app::fabric_switch_tree.
  const std::vector<std::vector<uint32_t>>* fabric_tree = nullptr;
  // Wall-clock time (seconds since 1970-01-01) of t = 0 (scenario "clock"); 0 when unknown, so
  // that every period starts at t = 0. Slurm's backfill rounds plan times on this clock.
  double t0_wall_s = 0;
  // The scheduler block as the scenario wrote it (before defaults), or null: a model whose own
  // files override block keys warns about the keys the block set explicitly.
  const cfg::json* given = nullptr;
  // Where the model reports what it reads but cannot model; null (a test's context): printed.
  Warnings* warnings = nullptr;
  void warn(std::string message) const {
    WarningScope scope(warnings);
    scope.sink().add(std::move(message));
    scope.done();
  }
};

struct SchedulerEntry {
  std::string type;
  std::string doc;
  // Parameter spec of the "scheduler" block (it always contains "type").
  std::function<std::shared_ptr<const cfg::ObjectSpec>()> params;
  // Builds the model from the resolved block. Throws InputError on bad model input.
  std::function<std::unique_ptr<Scheduler>(const cfg::json& resolved, const SchedulerContext&)> make;
  // The cluster the model's own configuration files describe (slurm.conf NodeName lines), or
  // nullopt when they describe none. Empty for models that read no cluster. `base_dir` is the
  // scenario's directory, for relative paths. Throws InputError on a file it cannot read.
  std::function<std::optional<ClusterConfig>(const cfg::json& resolved, const std::string& base_dir)> cluster;
  // What each job's pods ask of nodes besides GPUs (cpu, memory) under this model, read from
  // the resolved block by the model's own rule; unset for a model that does not place CPUs and
  // memory this way. The scenario refuses at load a job that no node could ever hold
  // (placement::never_fits), instead of leaving it pending forever.
  using NodeAskOf = std::function<placement::NodeAsk(const JobSpec&)>;
  std::function<NodeAskOf(const cfg::json& resolved)> node_ask = nullptr;
};

// The built-in models, in a stable order.
const std::vector<SchedulerEntry>& scheduler_registry();
const SchedulerEntry* find_scheduler(const std::string& type);

}  // namespace floorsim
