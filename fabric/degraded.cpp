// Degraded fabrics in the sign-off pack: the scenario's failure cases and the search for the
// worst single failure. Every case is run twice: rerouted (the failure policy of routing.hpp:
// D-mod-K fails over to the next live port, ECMP re-hashes over live paths) and static (the
// healthy routes kept, as a subnet manager that has not yet re-swept; a flow over a dead link
// is cut off). A flow with no path never completes: it is counted, and the slowest-flow figures
// of its profile are "never", not the slowest of what was left.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "fabric/analytic.hpp"
#include "fabric/pack_parts.hpp"

namespace floorsim::fabric::pack {

using json = nlohmann::json;

namespace {

RoutingOptions with_adapt(RoutingOptions o, bool adapt) {
  o.adapt = adapt;
  return o;
}

bool same_routes(const RoutedFlows& a, const RoutedFlows& b) {
  return a.disconnected == b.disconnected && a.set.flow_offsets == b.set.flow_offsets &&
         a.set.flow_links == b.set.flow_links && a.flow_demand == b.flow_demand && a.demand_routed == b.demand_routed &&
         a.set.flow_size_bytes == b.set.flow_size_bytes && a.set.flow_start_s == b.set.flow_start_s &&
         a.set.link_capacity_bytes_per_s == b.set.link_capacity_bytes_per_s && a.set.link_tier == b.set.link_tier;
}

// One profile over one failure set: rerouted and static, each against the healthy slowest flow.
json profile_both_ways(const FabricScenario& s, const FailureSet& f, const std::vector<Demand>& d, double healthy_s,
                       const std::string& name, CompletionScratch& scratch) {
  json x = {{"name", name}};
  if (s.routing.mode != RoutingMode::Split) {
    // Often both ways route alike (a lost pod: no other pod's flow crosses it, and its own are
    // cut off either way; a failure none of the profile's flows crosses): the same flows over
    // the same fabric solve to the same result, so it is solved once.
    RoutedFlows rerouted = route_all(s.topology, f, with_adapt(s.routing, true), d);
    RoutedFlows fixed = route_all(s.topology, f, with_adapt(s.routing, false), d);
    const bool same = same_routes(rerouted, fixed);
    json r = result_json(run_routed(s.topology, f, std::move(rerouted), d, nullptr, s.path_latency, scratch));
    r["slowest_vs_healthy"] = vs_healthy(r, healthy_s);
    x["rerouted"] = r;
    if (!same) {
      r = result_json(run_routed(s.topology, f, std::move(fixed), d, nullptr, s.path_latency, scratch));
      r["slowest_vs_healthy"] = vs_healthy(r, healthy_s);
    }
    x["static"] = std::move(r);
    return x;
  }
  for (bool adapt : {true, false}) {
    const char* key = adapt ? "rerouted" : "static";
    if (!adapt && s.routing.mode == RoutingMode::Split) {
      x[key] = {{"skipped", "ideal split spreads over live paths only; it has no static routes"}};
      continue;
    }
    json r = run_or_skip(s.topology, f, with_adapt(s.routing, adapt), d, s.max_split_subflows, s.path_latency, scratch);
    if (!r.contains("skipped")) r["slowest_vs_healthy"] = vs_healthy(r, healthy_s);
    x[key] = std::move(r);
  }
  return x;
}

// A single failure the search tries: the scenario-format entry (to paste into "degraded") and
// how to apply it.
struct Candidate {
  json entry;
};

std::vector<Candidate> single_failures(const Topology& t, bool host_links, uint64_t limit, uint64_t& count) {
  count = 0;
  for (uint32_t tier = host_links ? 0 : 1; tier < t.h(); ++tier) count += t.x.nodes_at(tier) * t.ports_up(tier);
  for (uint32_t level = 1; level <= t.h(); ++level) count += t.x.nodes_at(level);
  std::vector<Candidate> out;
  if (count > limit) return out;
  for (uint32_t tier = host_links ? 0 : 1; tier < t.h(); ++tier)
    for (uint64_t lower = 0; lower < t.x.nodes_at(tier); ++lower)
      for (uint32_t port = 0; port < t.ports_up(tier); ++port)
        out.push_back({json{{"link", {{"tier", tier}, {"lower", lower}, {"port", port}}}}});
  for (uint32_t level = 1; level <= t.h(); ++level)
    for (uint64_t index = 0; index < t.x.nodes_at(level); ++index)
      out.push_back({json{{"switch", {{"level", level}, {"index", index}}}}});
  return out;
}

FailureSet failure_of(const Topology& t, const json& entry) {
  FailureSet f;
  if (entry.contains("link"))
    fail_link(t, f, entry["link"]["tier"].get<uint32_t>(), entry["link"]["lower"].get<uint64_t>(),
              entry["link"]["port"].get<uint32_t>());
  else
    fail_switch(t, f, entry["switch"]["level"].get<uint32_t>(), entry["switch"]["index"].get<uint64_t>());
  return f;
}

// What ranks a failure: flows it cuts off first (a flow that never arrives is worse than any
// slowdown), then the worst slowdown of the flows that do complete, over every profile.
struct Score {
  uint64_t disconnected = 0;
  double worst_slowdown = 1;  // connected slowest / healthy slowest, max over profiles
  size_t index = 0;
};

// By profile: the links its healthy routes use. Every routing mode keeps a flow's healthy path
// while all of its links are live (D-mod-K tries its healthy ports first, ECMP re-hashes only a
// path with a dead link, split's live paths are its healthy sub-flows' paths), so a failure of
// links no flow of a profile uses routes that profile exactly as healthy: the same flow set,
// the same solve, a slowdown of exactly 1. The search skips those runs.
std::vector<std::vector<uint8_t>> links_used(const FabricScenario& s, const HealthyTraffic& h) {
  std::vector<std::vector<uint8_t>> used;
  for (const auto& d : h.demands) {
    std::vector<uint8_t> u(s.topology.links(), 0);
    if (!(s.routing.mode == RoutingMode::Split && split_subflows(s.topology, d) > s.max_split_subflows))
      for (uint32_t l : route_all(s.topology, FailureSet{}, s.routing, d).set.flow_links) u[l] = 1;
    used.push_back(std::move(u));
  }
  return used;
}

bool touches(const FailureSet& f, const std::vector<uint8_t>& used) {
  for (size_t l = 0; l < f.link_dead.size(); ++l)
    if (f.link_dead[l] && used[l]) return true;
  return false;
}

Score score_of(const FabricScenario& s, const HealthyTraffic& h, const std::vector<std::vector<uint8_t>>& used,
               const FailureSet& f, size_t index, CompletionScratch& scratch) {
  Score sc;
  sc.index = index;
  for (size_t i = 0; i < h.demands.size(); ++i) {
    if (s.routing.mode == RoutingMode::Split && split_subflows(s.topology, h.demands[i]) > s.max_split_subflows)
      continue;  // the healthy run says it was skipped
    if (!touches(f, used[i])) continue;  // routed and solved as healthy: nothing cut off, slowdown 1
    const TrafficResult r = run_traffic(s.topology, f, s.routing, h.demands[i], nullptr, s.path_latency, &scratch);
    sc.disconnected += r.disconnected;
    if (h.slowest_s[i] > 0 && r.completion.count > 0)
      sc.worst_slowdown = std::max(sc.worst_slowdown, r.completion.slowest_s / h.slowest_s[i]);
  }
  return sc;
}

json ranked_json(const FabricScenario& s, const HealthyTraffic& h, const std::vector<Candidate>& cands,
                 const std::vector<Score>& order, CompletionScratch& scratch) {
  json out = json::array();
  for (size_t k = 0; k < order.size() && k < s.worst_failure.top; ++k) {
    const Score& sc = order[k];
    const FailureSet f = failure_of(s.topology, cands[sc.index].entry);
    json profiles = json::array();
    for (size_t i = 0; i < h.demands.size(); ++i)
      profiles.push_back(profile_both_ways(s, f, h.demands[i], h.slowest_s[i], s.traffic[i].name, scratch));
    out.push_back({{"rank", k + 1},
                   {"failed", f.what.front()},
                   {"fail", cands[sc.index].entry},
                   {"disconnected_flows", sc.disconnected},
                   {"worst_connected_slowdown", sc.worst_slowdown},
                   {"traffic", profiles}});
  }
  return out;
}

}  // namespace

json degraded_json(const FabricScenario& s, const HealthyTraffic& h, double b_flow, CompletionScratch& scratch) {
  const Topology& t = s.topology;
  json degraded = json::array();
  for (const auto& d : s.degraded) {
    const double b = bisection_maxflow_bytes_per_s(t, d.failures);
    const auto sc = structure_counts(t, d.failures);
    json e = {{"name", d.name},
              {"failed", d.failures.what},
              {"bisection_gbps", gbps_of(b)},
              {"bisection_gbps_healthy", gbps_of(b_flow)},
              {"bisection_lost_fraction", b_flow > 0 ? 1 - b / b_flow : 0},
              {"hosts_unreachable", sc.hosts_unreachable}};
    json tr = json::array();
    for (size_t i = 0; i < s.traffic.size(); ++i)
      tr.push_back(profile_both_ways(s, d.failures, h.demands[i], h.slowest_s[i], s.traffic[i].name, scratch));
    e["traffic"] = tr;
    degraded.push_back(e);
  }
  return degraded;
}

json worst_failure_json(const FabricScenario& s, const HealthyTraffic& h, const PackProgress& progress,
                        CompletionScratch& scratch) {
  const Topology& t = s.topology;
  const auto& w = s.worst_failure;
  uint64_t count = 0;
  const auto cands = single_failures(t, w.host_links, w.max_candidates, count);
  json out = {{"searched", fmt::format("every switch (levels 1..{}) and every cable of tiers {}..{}, one at a time", t.h(),
                                       w.host_links ? 0 : 1, t.h() - 1)},
              {"candidates", count},
              {"routing", routing_name(s.routing.mode)},
              {"ranked_by", "flows cut off, then the slowest completing flow against healthy (worst over profiles); "
                            "ranked under rerouting, each listed failure also run static"}};
  if (cands.empty() && count > 0) {
    out["skipped"] = fmt::format("{} single failures, above worst_failure.max_candidates = {}", count, w.max_candidates);
    return out;
  }
  std::vector<Score> scores;
  const auto used = links_used(s, h);
  for (size_t i = 0; i < cands.size(); ++i) {
    if (progress) progress("worst failure", i, cands.size());
    scores.push_back(score_of(s, h, used, failure_of(t, cands[i].entry), i, scratch));
  }
  std::vector<Score> all = scores;
  std::stable_sort(all.begin(), all.end(), [](const Score& a, const Score& b) {
    if (a.disconnected != b.disconnected) return a.disconnected > b.disconnected;
    return a.worst_slowdown > b.worst_slowdown;
  });
  std::vector<Score> connected;
  for (const auto& sc : all)
    if (sc.disconnected == 0) connected.push_back(sc);
  out["cutting_off_flows"] = all.size() - connected.size();
  out["ranked"] = ranked_json(s, h, cands, all, scratch);
  out["ranked_without_cut_off"] = ranked_json(s, h, cands, connected, scratch);
  return out;
}

}  // namespace floorsim::fabric::pack
