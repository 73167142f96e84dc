#include "fabric/signoff.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "fabric/analytic.hpp"
#include "fabric/flow_report.hpp"
#include "fabric/maxmin.hpp"
#include "fabric/pack_parts.hpp"
#include "sim/core/build_info.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_guard.hpp"
#include "sim/core/io.hpp"
#include "sim/core/json_errors.hpp"

namespace floorsim::fabric {

using json = nlohmann::json;
using namespace pack;

TrafficResult run_traffic(const Topology& t, const FailureSet& f, const RoutingOptions& o,
                          const std::vector<Demand>& demands, TrafficDetail* detail, bool path_latency,
                          CompletionScratch* scratch) {
  if (scratch) return pack::run_routed(t, f, route_all(t, f, o, demands), demands, detail, path_latency, *scratch);
  CompletionScratch own;
  return pack::run_routed(t, f, route_all(t, f, o, demands), demands, detail, path_latency, own);
}

namespace pack {

TrafficResult run_routed(const Topology& t, const FailureSet& f, RoutedFlows routed, const std::vector<Demand>& demands,
                         TrafficDetail* detail, bool path_latency, CompletionScratch& scratch) {
  TrafficResult res;
  Completion c = complete(routed.set, scratch, detail ? &detail->trace : nullptr);
  if (path_latency)  // the last byte still crosses every hop: add the path's zero-load latency
    for (size_t fl = 0; fl < routed.set.flows(); ++fl)
      for (uint32_t i = routed.set.flow_offsets[fl]; i < routed.set.flow_offsets[fl + 1]; ++i)
        c.finish_s[fl] += t.tiers[t.link_tier[routed.set.flow_links[i]]].latency_s;
  res.demands = demands.size();
  res.flows = routed.set.flows();
  res.disconnected = routed.disconnected;
  res.solves = c.solves;
  std::vector<double> finish(demands.size(), -1);
  for (size_t fl = 0; fl < routed.set.flows(); ++fl) {
    const uint32_t d = routed.flow_demand[fl];
    finish[d] = std::max(finish[d], c.finish_s[fl]);
  }
  std::vector<double> durations, all;
  for (size_t d = 0; d < demands.size(); ++d) {
    const double v = routed.demand_routed[d] ? finish[d] - demands[d].start_s : std::numeric_limits<double>::infinity();
    if (routed.demand_routed[d]) durations.push_back(v);
    all.push_back(v);
  }
  res.completion = duration_stats(durations);
  res.all = duration_stats(std::move(all));
  std::vector<double> cap(t.h(), 0), carried(t.h(), 0);
  for (size_t l = 0; l < t.links(); ++l) {
    if (!f.dead(l)) cap[t.link_tier[l]] += t.link_capacity_bytes_per_s[l];
    carried[t.link_tier[l]] += c.link_bytes[l];
  }
  const double window = c.makespan_s - c.first_s;
  for (uint32_t tier = 0; tier < t.h(); ++tier)
    res.tier_utilisation.push_back(window > 0 && cap[tier] > 0 ? carried[tier] / (cap[tier] * window) : 0);
  if (detail) {
    detail->routed = std::move(routed);
    detail->completion = std::move(c);
  }
  return res;
}

json result_json(const TrafficResult& r) {
  const auto finite = io::json_finite;
  json j = {{"slowest_s", finite(r.all.slowest_s)},
            {"mean_s", finite(r.all.mean_s)},
            {"p99_s", finite(r.all.p99_s)},
            {"demands", r.demands},
            {"flows_solved", r.flows},
            {"disconnected", r.disconnected},
            {"solves", r.solves},
            {"tier_utilisation", r.tier_utilisation}};
  if (r.disconnected > 0)
    j["connected"] = {{"completed", r.completion.count},
                      {"slowest_s", r.completion.slowest_s},
                      {"mean_s", r.completion.mean_s},
                      {"p99_s", r.completion.p99_s}};
  return j;
}

json vs_healthy(const json& r, double healthy_slowest_s) {
  if (r.contains("skipped") || r["slowest_s"].is_null() || !(healthy_slowest_s > 0)) return nullptr;
  return r["slowest_s"].get<double>() / healthy_slowest_s;
}

// Ideal split multiplies flows by the path count; beyond `limit` sub-flows the run is skipped
// (and says so) rather than exhausting memory (k=48 inter-pod: 576 sub-flows per flow).
uint64_t split_subflows(const Topology& t, const std::vector<Demand>& d) {
  uint64_t n = 0;
  for (const auto& x : d) n += t.x.paths_at_lca(lca_level(t, x.src, x.dst));
  return n;
}

json run_or_skip(const Topology& t, const FailureSet& f, const RoutingOptions& o, const std::vector<Demand>& d,
                 uint64_t limit, bool path_latency, CompletionScratch& scratch) {
  if (o.mode == RoutingMode::Split) {
    const uint64_t n = split_subflows(t, d);
    if (n > limit)
      return json{{"skipped", fmt::format("ideal split needs {} sub-flows, above routing.max_split_subflows = {}", n, limit)}};
  }
  return result_json(run_traffic(t, f, o, d, nullptr, path_latency, &scratch));
}

}  // namespace pack

namespace {

json topology_json(const Topology& t) {
  const auto sc = structure_counts(t);
  json tiers = json::array();
  for (uint32_t i = 0; i < t.h(); ++i)
    tiers.push_back({{"tier", i},
                     {"speed", t.tiers[i].speed_name.empty() ? json(nullptr) : json(t.tiers[i].speed_name)},
                     {"gbps", gbps_of(t.tiers[i].capacity_bytes_per_s)},
                     {"latency_s", t.tiers[i].latency_s}});
  return json{{"kind", t.kind},
              {"xgft", t.x.notation()},
              {"hosts", sc.hosts},
              {"switches", sc.switches},
              {"switches_per_level", sc.switches_per_level},
              {"switch_ports_per_level", sc.switch_ports_per_level},
              {"physical_links", sc.physical_links},
              {"directed_links", t.links()},
              {"tiers", tiers},
              {"gpus_per_host", t.host_model.gpus_per_host},
              {"nvlink_domain_gpus", t.host_model.gpus_per_host * t.host_model.hosts_per_nvlink_domain}};
}

json path_classes_json(const Topology& t, const FailureSet& healthy) {
  json classes = json::array();
  for (const auto& pc : path_classes(t)) {
    json c = {{"lca_level", pc.lca_level}, {"hops", pc.hops}, {"paths", pc.paths}, {"peers_per_host", pc.peers_per_host}};
    if (pc.peers_per_host > 0) {  // check the hop count on a routed sample pair
      std::vector<uint32_t> links;
      route_one(t, healthy, {RoutingMode::DModK, 1}, 0, t.subtree[pc.lca_level - 1], 0, links);
      c["hops_routed"] = links.size();
      c["live_paths_routed"] = live_paths(t, healthy, 0, t.subtree[pc.lca_level - 1]).size();
    }
    const char* names[] = {"", "same leaf/edge", "same pod", "other pod"};
    c["class"] = t.kind == "fat_tree" && pc.lca_level <= 3   ? names[pc.lca_level]
                 : t.kind == "leaf_spine" && pc.lca_level == 1 ? "same leaf"
                 : t.kind == "leaf_spine"                      ? "other leaf"
                                                               : fmt::format("LCA level {}", pc.lca_level);
    classes.push_back(c);
  }
  return classes;
}

// Analytic (uniform traffic, modelled only). `b_flow`: the healthy max-flow bisection.
json analytic_json(const FabricScenario& s, double b_flow) {
  const Topology& t = s.topology;
  const double b_formula = bisection_formula_bytes_per_s(t);
  const TierLoad sat = tier_load_uniform(t, 0);
  const double lambda = s.load_fraction * sat.saturation_bytes_per_s;
  const TierLoad load = tier_load_uniform(t, lambda);
  const auto mm1 = latency_uniform(t, lambda, s.packet_bytes, false);
  const auto md1 = latency_uniform(t, lambda, s.packet_bytes, true);
  return {
      {"assumptions", "uniform random traffic, ideal spreading over all shortest paths, Poisson arrivals for the "
                      "queueing term (M/M/1 and M/D/1 per link); GPU traffic is bursty, so these are modelled only"},
      {"mean_hops_uniform", mean_hops_uniform(t)},
      {"bisection_gbps_formula", gbps_of(b_formula)},
      {"bisection_gbps_maxflow", gbps_of(b_flow)},
      {"uniform_throughput_bound_gbps_per_host", gbps_of(uniform_throughput_bound_bytes_per_s(t, b_flow))},
      {"saturation_gbps_per_host", gbps_of(sat.saturation_bytes_per_s)},
      {"load_fraction_of_saturation", s.load_fraction},
      {"tier_rho", load.rho},
      {"tier_leave_fraction", load.leave_fraction},
      {"packet_bytes", s.packet_bytes},
      {"longest_path_latency_s", {{"zero_load", mm1.zero_load_s}, {"mm1", mm1.total_s}, {"md1", md1.total_s}}},
  };
}

// The scenario's routing mode first, then (with compare on) the other two.
std::vector<RoutingMode> modes_run(const FabricScenario& s) {
  std::vector<RoutingMode> modes = {s.routing.mode};
  if (s.compare_routing)
    for (auto m : {RoutingMode::DModK, RoutingMode::Ecmp, RoutingMode::Split})
      if (m != s.routing.mode) modes.push_back(m);
  return modes;
}

// A run_jobs profile: which of the run's jobs reached the fabric, which did not (counted, never
// dropped), and the jobs whose collective took longest with every other job's flows around.
json run_jobs_json(const RunJobsTraffic& r, const TrafficDetail& det, size_t top) {
  std::vector<double> finish(r.demands.size(), -1);
  for (size_t fl = 0; fl < det.routed.set.flows(); ++fl) {
    const uint32_t d = det.routed.flow_demand[fl];
    finish[d] = std::max(finish[d], det.completion.finish_s[fl]);
  }
  std::vector<std::pair<double, size_t>> took;  // (collective time, job), +inf when cut off
  for (size_t j = 0; j < r.jobs.size(); ++j) {
    double worst = 0;
    for (uint32_t d = r.jobs[j].first_demand; d < r.jobs[j].first_demand + r.jobs[j].demands; ++d)
      worst = std::max(worst, det.routed.demand_routed[d] ? finish[d] - r.demands[d].start_s
                                                         : std::numeric_limits<double>::infinity());
    took.emplace_back(worst, j);
  }
  std::stable_sort(took.begin(), took.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  json slowest = json::array();
  for (size_t i = 0; i < took.size() && i < top; ++i) {
    const RunJob& j = r.jobs[took[i].second];
    slowest.push_back({{"job_id", j.job_id},
                       {"class", j.klass},
                       {"start_s", j.start_s},
                       {"hosts", j.hosts},
                       {"collective", pattern_name(j.collective.collective)},
                       {"bytes", j.collective.bytes},
                       {"collective_s", std::isfinite(took[i].first) ? json(took[i].first) : json(nullptr)}});
  }
  return {{"jobs_in_file", r.rows},
          {"jobs_solved", r.jobs.size()},
          {"not_started", r.not_started},
          {"within_one_nvlink_domain", r.within_domain},
          {"class_not_listed", r.other_class},
          {"assumed", "one collective per job from its first start_s over its final node_list (a requeued job's "
                      "last nodes); the run's end times are not used"},
          {"slowest_jobs", slowest}};
}

HealthyTraffic healthy_traffic(const FabricScenario& s, const std::vector<RoutingMode>& modes, CompletionScratch& scratch) {
  const Topology& t = s.topology;
  const FailureSet healthy;
  HealthyTraffic h;
  h.flows_csv = flows_csv_header();
  h.links_csv = links_csv_header();
  h.links_time_csv = links_over_time_csv_header();
  for (const auto& nt : s.traffic) {
    h.demands.push_back(profile_demands(t, nt));
    uint64_t hosts = nt.spec.hosts.empty() ? t.hosts() : nt.spec.hosts.size();
    if (nt.explicit_flows || nt.from_run) {  // the hosts its flows name
      std::vector<uint8_t> seen(t.hosts(), 0);
      for (const auto& d : nt.flows) seen[d.src] = seen[d.dst] = 1;
      hosts = static_cast<uint64_t>(std::count(seen.begin(), seen.end(), 1));
    }
    h.fan_out = std::max(h.fan_out, hosts);
    json e = {{"name", nt.name},
              {"pattern", nt.explicit_flows ? "explicit" : nt.from_run ? "run_jobs" : pattern_name(nt.spec.pattern)},
              {"source", nt.source},
              {"source_note", nt.source_note},
              {"hosts", hosts},
              {"bytes_per_flow", nt.explicit_flows || nt.from_run ? json(nullptr) : json(nt.spec.bytes)},
              {"fabric_flows", h.demands.back().size()}};
    if (nt.explicit_flows) e["not_fabric_flows"] = nt.not_fabric_flows;  // inside one NVLink domain
    json by_mode = json::object();
    for (auto m : modes) {
      RoutingOptions o = s.routing;
      o.mode = m;
      json r;
      if (m == s.routing.mode && !(m == RoutingMode::Split && split_subflows(t, h.demands.back()) > s.max_split_subflows)) {
        // The scenario's own routing: flow by flow into flows.csv and links.csv.
        TrafficDetail det;
        r = result_json(run_traffic(t, healthy, o, h.demands.back(), &det, s.path_latency, &scratch));
        append_flows_csv(h.flows_csv, t, nt.name, h.demands.back(), det);
        append_links_csv(h.links_csv, t, nt.name, det);
        append_links_over_time_csv(h.links_time_csv, t, nt.name, det);
        e["bottleneck_links"] = bottleneck_links_json(t, det, 5);
        if (nt.from_run) e["run_jobs"] = run_jobs_json(nt.run, det, 10);
      } else {
        r = run_or_skip(t, healthy, o, h.demands.back(), s.max_split_subflows, s.path_latency, scratch);
      }
      by_mode[routing_name(m)] = r;
      if (m == s.routing.mode)
        h.slowest_s.push_back(r.contains("slowest_s") && r["slowest_s"].is_number() ? r["slowest_s"].get<double>() : 0.0);
    }
    e["results"] = by_mode;
    h.traffic.push_back(e);
  }
  return h;
}

json routing_json(const FabricScenario& s, const std::vector<RoutingMode>& modes) {
  return {{"mode", routing_name(s.routing.mode)},
          {"seed", s.routing.seed},
          {"adapt", s.routing.adapt},
          {"parallel_links", s.routing.cables == CableOrder::ParentsFirst ? "parents_first" : "cables_first"},
          {"lid_order", s.routing.lid_rank.empty()
                            ? "assumed: host i has the i-th LID (D-mod-K's destination index = host index)"
                            : "given: routing.lid_order"},
          {"modes_compared", [&] {
             json a = json::array();
             for (auto m : modes) a.push_back(routing_name(m));
             return a;
           }()},
          {"failure_policy",
           s.routing.adapt
               ? "dmodk: next live port (D-mod-K, +1, ...) with backtracking; ecmp: re-hash over live paths; "
                 "split: equal sub-flows over live paths; no live path = flow disconnected (reported)"
               : "static (adapt = false): dmodk and ecmp keep their healthy paths and a flow over a dead link "
                 "is disconnected (reported); split uses live paths"}};
}

// Issue 11: the slowest flow of full permutations under the three modes, several seeds
// (one seed is an anecdote: D-mod-K and ECMP collisions depend on the pairing).
json routing_comparison_json(const FabricScenario& s, CompletionScratch& scratch) {
  const Topology& t = s.topology;
  const FailureSet healthy;
  constexpr uint64_t kSeeds = 5;
  json cmp = {{"traffic", fmt::format("permutations of all {} hosts, 1e9 bytes per flow, seeds {}..{}", t.hosts(),
                                      s.routing.seed, s.routing.seed + kSeeds - 1)}};
  for (auto m : {RoutingMode::DModK, RoutingMode::Ecmp, RoutingMode::Split}) {
    std::vector<double> slowest;
    std::string skipped;
    for (uint64_t k = 0; k < kSeeds && skipped.empty(); ++k) {
      TrafficSpec perm;
      perm.pattern = Pattern::Permutation;
      perm.bytes = 1e9;
      perm.seed = s.routing.seed + k;
      const auto d = make_traffic(t, perm);
      RoutingOptions o = s.routing;
      o.mode = m;
      const json r = run_or_skip(t, healthy, o, d, s.max_split_subflows, s.path_latency, scratch);
      if (r.contains("skipped")) skipped = r["skipped"].get<std::string>();
      else slowest.push_back(r["slowest_s"].get<double>());
    }
    if (!skipped.empty()) {
      cmp[routing_name(m)] = {{"skipped", skipped}};
      continue;
    }
    std::vector<double> sorted = slowest;
    std::sort(sorted.begin(), sorted.end());
    cmp[routing_name(m)] = {{"slowest_s_by_seed", slowest},
                            {"min_slowest_s", sorted.front()},
                            {"median_slowest_s", sorted[sorted.size() / 2]},
                            {"max_slowest_s", sorted.back()}};
  }
  return cmp;
}

// Mixes: several profiles' flows in one solve, each arriving at its own start_s; per profile,
// its flows' times with the others on the fabric, against the profile alone.
json mixes_json(const FabricScenario& s, HealthyTraffic& h, CompletionScratch& scratch) {
  const Topology& t = s.topology;
  json out = json::array();
  for (const auto& m : s.mixes) {
    std::vector<Demand> all;
    std::vector<uint32_t> owner;  // by demand: position in m.profiles
    for (uint32_t k = 0; k < m.profiles.size(); ++k) {
      const auto& d = h.demands[m.profiles[k]];
      for (size_t i = 0; i < d.size(); ++i) {
        all.push_back(d[i]);
        // The identity it had alone, so ECMP hashes it onto the same path.
        if (all.back().flow_id == Demand::kAutoId) all.back().flow_id = i;
        owner.push_back(k);
      }
    }
    json e = {{"name", m.name}};
    if (s.routing.mode == RoutingMode::Split && split_subflows(t, all) > s.max_split_subflows) {
      e["skipped"] = fmt::format("ideal split needs {} sub-flows, above routing.max_split_subflows = {}",
                                 split_subflows(t, all), s.max_split_subflows);
      out.push_back(e);
      continue;
    }
    TrafficDetail det;
    e["together"] = result_json(run_traffic(t, FailureSet{}, s.routing, all, &det, s.path_latency, &scratch));
    append_flows_csv(h.flows_csv, t, m.name, all, det);
    append_links_csv(h.links_csv, t, m.name, det);
    append_links_over_time_csv(h.links_time_csv, t, m.name, det);
    e["bottleneck_links"] = bottleneck_links_json(t, det, 5);
    std::vector<double> finish(all.size(), -1);
    for (size_t fl = 0; fl < det.routed.set.flows(); ++fl) {
      const uint32_t d = det.routed.flow_demand[fl];
      finish[d] = std::max(finish[d], det.completion.finish_s[fl]);
    }
    json per = json::array();
    for (uint32_t k = 0; k < m.profiles.size(); ++k) {
      std::vector<double> dur;
      for (size_t d = 0; d < all.size(); ++d)
        if (owner[d] == k)
          dur.push_back(det.routed.demand_routed[d] ? finish[d] - all[d].start_s : std::numeric_limits<double>::infinity());
      const DurationStats st = duration_stats(dur);
      const uint32_t pi = m.profiles[k];
      per.push_back({{"name", s.traffic[pi].name},
                     {"slowest_s", std::isfinite(st.slowest_s) ? json(st.slowest_s) : json(nullptr)},
                     {"alone_slowest_s", h.slowest_s[pi]},
                     {"slowdown", std::isfinite(st.slowest_s) && h.slowest_s[pi] > 0 ? json(st.slowest_s / h.slowest_s[pi])
                                                                                    : json(nullptr)}});
    }
    e["profiles"] = per;
    out.push_back(e);
  }
  return out;
}

// Topology variants under the same flows.
json variants_json(const FabricScenario& s, CompletionScratch& scratch) {
  const FailureSet healthy;
  json variants = json::array();
  for (const auto& v : s.variants) {
    json e = {{"name", v.name}, {"topology", topology_json(v.topology)}};
    json over_v = json::array();
    for (uint32_t l = 1; l < v.topology.h(); ++l) over_v.push_back(taper_at(v.topology, l));
    e["oversubscription"] = over_v;
    e["bisection_gbps"] = gbps_of(bisection_maxflow_bytes_per_s(v.topology));
    json tr = json::array();
    for (size_t i = 0; i < s.traffic.size(); ++i) {
      json x = run_or_skip(v.topology, healthy, s.routing, profile_demands(v.topology, s.traffic[i]),
                           s.max_split_subflows, s.path_latency, scratch);
      x["name"] = s.traffic[i].name;
      tr.push_back(x);
    }
    e["traffic"] = tr;
    variants.push_back(e);
  }
  return variants;
}

// The cost model: per taper, what the fabric costs and every profile's slowest flow on it.
json cost_json(const FabricScenario& s, CompletionScratch& scratch) {
  const CostStudy& cs = s.cost;
  json rows = json::array();
  for (size_t i = 0; i < cs.tapers.size(); ++i) {
    const Topology& t = cs.tapered[i];
    const FabricCost c = fabric_cost(cs.nominal, t, cs.prices);
    json slowest = json::array();
    for (const auto& nt : s.traffic) {
      const json r =
          run_or_skip(t, FailureSet{}, s.routing, profile_demands(t, nt), s.max_split_subflows, s.path_latency, scratch);
      slowest.push_back({{"name", nt.name},
                         {"slowest_s", r.contains("skipped") ? json(nullptr) : r["slowest_s"]},
                         {"skipped", r.contains("skipped") ? r["skipped"] : json(nullptr)}});
    }
    rows.push_back({{"taper", cs.tapers[i]},
                    {"cables_per_tier", c.cables_per_tier},
                    {"switches_per_level", c.switches_per_level},
                    {"switches", c.switches},
                    {"cables", c.cables},
                    {"transceivers", c.transceivers},
                    {"switches_usd", c.switches_usd},
                    {"cables_usd", c.cables_usd},
                    {"optics_usd", c.optics_usd},
                    {"total_usd", c.total_usd},
                    {"bisection_gbps", gbps_of(bisection_maxflow_bytes_per_s(t))},
                    {"profiles", slowest}});
  }
  return {{"assumptions", "a taper is fewer uplink cables at the tier's own speed: cables per tier = ceil(links x "
                          "tapered / untapered capacity); switches per level = ceil(ports used / radix); two "
                          "transceivers per cable on an optical tier; host cables never taper"},
          {"prices", {{"switch_usd", cs.prices.switch_usd},
                      {"switch_port_usd", cs.prices.switch_port_usd},
                      {"cable_usd", cs.prices.cable_usd},
                      {"optics_usd", cs.prices.optics_usd},
                      {"optical_tiers", cs.prices.optical_tiers}}},
          {"by_taper", rows}};
}

// Jobs' own traffic and their slowdown from each other (scheduler coupling).
json jobs_json(const FabricScenario& s) {
  json jobs = json::array();
  if (s.jobs.empty()) return jobs;
  const FailureSet healthy;
  std::vector<JobTraffic> jt;
  for (const auto& j : s.jobs) jt.push_back(j.traffic);
  MaxMinSolver solver;
  const auto comm = job_comm(s.topology, healthy, s.routing, jt, solver);
  for (size_t i = 0; i < s.jobs.size(); ++i)
    jobs.push_back({{"name", s.jobs[i].name},
                    {"pattern", pattern_name(jt[i].pattern)},
                    {"hosts", jt[i].hosts.size()},
                    {"bytes", jt[i].bytes},
                    {"comm_alone_s", comm[i].alone_time_s},
                    {"comm_with_others_s", comm[i].comm_time_s},
                    {"slowdown", comm[i].slowdown},
                    {"effective_gbps", gbps_of(comm[i].effective_bytes_per_s)}});
  return jobs;
}

}  // namespace

json run_signoff(const FabricScenario& s, const std::string& command_line) {
  return run_signoff_pack(s, command_line).pack;
}

SignoffPack run_signoff_pack(const FabricScenario& s, const std::string& command_line, const PackProgress& progress) {
  const auto step = [&](const char* name) {
    if (progress) progress(name, 0, 0);
  };
  const Topology& t = s.topology;
  // "Full scale reached" must be a claim about the real fabric, not the model measured against itself.
  if (s.full_scale_hosts == 0)
    throw InputError(s.file, "/full_scale_hosts",
                     fmt::format("missing; expected the host count of the fabric this model stands for ({} when the "
                                 "model is the whole fabric)",
                                 t.hosts()));
  const FailureSet healthy;
  CompletionScratch scratch;  // every completion run of the pack, one after another, reuses it
  SignoffPack out;
  json& pack = out.pack;
  pack["format"] = "floorsim-fabric-signoff/1";
  pack["name"] = s.name;
  pack["topology"] = topology_json(t);

  json over = json::array();
  for (uint32_t l = 1; l < t.h(); ++l) over.push_back({{"level", l}, {"taper", taper_at(t, l)}});
  pack["oversubscription"] = over;
  pack["path_classes"] = path_classes_json(t, healthy);

  const double b_flow = bisection_maxflow_bytes_per_s(t, healthy);
  pack["analytic"] = analytic_json(s, b_flow);

  // Traffic profiles: healthy, scenario routing (+ the other two modes when compare is on).
  step("traffic");
  const std::vector<RoutingMode> modes = modes_run(s);
  HealthyTraffic h = healthy_traffic(s, modes, scratch);
  pack["traffic"] = h.traffic;
  step("mixes");
  pack["mixes"] = mixes_json(s, h, scratch);
  out.flows_csv = std::move(h.flows_csv);  // moved, not copied: hundreds of MB at k=64
  out.links_csv = std::move(h.links_csv);
  out.links_over_time_csv = std::move(h.links_time_csv);
  pack["routing"] = routing_json(s, modes);
  if (s.compare_routing) {
    step("routing comparison");
    pack["routing_comparison"] = routing_comparison_json(s, scratch);
  }
  pack["fan_out"] = {{"hosts_tested", h.fan_out},
                     {"fabric_hosts", t.hosts()},
                     {"full_scale_hosts", s.full_scale_hosts},
                     {"reached_full_scale", h.fan_out >= s.full_scale_hosts}};
  step("degraded cases");
  pack["degraded"] = degraded_json(s, h, b_flow, scratch);
  if (s.worst_failure.enabled) pack["worst_failure"] = worst_failure_json(s, h, progress, scratch);
  step("topology variants");
  pack["variants"] = variants_json(s, scratch);
  pack["jobs"] = jobs_json(s);
  if (s.cost.enabled) pack["cost"] = cost_json(s, scratch);

  pack["modelled_only"] = json::array({
      s.path_latency ? "every completion time: flow-level max-min fair sharing (no congestion control dynamics, no "
                       "packets), re-solved at each arrival and departure, plus the path's per-hop latency (tiers' "
                       "latency_s, zero-load: no queueing in it)"
                     : "every completion time: flow-level max-min fair sharing (no congestion control dynamics, no "
                       "packets, no latency: path_latency is off), re-solved at each arrival and departure",
      "bisection, tier load, saturation, throughput bound and latency: analytic, uniform traffic",
      "queueing delay: M/M/1 and M/D/1 per link (GPU traffic is bursty, not Poisson)",
      "degraded cases: rerouted per the stated failure policy, or static (healthy routes kept); no failover "
      "transient between the two is modelled",
      "jobs' slowdown: steady state with every running job communicating at once",
  });
  // Hardware measurements only from a measurements file, each beside the figure it checks.
  pack["measured"] = measured_json(s.measurements, pack, s.measurements_file);
  json inputs = json::array();
  for (const auto& in : s.inputs) inputs.push_back({{"path", in.path}, {"sha256", in.sha256}, {"bytes", in.bytes}});
  pack["provenance"] = {{"floorsim_version", io::kVersion},
                        {"commit", io::kCommit},
                        {"command_line", command_line},
                        {"inputs", inputs}};
  pack["scenario"] = s.resolved;
  return out;
}

}  // namespace floorsim::fabric
