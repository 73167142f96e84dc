#include <catch2/catch.hpp>

#include "fabric/analytic.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology.hpp"

using namespace floorsim::fabric;

namespace {
Topology uniform_tree(const Xgft& x, double gbps = 400, std::string kind = "xgft") {
  std::vector<TierSpec> tiers(x.h, TierSpec{gbps_to_bytes_per_s(gbps), 1e-6, ""});
  return build_topology(kind, x, tiers);
}
}  // namespace

TEST_CASE("k-ary fat-tree structure counts for k = 4..48", "[fabric][topology]") {
  for (uint32_t k = 4; k <= 48; k += 2) {
    const auto t = uniform_tree(kary_fat_tree(k), 400, "fat_tree");
    const auto c = structure_counts(t);
    INFO("k = " << k);
    CHECK(c.hosts == uint64_t(k) * k * k / 4);
    CHECK(c.switches == uint64_t(5) * k * k / 4);
    REQUIRE(c.switches_per_level.size() == 3);
    CHECK(c.switches_per_level[0] == uint64_t(k) * k / 2);  // edge: k pods x k/2
    CHECK(c.switches_per_level[1] == uint64_t(k) * k / 2);  // aggregation
    CHECK(c.switches_per_level[2] == uint64_t(k) * k / 4);  // core (k/2)^2
    // Every switch uses k ports: edge/aggregation k/2 down + k/2 up; core k down.
    CHECK(c.switch_ports_per_level == std::vector<uint32_t>{k, k, k});
    CHECK(c.physical_links == 3 * uint64_t(k) * k * k / 4);
    CHECK(c.connected_components == 1);
    CHECK(c.hosts_unreachable == 0);
  }
  // Spot values from spec fabric §1.
  CHECK(kary_fat_tree(16).hosts() == 1024);
  CHECK(kary_fat_tree(32).hosts() == 8192);
  CHECK(kary_fat_tree(48).hosts() == 27648);
}

TEST_CASE("XGFT notation reproduces the k-ary tree", "[fabric][topology]") {
  const Xgft k4 = kary_fat_tree(4);
  CHECK(k4.notation() == "3;2,2,4;1,2,2;1,1,1");
  const Xgft g{3, {2, 2, 4}, {1, 2, 2}, {1, 1, 1}};
  const auto a = uniform_tree(k4), b = uniform_tree(g);
  CHECK(a.link_from == b.link_from);
  CHECK(a.link_to == b.link_to);
  for (uint32_t k = 4; k <= 16; k += 2) {
    const Xgft x = kary_fat_tree(k);
    CHECK(x.paths_at_lca(1) == 1);
    CHECK(x.paths_at_lca(2) == k / 2);
    CHECK(x.paths_at_lca(3) == uint64_t(k / 2) * (k / 2));
    CHECK(x.nodes_at(1) + x.nodes_at(2) + x.nodes_at(3) == uint64_t(5) * k * k / 4);
  }
  // A k-ary n-tree is XGFT(n; k..k; 1,k..k): 4-ary 3-tree has 64 hosts, 16 switches per level.
  const Xgft kn{3, {4, 4, 4}, {1, 4, 4}, {1, 1, 1}};
  CHECK(kn.hosts() == 64);
  CHECK(kn.nodes_at(1) == 16);
  CHECK(kn.nodes_at(2) == 16);
  CHECK(kn.nodes_at(3) == 16);
}

TEST_CASE("k = 4 wiring follows Al-Fares", "[fabric][topology]") {
  const auto t = uniform_tree(kary_fat_tree(4));
  // Host h hangs off edge h/2; edge e of pod p links to both aggregations of pod p;
  // aggregation a (within its pod) links to cores a*2 and a*2+1.
  for (uint64_t id = 0; id < t.links(); id += 2) {
    const uint32_t lo = t.link_from[id], hi = t.link_to[id];
    const uint32_t l = t.node_level(lo);
    const uint64_t li = lo - t.level_base[l], hi_i = hi - t.level_base[l + 1];
    if (l == 0) CHECK(hi_i == li / 2);
    if (l == 1) CHECK(hi_i / 2 == li / 2);  // same pod
    if (l == 2) CHECK(hi_i / 2 == li % 2);  // core group = aggregation index in pod
  }
}

TEST_CASE("leaf-spine is a two-level XGFT", "[fabric][topology]") {
  const auto t = uniform_tree(leaf_spine(16, 8, 4), 400, "leaf_spine");
  const auto c = structure_counts(t);
  CHECK(c.hosts == 128);
  CHECK(c.switches_per_level == std::vector<uint64_t>{8, 4});
  CHECK(c.physical_links == 128 + 8 * 4);
  const auto pcs = path_classes(t);
  REQUIRE(pcs.size() == 2);
  CHECK(pcs[0].hops == 2);
  CHECK(pcs[1].hops == 4);
  CHECK(pcs[1].paths == 4);
}

TEST_CASE("taper sets upper tier capacities and is reported back", "[fabric][topology]") {
  auto t = uniform_tree(kary_fat_tree(8));
  apply_taper(t, {2.0, 1.5});
  CHECK(taper_at(t, 1) == Approx(2.0));
  CHECK(taper_at(t, 2) == Approx(1.5));
  CHECK(t.tiers[1].capacity_bytes_per_s == Approx(t.tiers[0].capacity_bytes_per_s / 2));
  CHECK(t.tiers[2].capacity_bytes_per_s == Approx(t.tiers[0].capacity_bytes_per_s / 3));
}

TEST_CASE("named link generations", "[fabric][topology]") {
  CHECK(named_link_gbps("HDR") == 200);
  CHECK(named_link_gbps("NDR") == 400);
  CHECK(named_link_gbps("XDR") == 800);
  CHECK(named_link_gbps("100GbE") == 100);
  CHECK(named_link_gbps("800GbE") == 800);
  CHECK(named_link_gbps("FDR10") < 0);
  CHECK(gbps_to_bytes_per_s(400) == 50e9);
}

TEST_CASE("cluster nodes map onto hosts and leaves", "[fabric][topology]") {
  auto x = kary_fat_tree(4);
  std::vector<TierSpec> tiers(3, TierSpec{1e9, 0, ""});
  const auto t = build_topology("fat_tree", x, tiers, HostModel{8, 9});
  const auto c = cluster_from_topology(t);
  CHECK(c.nodes() == 16);
  CHECK(c.node_leaf[5] == 2);
  CHECK(c.gpus_per_nvlink_domain == 72);
  CHECK(c.node_names[0] == "gpu001");
  CHECK(t.nvlink_domain(8) == 0);
  CHECK(t.nvlink_domain(9) == 1);
}

TEST_CASE("bisection: closed form, max flow, and losses", "[fabric][analytic]") {
  for (uint32_t k : {4u, 8u}) {
    const auto t = uniform_tree(kary_fat_tree(k), 8);  // 1 GB/s links
    const double full = double(t.hosts()) / 2 * 1e9;
    CHECK(bisection_formula_bytes_per_s(t) == Approx(full));
    CHECK(bisection_maxflow_bytes_per_s(t) == Approx(full));
    // A lost core (or aggregation) switch lowers bisection by 4/k^2 (spec §1).
    FailureSet core;
    fail_switch(t, core, 3, 0);
    CHECK(bisection_maxflow_bytes_per_s(t, core) == Approx(full * (1 - 4.0 / (k * k))));
    FailureSet agg;
    fail_switch(t, agg, 2, 1);
    CHECK(bisection_maxflow_bytes_per_s(t, agg) == Approx(full * (1 - 4.0 / (k * k))));
    // A lost host cable: that host sends nothing across (one direction) and receives nothing
    // (the other); the host vertices are folded into their switches, the host's share is not.
    FailureSet host;
    fail_link(t, host, 0, 1, 0);
    CHECK(bisection_maxflow_bytes_per_s(t, host) == Approx(full - 1e9));
    fail_link(t, host, 0, t.hosts() - 1, 0);
    CHECK(bisection_maxflow_bytes_per_s(t, host) == Approx(full - 1e9));
    fail_link(t, host, 0, t.hosts() - 2, 0);
    CHECK(bisection_maxflow_bytes_per_s(t, host) == Approx(full - 2e9));
  }
  // Tapered: B = (H/2) c / max(1, s_e, s_e s_a).
  auto t = uniform_tree(kary_fat_tree(8), 8);
  apply_taper(t, {2.0, 1.5});
  CHECK(bisection_formula_bytes_per_s(t) == Approx(64e9 / 3.0));
  CHECK(bisection_maxflow_bytes_per_s(t) == Approx(64e9 / 3.0));
  // Leaf-spine: a lost spine of S lowers bisection by 1/S.
  const auto ls = uniform_tree(leaf_spine(4, 8, 4), 8);
  const double b = bisection_maxflow_bytes_per_s(ls);
  CHECK(b == Approx(16e9));
  FailureSet spine;
  fail_switch(ls, spine, 2, 3);
  CHECK(bisection_maxflow_bytes_per_s(ls, spine) == Approx(b * 3 / 4));
  // A lost pod: the remaining half cannot reach it; flows to it disconnect.
  FailureSet pod;
  fail_pod(t, pod, 0);
  CHECK(structure_counts(t, pod).hosts_unreachable == 16);
}

TEST_CASE("analytic means and tier loads match spec §4", "[fabric][analytic]") {
  const auto k4 = uniform_tree(kary_fat_tree(4), 8);
  CHECK(mean_hops_uniform(k4) == Approx(82.0 / 15));
  const auto k8 = uniform_tree(kary_fat_tree(8), 8);
  CHECK(mean_hops_uniform(k8) == Approx(((4 - 1) * 2 + (16 - 4) * 4 + (128 - 16) * 6) / 127.0));
  CHECK(mean_hops_uniform(k8) == Approx(5.72).margin(0.005));
  const Xgft kn{3, {4, 4, 4}, {1, 4, 4}, {1, 1, 1}};  // k-ary n-tree formula
  const auto tn = uniform_tree(kn, 8);
  double expect = 0;
  for (int i = 1; i <= 3; ++i) expect += 2.0 * i * 3 * std::pow(4, i - 1) / 63;
  CHECK(mean_hops_uniform(tn) == Approx(expect));
  // Tier loads: f_e = (H - k/2)/(H - 1), f_p = (H - k^2/4)/(H - 1).
  auto t = uniform_tree(kary_fat_tree(8), 8);
  apply_taper(t, {2.0, 1.5});
  const auto l = tier_load_uniform(t, 0.25e9);
  CHECK(l.rho[0] == Approx(0.25));
  CHECK(l.rho[1] == Approx(0.25 * (124.0 / 127) * 2));
  CHECK(l.rho[2] == Approx(0.25 * (112.0 / 127) * 3));
  CHECK(l.saturation_bytes_per_s == Approx(1e9 / (3 * 112.0 / 127)));
  // Queueing: zero below load, grows with it, infinite at saturation.
  const auto lo = latency_uniform(t, 0, 4096);
  CHECK(lo.queueing_s == 0);
  const auto mid = latency_uniform(t, 0.5 * l.saturation_bytes_per_s, 4096);
  const auto mid_d = latency_uniform(t, 0.5 * l.saturation_bytes_per_s, 4096, true);
  CHECK(mid.queueing_s > 0);
  CHECK(mid_d.queueing_s == Approx(mid.queueing_s / 2));
  CHECK(std::isinf(latency_uniform(t, l.saturation_bytes_per_s * 1.01, 4096).total_s));
  CHECK(uniform_throughput_bound_bytes_per_s(t, bisection_maxflow_bytes_per_s(t)) == Approx(4 * (64e9 / 3) / 128));
}
