#pragma once
// Scenario JSON: the one description of a simulation (cluster, workload, classes and floors,
// scheduler, engine settings, failures). Parsed strictly against a declarative spec; every
// default is filled in (that resolved document is written as scenario.resolved.json).
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/fabric_coupling.hpp"
#include "sim/app/governance.hpp"
#include "sim/app/sharing.hpp"
#include "sim/core/cluster.hpp"
#include "sim/core/config_spec.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/types.hpp"
#include "sim/core/warnings.hpp"

namespace floorsim::app {

using json = nlohmann::json;

// The scenario spec. The "scheduler" block is resolved separately against the chosen model's
// own spec (schedulers/registry.hpp), so the root spec treats it as open here.
std::shared_ptr<const cfg::ObjectSpec> scenario_spec();
// The published JSON Schema: the root spec with "scheduler" as oneOf the registered models.
json scenario_schema();

struct Scenario {
  json resolved;              // every default written in
  json scheduler_given;       // the "scheduler" block as written (null when left out)
  std::string file;           // for error messages ("" for in-memory documents)
  std::string base_dir;       // relative paths resolve against this
  Workload workload;          // sorted by (submit_s, id); classes assigned
  ClusterConfig cluster;
  EngineConfig engine;
  std::vector<int32_t> floors;  // by class StrId
  std::vector<StrId> classes;   // declared + seen classes, in output order
  std::vector<NodeEvent> node_events;
  size_t base_nodes = 0;      // nodes of "cluster"; capacity blocks follow them
  // Reduced-set fallbacks of deadline batches: at at_s, these jobs (grid shards) are dropped
  // if they have not started (applied by the idle_pool controller wrapper).
  struct Fallback {
    SimTime at_s;
    std::vector<JobIdx> jobs;
  };
  std::vector<Fallback> fallbacks;
  json workload_report;       // trace reader report and adjustments
  uint64_t seed = 1;
  // Wall-clock time (seconds since 1970-01-01) of t = 0: clock.t0, else a dated trace's first
  // submit or window start; NaN when unknown (t = 0 is then a multiple of every period).
  double t0_wall_s = std::numeric_limits<double>::quiet_NaN();
  FabricCoupling fabric;      // empty unless the scenario has a "fabric" block
  std::vector<PolicyChange> changes;  // policy change events (issue 9), sorted by time
  gov::Settings governance;
  std::shared_ptr<const SharingConfig> sharing;  // null without a "sharing" block
};

// Parses, validates and loads (reads traces). Throws InputError naming the file and JSON
// pointer (or the trace file and line). What it reads but cannot model goes to `warnings` (null:
// printed once the scenario is loaded; nothing is printed when it fails).
Scenario load_scenario_file(const std::string& path, Warnings* warnings = nullptr);
Scenario load_scenario(const json& doc, const std::string& file, const std::string& base_dir,
                       Warnings* warnings = nullptr);
// Parses JSON text with line numbers in syntax errors.
json parse_json_text(const std::string& text, const std::string& file);

}  // namespace floorsim::app
