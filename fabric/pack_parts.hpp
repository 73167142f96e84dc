#pragma once
// Pieces of the sign-off pack shared by its files (signoff.cpp: healthy traffic and analytics;
// degraded.cpp: degraded cases and the worst single failure). Not a public interface.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fabric/signoff.hpp"

namespace floorsim::fabric::pack {

inline double gbps_of(double bytes_per_s) { return bytes_per_s * 8 / 1e9; }

// A result's JSON: completion statistics over every demand, a disconnected one counting as
// never completing (slowest_s, mean_s and p99_s are null then, and "connected" gives the
// statistics over the flows that did complete), so a lost pod never reads as faster.
nlohmann::json result_json(const TrafficResult& r);

// Sub-flows ideal split would solve for these demands (one per shortest path).
uint64_t split_subflows(const Topology& t, const std::vector<Demand>& d);

// run_traffic's solve and figures for flows already routed (over failure set f).
// `scratch`: the pack's buffers, kept between its runs.
TrafficResult run_routed(const Topology& t, const FailureSet& f, RoutedFlows routed, const std::vector<Demand>& demands,
                         TrafficDetail* detail, bool path_latency, CompletionScratch& scratch);

// run_traffic, or {"skipped": why} when ideal split would need more than `limit` sub-flows.
nlohmann::json run_or_skip(const Topology& t, const FailureSet& f, const RoutingOptions& o,
                           const std::vector<Demand>& d, uint64_t limit, bool path_latency,
                           CompletionScratch& scratch);

// The profiles' demands on the healthy fabric, and their slowest flow under the scenario's
// routing (what degraded cases compare against).
struct HealthyTraffic {
  nlohmann::json traffic = nlohmann::json::array();
  std::vector<std::vector<Demand>> demands;  // per profile
  std::vector<double> slowest_s;             // per profile, under the scenario's routing mode
  uint64_t fan_out = 0;                      // the most hosts any profile spans
  std::string flows_csv, links_csv;          // the tables (header, then rows), scenario routing
  std::string links_time_csv;                // links_over_time.csv
};

// Slowest flow against the healthy one: null when any flow is disconnected (it never completes).
nlohmann::json vs_healthy(const nlohmann::json& result, double healthy_slowest_s);

// Degraded cases, rerouted (the failure policy) and static (healthy routes kept).
nlohmann::json degraded_json(const FabricScenario& s, const HealthyTraffic& h, double healthy_bisection,
                             CompletionScratch& scratch);
// Every single switch and cable failure, ranked.
nlohmann::json worst_failure_json(const FabricScenario& s, const HealthyTraffic& h, const PackProgress& progress,
                                  CompletionScratch& scratch);

}  // namespace floorsim::fabric::pack
