#include "fabric/analytic.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

namespace floorsim::fabric {

std::vector<PathClass> path_classes(const Topology& t) {
  std::vector<PathClass> out;
  for (uint32_t L = 1; L <= t.h(); ++L)
    out.push_back({L, 2 * L, t.x.paths_at_lca(L), t.subtree[L] - t.subtree[L - 1]});
  return out;
}

double mean_hops_uniform(const Topology& t) {
  const double n = static_cast<double>(t.hosts());
  if (n < 2) return 0;
  double sum = 0;
  for (uint32_t i = 1; i <= t.h(); ++i) sum += 2.0 * i * static_cast<double>(t.subtree[i] - t.subtree[i - 1]);
  return sum / (n - 1);
}

double bisection_formula_bytes_per_s(const Topology& t) {
  double worst = 1, prod = 1;
  for (uint32_t i = 1; i < t.h(); ++i) {
    prod *= taper_at(t, i);
    worst = std::max(worst, prod);
  }
  const double half_hosts = static_cast<double>(t.x.m[t.h() - 1] / 2 * t.subtree[t.h() - 1]);
  return half_hosts * t.tiers[0].capacity_bytes_per_s / worst;
}

namespace {

using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, int64_t,
                    boost::property<boost::edge_residual_capacity_t, int64_t,
                                    boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;

// Top-level subtree ("pod") of a node below the root level.
uint64_t pod_of(const Topology& t, uint64_t node) {
  const uint32_t l = t.node_level(node);
  const uint64_t idx = node - t.level_base[l];
  const uint64_t first_host = (idx / t.weight[l]) * t.subtree[l];
  return first_host / t.subtree[t.h() - 1];
}

double one_direction(const Topology& t, const FailureSet& f, bool a_to_b, double scale) {
  const uint64_t half = t.x.m[t.h() - 1] / 2;
  auto in_src = [&](uint64_t pod) { return a_to_b ? pod < half : pod >= half; };
  auto cap_of = [&](uint64_t id) { return static_cast<int64_t>(std::llround(t.link_capacity_bytes_per_s[id] * scale)); };
  // A host with one cable is two edges in series (source -> host -> its switch, or switch ->
  // host -> sink): folded into one edge of the smaller capacity, summed per switch (parallel
  // edges add), so the graph holds the switches only (65,536 host vertices fewer at k=64).
  // The same network as far as any flow can tell, and a max flow's value is unique.
  const bool fold = t.ports_up(0) == 1;
  const uint64_t first = fold ? t.hosts() : 0;  // node ids below `first` are not vertices
  const uint64_t nn = t.nodes() - first;
  FlowGraph g(nn + 2);
  const auto src = nn, sink = nn + 1;
  auto cap = boost::get(boost::edge_capacity, g);
  auto rev = boost::get(boost::edge_reverse, g);
  auto add = [&](uint64_t u, uint64_t v, int64_t c) {
    auto e = boost::add_edge(u, v, g).first;
    auto r = boost::add_edge(v, u, g).first;
    cap[e] = c;
    cap[r] = 0;
    rev[e] = r;
    rev[r] = e;
  };
  // Source and sink edges carry what a host's links can: bounded, so the solver's sums of
  // excess cannot overflow (an "infinite" capacity per host would).
  if (fold) {
    std::vector<int64_t> from_src(nn, 0), to_sink(nn, 0);
    for (uint64_t hst = 0; hst < t.hosts(); ++hst) {
      const uint64_t up = t.link_id(0, hst, 0, 0), down = t.link_id(0, hst, 0, 1);
      const int64_t host_cap = cap_of(up);
      if (in_src(pod_of(t, hst))) {
        if (!f.dead(up)) from_src[t.link_to[up] - first] += host_cap;
      } else if (!f.dead(down)) {
        to_sink[t.link_from[down] - first] += std::min(cap_of(down), host_cap);
      }
    }
    for (uint64_t v = 0; v < nn; ++v) {
      if (from_src[v] > 0) add(src, v, from_src[v]);
      if (to_sink[v] > 0) add(v, sink, to_sink[v]);
    }
  } else {
    for (uint64_t hst = 0; hst < t.hosts(); ++hst) {
      int64_t host_cap = 0;
      for (uint32_t port = 0; port < t.ports_up(0); ++port) host_cap += cap_of(t.link_id(0, hst, port, 0));
      if (in_src(pod_of(t, hst))) add(src, hst, host_cap);
      else add(hst, sink, host_cap);
    }
  }
  for (uint64_t id = 0; id < t.links(); ++id) {
    if (f.dead(id) || (fold && t.link_tier[id] == 0)) continue;
    const bool up = (id % 2) == 0;
    const uint64_t lower = up ? t.link_from[id] : t.link_to[id];
    const bool src_side = in_src(pod_of(t, lower));
    if (up != src_side) continue;  // valley-free: up in the source half, down in the other
    add(t.link_from[id] - first, t.link_to[id] - first, cap_of(id));
  }
  const int64_t flow = boost::push_relabel_max_flow(g, src, sink);
  return static_cast<double>(flow) / scale;
}

}  // namespace

double bisection_maxflow_bytes_per_s(const Topology& t, const FailureSet& f) {
  if (t.x.m[t.h() - 1] < 2) return 0;
  double max_cap = 0;
  for (double c : t.link_capacity_bytes_per_s) max_cap = std::max(max_cap, c);
  const double scale = max_cap > 0 ? 1e9 / max_cap : 1;  // integer capacities, 1e-9 resolution
  return std::min(one_direction(t, f, true, scale), one_direction(t, f, false, scale));
}

TierLoad tier_load_uniform(const Topology& t, double lambda) {
  TierLoad r;
  const double n = static_cast<double>(t.hosts());
  const double c0 = t.tiers[0].capacity_bytes_per_s;
  double prod = 1, worst = 1;
  for (uint32_t tier = 0; tier < t.h(); ++tier) {
    double f = 1;
    if (tier > 0) {
      prod *= taper_at(t, tier);
      f = n > 1 ? (n - static_cast<double>(t.subtree[tier])) / (n - 1) : 0;
    }
    r.leave_fraction.push_back(f);
    r.rho.push_back(lambda * f * prod / c0);
    worst = std::max(worst, f * prod);
  }
  r.saturation_bytes_per_s = c0 / worst;
  return r;
}

double uniform_throughput_bound_bytes_per_s(const Topology& t, double b_dir) {
  const double bc = 2 * b_dir;  // both directions
  return std::min(t.tiers[0].capacity_bytes_per_s, 2 * bc / static_cast<double>(t.hosts()));
}

LatencyEstimate latency_uniform(const Topology& t, double lambda, double packet_bytes, bool md1) {
  LatencyEstimate e;
  const TierLoad load = tier_load_uniform(t, lambda);
  for (uint32_t tier = 0; tier < t.h(); ++tier) {
    const double c = t.tiers[tier].capacity_bytes_per_s;
    const double rho = load.rho[tier];
    const double service = packet_bytes / c;
    const double wait = rho >= 1 ? std::numeric_limits<double>::infinity()
                                 : (md1 ? 0.5 : 1.0) * rho * service / (1 - rho);
    // Each tier is crossed twice on the longest path: once up, once down (same load, symmetric).
    e.zero_load_s += 2 * (t.tiers[tier].latency_s + service);
    e.queueing_s += 2 * wait;
  }
  e.total_s = e.zero_load_s + e.queueing_s;
  return e;
}

}  // namespace floorsim::fabric
