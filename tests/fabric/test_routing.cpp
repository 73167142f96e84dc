#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "fabric/maxmin.hpp"
#include "fabric/routing.hpp"
#include "fabric/signoff.hpp"
#include "fabric/topology.hpp"
#include "fabric/traffic.hpp"

using namespace floorsim::fabric;

namespace {
Topology tree(uint32_t k, double gbps = 8) {
  std::vector<TierSpec> tiers(3, TierSpec{gbps_to_bytes_per_s(gbps), 0, ""});
  return build_topology("fat_tree", kary_fat_tree(k), tiers);
}
std::string hop(const Topology& t, uint32_t link) {
  return t.node_name(t.link_from[link]) + ">" + t.node_name(t.link_to[link]);
}
std::vector<std::string> route_names(const Topology& t, const FailureSet& f, RoutingMode m, uint32_t s, uint32_t d,
                                     uint64_t flow = 0) {
  std::vector<uint32_t> links;
  REQUIRE(route_one(t, f, {m, 7}, s, d, flow, links));
  std::vector<std::string> out;
  for (auto l : links) out.push_back(hop(t, l));
  return out;
}
}  // namespace

TEST_CASE("hop counts and path counts per class", "[fabric][routing]") {
  const auto t = tree(4);
  const FailureSet none;
  CHECK(lca_level(t, 0, 1) == 1);  // same edge
  CHECK(lca_level(t, 0, 2) == 2);  // same pod
  CHECK(lca_level(t, 0, 4) == 3);  // other pod
  for (auto [d, hops, paths] : {std::tuple{1u, 2u, 1u}, {2u, 4u, 2u}, {4u, 6u, 4u}}) {
    std::vector<uint32_t> links;
    REQUIRE(route_one(t, none, {RoutingMode::DModK, 1}, 0, d, 0, links));
    CHECK(links.size() == hops);
    CHECK(live_paths(t, none, 0, d).size() == paths);
  }
  const auto t8 = tree(8);
  CHECK(live_paths(t8, none, 0, 127).size() == 16);
  CHECK(live_paths(t8, none, 0, 5).size() == 4);
}

TEST_CASE("D-mod-K routes on k = 4, checked by hand", "[fabric][routing]") {
  // Spec §2: edge -> aggregation d mod 2 -> core floor(d/2) mod 2 (within the core group).
  // Aggregation a of pod p is L2:(2p+a); core c of group a is L3:(2a+c).
  const auto t = tree(4);
  const FailureSet none;
  // host0 -> host5: pod 0 edge 0 -> agg 5%2=1 (L2:1) -> core group 1, core (5/2)%2=0 (L3:2)
  //   -> pod 1 agg 1 (L2:3) -> edge L1:2 -> host5.
  CHECK(route_names(t, none, RoutingMode::DModK, 0, 5) ==
        std::vector<std::string>{"host0>L1:0", "L1:0>L2:1", "L2:1>L3:2", "L3:2>L2:3", "L2:3>L1:2", "L1:2>host5"});
  // host1 -> host14: agg 0 (L2:0), core (14/2)%2=1 -> L3:1; pod 3 agg 0 = L2:6; edge L1:7.
  CHECK(route_names(t, none, RoutingMode::DModK, 1, 14) ==
        std::vector<std::string>{"host1>L1:0", "L1:0>L2:0", "L2:0>L3:1", "L3:1>L2:6", "L2:6>L1:7", "L1:7>host14"});
  // Same pod: host0 -> host3: agg 3%2 = 1.
  CHECK(route_names(t, none, RoutingMode::DModK, 0, 3) ==
        std::vector<std::string>{"host0>L1:0", "L1:0>L2:1", "L2:1>L1:1", "L1:1>host3"});
  // Static: the route depends on the destination only, not the source or flow id.
  CHECK(route_names(t, none, RoutingMode::DModK, 8, 5, 3)[2] == "L2:5>L3:2");
  CHECK(dmodk_ports(t, {}, 5, 3) == std::vector<uint32_t>{0, 1, 0});
  CHECK(dmodk_ports(t, {}, 6, 3) == std::vector<uint32_t>{0, 0, 1});
}

TEST_CASE("D-mod-K failover takes the next live port", "[fabric][routing]") {
  const auto t = tree(4);
  FailureSet f;
  fail_link(t, f, 1, 0, 1);  // edge L1:0 -> agg L2:1 cable
  // host0 -> host5 wanted aggregation 1: next live port is 0 (wraps), then core port (5/2)%2 = 0.
  CHECK(route_names(t, f, RoutingMode::DModK, 0, 5) ==
        std::vector<std::string>{"host0>L1:0", "L1:0>L2:0", "L2:0>L3:0", "L3:0>L2:2", "L2:2>L1:2", "L1:2>host5"});
  // A lost core: flows that wanted it move to the next core of the group.
  FailureSet c;
  fail_switch(t, c, 3, 2);
  const auto r = route_names(t, c, RoutingMode::DModK, 0, 5);
  CHECK(r[2] == "L2:1>L3:3");
  // ECMP re-hashes over live paths; split uses live paths only.
  for (uint64_t flow = 0; flow < 20; ++flow)
    for (const auto& h : route_names(t, c, RoutingMode::Ecmp, 0, 5, flow)) CHECK(h.find("L3:2") == std::string::npos);
  CHECK(live_paths(t, c, 0, 5).size() == 3);
  // A lost pod disconnects its hosts.
  FailureSet pod;
  fail_pod(t, pod, 1);
  std::vector<uint32_t> links;
  CHECK_FALSE(route_one(t, pod, {RoutingMode::DModK, 1}, 0, 5, 0, links));
  CHECK_FALSE(route_one(t, pod, {RoutingMode::Ecmp, 1}, 0, 5, 0, links));
  std::vector<Demand> d = {{0, 5, 1e9, 0, 0}, {0, 9, 1e9, 0, 0}};
  const auto routed = route_all(t, pod, {RoutingMode::Split, 1}, d);
  CHECK(routed.disconnected == 1);
  CHECK(routed.demand_routed == std::vector<uint8_t>{0, 1});
}

TEST_CASE("hash ECMP is deterministic, per flow, over shortest paths", "[fabric][routing]") {
  const auto t = tree(8);
  const FailureSet none;
  std::set<std::vector<std::string>> seen;
  for (uint64_t flow = 0; flow < 64; ++flow) {
    const auto a = route_names(t, none, RoutingMode::Ecmp, 0, 100, flow);
    CHECK(a == route_names(t, none, RoutingMode::Ecmp, 0, 100, flow));
    CHECK(a.size() == 6);
    seen.insert(a);
  }
  CHECK(seen.size() > 8);  // 16 paths; 64 hashed flows use many of them
}

TEST_CASE("a permutation where D-mod-K collides and ideal split does not", "[fabric][routing]") {
  const auto t = tree(4);  // 1 GB/s links
  // Hosts 0 and 1 share edge L1:0 and send to hosts 4 and 6: both even, so D-mod-K sends both
  // up to aggregation 0 over one cable (0.5 GB/s each); ideal split spreads both over both.
  const std::vector<uint32_t> perm = {4, 6, 8, 10, 0, 2, 12, 14, 1, 3, 5, 7, 9, 11, 15, 13};
  std::vector<Demand> d;
  for (uint32_t i = 0; i < 16; ++i) d.push_back({i, perm[i], 1e9, 0, 0});
  auto slowest = [&](RoutingMode m) {
    return run_traffic(t, FailureSet{}, {m, 1}, d).completion.slowest_s;
  };
  CHECK(slowest(RoutingMode::DModK) == Approx(2.0));
  CHECK(slowest(RoutingMode::Split) == Approx(1.0));
  CHECK(slowest(RoutingMode::Ecmp) >= 1.0);
}

TEST_CASE("traffic patterns", "[fabric][traffic]") {
  auto t = tree(4);
  TrafficSpec s;
  s.pattern = Pattern::AllToAll;
  s.hosts = {0, 1, 2, 3};
  CHECK(make_traffic(t, s).size() == 12);
  s.pattern = Pattern::Incast;
  CHECK(make_traffic(t, s).size() == 3);
  s.pattern = Pattern::RingAllReduce;
  s.bytes = 4e9;
  const auto ring = make_traffic(t, s);
  REQUIRE(ring.size() == 4);
  CHECK(ring[0].bytes == Approx(6e9));  // 2(n-1)/n * bytes
  CHECK(ring[3].dst == 0);
  s.pattern = Pattern::Permutation;
  s.hosts.clear();
  for (uint64_t seed = 1; seed < 20; ++seed) {
    s.seed = seed;
    const auto p = make_traffic(t, s);
    REQUIRE(p.size() == 16);
    std::set<uint32_t> dsts;
    for (const auto& x : p) {
      CHECK(x.src != x.dst);
      dsts.insert(x.dst);
    }
    CHECK(dsts.size() == 16);
    CHECK(p.front().dst == make_traffic(t, s).front().dst);  // same seed, same pattern
  }
  s.pattern = Pattern::Uniform;
  s.flows_per_host = 3;
  CHECK(make_traffic(t, s).size() == 48);
  // NVLink domains of 2 hosts: pairs inside a domain never reach the fabric.
  const auto t2 = build_topology("fat_tree", kary_fat_tree(4), t.tiers, HostModel{8, 2});
  s.pattern = Pattern::AllToAll;
  s.hosts = {0, 1, 2, 3};
  CHECK(make_traffic(t2, s).size() == 8);
  s.pattern = Pattern::Training;  // ring over domains {0,1} and {2,3}: members 0 and 2
  const auto r2 = make_traffic(t2, s);
  REQUIRE(r2.size() == 2);
  CHECK(r2[0].src == 0);
  CHECK(r2[0].dst == 2);
  s.hosts = {0, 1};  // one domain: no fabric traffic at all
  CHECK(make_traffic(t2, s).empty());
}

TEST_CASE("placement and other jobs change a job's communication time", "[fabric][coupling]") {
  auto t = tree(8);
  apply_taper(t, {1.0, 4.0});  // thin core tier
  const FailureSet none;
  MaxMinSolver solver;
  const RoutingOptions o{RoutingMode::DModK, 1};
  JobTraffic packed{{0, 1, 2, 3}, Pattern::Training, 1e9};       // one edge switch
  JobTraffic strided{{0, 32, 64, 96}, Pattern::Training, 1e9};   // four pods, through the cores
  const auto a = job_comm(t, none, o, std::vector<JobTraffic>{packed}, solver);
  const auto b = job_comm(t, none, o, std::vector<JobTraffic>{strided}, solver);
  CHECK(a[0].alone_time_s == Approx(1.5));  // 2*3/4 GB at 1 GB/s
  CHECK(b[0].alone_time_s > a[0].alone_time_s);
  // Two jobs on the same edge uplinks slow each other; alone they do not.
  // D-mod-K sends 0->4 and 1->8 up the same cable (4 mod 4 = 8 mod 4 = 0).
  JobTraffic x{{0, 4}, Pattern::Training, 1e9}, y{{1, 8}, Pattern::Training, 1e9};
  const auto both = job_comm(t, none, o, std::vector<JobTraffic>{x, y}, solver);
  CHECK(both[0].alone_time_s == Approx(1.0));
  CHECK(both[0].slowdown == Approx(2.0));
  CHECK(both[1].slowdown == Approx(2.0));
  CHECK(both[0].effective_bytes_per_s == Approx(2e9 / 2.0));
  // A job inside one NVLink domain has no fabric traffic.
  JobTraffic solo{{3}, Pattern::Training, 1e9};
  const auto s = job_comm(t, none, o, std::vector<JobTraffic>{solo}, solver);
  CHECK(s[0].slowdown == 1.0);
  CHECK(s[0].comm_time_s == 0);
  // comm_time_s with background flows crossing the job's edge uplink.
  std::vector<Demand> bg = {{2, 100, 1e9, 0, 0}, {3, 101, 1e9, 0, 0}};
  JobTraffic z{{0, 64}, Pattern::Training, 1e9};
  CHECK(comm_time_s(t, none, o, z, bg, solver) >= job_comm(t, none, o, std::vector<JobTraffic>{z}, solver)[0].alone_time_s);
}

TEST_CASE("D-mod-K on a generalized tree with parallel links", "[fabric][routing]") {
  // Leaf-spine XGFT(2; 4,4; 1,2; 1,2): each leaf has 2 spines x 2 parallel links = 4 up-ports.
  // D-mod-K digit at level 2: r = (d / (w1 p1)) mod (w2 p2) = d mod 4. Parents first, as
  // OpenSM's ftree (least-loaded parent switch, then least-loaded cable) and SimGrid FAT_TREE's
  // up-route (child port r = parent + cable * w): spine r mod 2, cable r / 2, port = spine*p + cable.
  std::vector<TierSpec> tiers(2, TierSpec{1e9, 0, ""});
  const auto t = build_topology("leaf_spine", leaf_spine(4, 4, 2, 2), tiers);
  CHECK(t.x.paths_at_lca(2) == 4);
  CHECK(live_paths(t, FailureSet{}, 0, 4).size() == 4);
  RoutingOptions cables_first;
  cables_first.cables = CableOrder::CablesFirst;
  for (uint32_t d = 4; d < 16; ++d) {
    const uint32_t r = d % 4;
    CHECK(dmodk_ports(t, {}, d, 2) == std::vector<uint32_t>{0, (r % 2) * 2 + r / 2});
    CHECK(dmodk_ports(t, cables_first, d, 2) == std::vector<uint32_t>{0, r});
    const auto names = route_names(t, FailureSet{}, RoutingMode::DModK, 0, d);
    REQUIRE(names.size() == 4);
    CHECK(names[1] == "L1:0>L2:" + std::to_string(r % 2));  // consecutive destinations alternate spines
  }
  // LID order other than host index: D-mod-K's d is the host's rank.
  RoutingOptions lid;
  lid.lid_rank.resize(16);
  for (uint32_t h = 0; h < 16; ++h) lid.lid_rank[h] = 15 - h;
  CHECK(dmodk_ports(t, lid, 4, 2) == dmodk_ports(t, {}, 11, 2));
  // Parallel links are distinct directed links: ports 0 and 1 reach the same spine by two cables.
  CHECK(t.link_to[t.link_id(1, 0, 0, 0)] == t.link_to[t.link_id(1, 0, 1, 0)]);
  CHECK(t.link_id(1, 0, 0, 0) != t.link_id(1, 0, 1, 0));
}

TEST_CASE("permutation slowest flow by routing mode matches the oracle (spec §2)", "[fabric][routing]") {
  // k=8, 1 GB flows on 1 GB/s links: D-mod-K 3-4 s, ECMP 4-5 s, split 1 s (medians over seeds).
  const auto t = tree(8);
  auto median = [&](RoutingMode m) {
    std::vector<double> v;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      TrafficSpec p;
      p.pattern = Pattern::Permutation;
      p.seed = seed;
      v.push_back(run_traffic(t, FailureSet{}, {m, seed}, make_traffic(t, p)).completion.slowest_s);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double dm = median(RoutingMode::DModK), ec = median(RoutingMode::Ecmp);
  CHECK(dm >= 3.0 - 1e-9);
  CHECK(dm <= 4.0 + 1e-9);
  CHECK(ec >= 4.0 - 1e-9);
  CHECK(ec <= 5.0 + 1e-9);
  CHECK(median(RoutingMode::Split) == Approx(1.0));
}

TEST_CASE("static routing (adapt = false) disconnects flows over dead links", "[fabric][routing]") {
  const auto t = tree(4);
  FailureSet f;
  fail_switch(t, f, 3, 2);  // the core D-mod-K picks for host0 -> host5
  std::vector<uint32_t> links;
  RoutingOptions stat{RoutingMode::DModK, 1, false};
  CHECK_FALSE(route_one(t, f, stat, 0, 5, 0, links));
  CHECK(links.empty());
  CHECK(route_one(t, f, stat, 0, 7, 0, links));  // (7/2)%2 = 1: core L3:3, alive
  RoutingOptions adapt{RoutingMode::DModK, 1, true};
  links.clear();
  CHECK(route_one(t, f, adapt, 0, 5, 0, links));
  // ECMP static: some of many flows hash onto the dead core and are lost.
  RoutingOptions estat{RoutingMode::Ecmp, 1, false};
  int lost = 0;
  for (uint64_t flow = 0; flow < 64; ++flow) {
    links.clear();
    lost += !route_one(t, f, estat, 0, 5, flow, links);
  }
  CHECK(lost > 0);
  CHECK(lost < 64);
}

TEST_CASE("k = 4, ideal split, one core lost: a permutation takes 4/3 as long (spec §1 oracle)", "[fabric][routing]") {
  const auto t = tree(4);  // 1 GB/s links
  std::vector<Demand> d;
  for (uint32_t i = 0; i < 16; ++i) d.push_back({i, (i + 4) % 16, 1e9, 0, 0});  // all inter-pod
  const double healthy = run_traffic(t, FailureSet{}, {RoutingMode::Split, 1}, d).completion.slowest_s;
  FailureSet f;
  fail_switch(t, f, 3, 1);
  const double degraded = run_traffic(t, f, {RoutingMode::Split, 1}, d).completion.slowest_s;
  CHECK(healthy == Approx(1.0));
  CHECK(degraded == Approx(4.0 / 3));
  // A lost aggregation switch removes 2/k of each edge switch's uplinks in its pod (spec §1).
  FailureSet agg;
  fail_switch(t, agg, 2, 0);
  int live_up = 0;
  for (uint32_t port = 0; port < t.ports_up(1); ++port) live_up += !agg.dead(t.link_id(1, 0, port, 0));
  CHECK(live_up == 1);  // k/2 = 2 uplinks, 2/k * 2 = 1 lost
}
