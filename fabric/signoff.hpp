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
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fabric/cost.hpp"
#include "fabric/flow_inputs.hpp"
#include "fabric/maxmin.hpp"
#include "fabric/routing.hpp"
#include "fabric/run_jobs.hpp"
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
  bool explicit_flows = false;     // "pattern": "explicit": the flows below, not spec's pattern
  std::vector<Demand> flows;       // explicit flows (fabric traffic only)
  uint64_t not_fabric_flows = 0;   // explicit flows inside one NVLink domain: counted, not solved
  bool from_run = false;           // "pattern": "run_jobs": `flows` are the run's jobs' collectives
  RunJobsTraffic run;              // which jobs they are, and the jobs left out (counted)
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

// The worst single failure search (degraded.cpp): every switch and every cable of the tiers
// above the hosts (host cables too with host_links), one at a time, ranked.
struct WorstFailureSearch {
  bool enabled = false;
  uint32_t top = 10;              // candidates listed per ranking
  bool host_links = false;        // a host cable's loss cuts off that host only
  uint64_t max_candidates = 20000;  // above this the search is skipped, and says so
};

// The cost model: the fabric priced at each taper, and every profile's slowest flow on it.
struct CostStudy {
  bool enabled = false;
  CostPrices prices;
  std::vector<std::vector<double>> tapers;
  Topology nominal;                // no taper: every tier at its own speed
  std::vector<Topology> tapered;   // by taper
};

// Profiles sharing the fabric in one solve (indices into FabricScenario::traffic).
struct TrafficMix {
  std::string name;
  std::vector<uint32_t> profiles;
};

// A file the pack was computed from, named by its content.
struct InputFile {
  std::string path;
  std::string sha256;
  uint64_t bytes = 0;
};

struct FabricScenario {
  std::string name;
  std::string file;         // the scenario's path (relative inputs are resolved beside it)
  nlohmann::json resolved;  // the scenario with every default filled in
  Topology topology;
  RoutingOptions routing;
  bool compare_routing = false;  // opt-in: runs every profile under all three modes
  uint64_t max_split_subflows = 4000000;
  bool path_latency = true;  // completion times include the path's per-hop latency
  std::vector<NamedTraffic> traffic;
  std::vector<TrafficMix> mixes;
  std::vector<NamedJob> jobs;
  std::vector<DegradedCase> degraded;
  std::vector<TopologyVariant> variants;
  WorstFailureSearch worst_failure;
  CostStudy cost;
  uint64_t full_scale_hosts = 0;  // 0 = not given (the sign-off verb requires it)
  std::vector<InputFile> inputs;  // the scenario and every file it names, as read
  std::string measurements_file;  // "" = none: nothing in the pack is measured
  std::vector<Measurement> measurements;
  double load_fraction = 0.7;
  double packet_bytes = 4096;
};

// A profile's demands: its explicit flows, or its pattern's (make_traffic).
std::vector<Demand> profile_demands(const Topology& t, const NamedTraffic& nt);

// Parses and validates; throws InputError(file, JSON pointer, message). Files the scenario
// names (flow sets, measurements) are read relative to `file`'s directory.
FabricScenario parse_fabric_scenario(const nlohmann::json& doc, const std::string& file);
FabricScenario load_fabric_scenario(const std::string& path);

// Runs every analysis of the pack. Deterministic (no threads, no unordered iteration).
// `command_line` is recorded in the pack's provenance (with the version, the commit and the
// inputs' SHA-256). Throws InputError when full_scale_hosts is missing or a measurement names
// no figure of the pack.
nlohmann::json run_signoff(const FabricScenario& s, const std::string& command_line = "");
std::string signoff_markdown(const nlohmann::json& pack);

// Results of one traffic profile under one routing mode on one (possibly degraded) fabric.
struct TrafficResult {
  DurationStats completion;          // per routed demand: finish - start (split: its last sub-flow)
  DurationStats all;                 // every demand; a disconnected one never completes (+infinity)
  std::vector<double> tier_utilisation;  // bytes carried / (live tier capacity * busy window)
  uint64_t demands = 0, flows = 0;
  uint32_t disconnected = 0;
  uint32_t solves = 0;
};
// Flow by flow (flows.csv, links.csv): the routed flows, their times and the links' trace.
struct TrafficDetail {
  RoutedFlows routed;
  Completion completion;
  CompletionTrace trace;
};
// path_latency: a flow's completion adds the zero-load latency of every hop of its path (the
// tiers' latency_s) to its transfer time under max-min sharing.
// scratch: buffers kept between runs (CompletionScratch); the same results without.
TrafficResult run_traffic(const Topology& t, const FailureSet& f, const RoutingOptions& o,
                          const std::vector<Demand>& demands, TrafficDetail* detail = nullptr,
                          bool path_latency = false, CompletionScratch* scratch = nullptr);

// The pack and the per-flow and per-link tables beside it.
struct SignoffPack {
  nlohmann::json pack;
  std::string flows_csv, links_csv, links_over_time_csv;
};
// The step under way ("traffic", "degraded cases", "worst failure", ...) and how many of its
// `total` units are done: for a progress line. Called from the solving thread only.
using PackProgress = std::function<void(const std::string& step, uint64_t done, uint64_t total)>;
SignoffPack run_signoff_pack(const FabricScenario& s, const std::string& command_line = "",
                             const PackProgress& progress = {});

}  // namespace floorsim::fabric
