#pragma once
// The fabric scenario (FABRIC.json) and the sign-off pack `floorsim fabric` writes
// (signoff.json + signoff.md): traffic profiles and their source, hop counts per path class,
// oversubscription per tier, fan-out tested and whether it reached full scale, routing modes
// compared, degraded cases and the bandwidth they lose, jobs' communication slowdowns, and the
// list of figures that are modelled only.
//
// The format is declared once with cfg::ObjectSpec (sim/core/config_spec.hpp): strict (unknown
// keys are errors naming the JSON pointer), every default written into the pack's "scenario".
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fabric/routing.hpp"
#include "fabric/topology.hpp"
#include "fabric/traffic.hpp"
#include "sim/core/config_spec.hpp"

namespace floorsim::fabric {

// The declarative format (for validation, `--help` and a JSON Schema). Built on each call.
std::shared_ptr<const cfg::ObjectSpec> fabric_scenario_spec();
// One failure ({"switch": {level, index}} | {"link": {tier, lower, port}} | {"pod": n}), the
// format of a degraded case's "fail" entries and of a scenario's timed fabric failures.
std::shared_ptr<const cfg::ObjectSpec> failure_spec();
// Adds a resolved failure entry to `f`; throws InputError naming file and pointer when the
// topology has no such element.
void apply_failure(const Topology& t, FailureSet& f, const nlohmann::json& entry, const std::string& pointer,
                   const std::string& file);

struct NamedTraffic {
  std::string name;
  TrafficSpec spec;
  std::string source;       // "profiled", "trace" or "assumption"
  std::string source_note;
};

struct NamedJob {
  std::string name;
  JobTraffic traffic;
};

struct DegradedCase {
  std::string name;
  FailureSet failures;
};

struct TopologyVariant {
  std::string name;
  Topology topology;
};

struct FabricScenario {
  std::string name;
  nlohmann::json resolved;  // the scenario with every default filled in
  Topology topology;
  RoutingOptions routing;
  bool compare_routing = true;
  uint64_t max_split_subflows = 4000000;
  std::vector<NamedTraffic> traffic;
  std::vector<NamedJob> jobs;
  std::vector<DegradedCase> degraded;
  std::vector<TopologyVariant> variants;
  uint64_t full_scale_hosts = 0;
  double load_fraction = 0.7;
  double packet_bytes = 4096;
};

// Parses and validates; throws InputError(file, JSON pointer, message).
FabricScenario parse_fabric_scenario(const nlohmann::json& doc, const std::string& file);
FabricScenario load_fabric_scenario(const std::string& path);

// Runs every analysis of the pack. Deterministic (no threads, no unordered iteration).
nlohmann::json run_signoff(const FabricScenario& s);
std::string signoff_markdown(const nlohmann::json& pack);

// Results of one traffic profile under one routing mode on one (possibly degraded) fabric.
struct TrafficResult {
  DurationStats completion;          // per demand: finish - start (split: its last sub-flow)
  std::vector<double> tier_utilisation;  // bytes carried / (live tier capacity * busy window)
  uint64_t demands = 0, flows = 0;
  uint32_t disconnected = 0;
  uint32_t solves = 0;
};
TrafficResult run_traffic(const Topology& t, const FailureSet& f, const RoutingOptions& o,
                          const std::vector<Demand>& demands);

}  // namespace floorsim::fabric
