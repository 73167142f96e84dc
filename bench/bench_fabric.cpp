// Prints max-min flow-set solves per second (spec fabric §6 anchors; issue 5 target: under 1 ms
// per k=8 permutation solve on one core). Never asserts timing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fabric/maxmin.hpp"
#include "sim/core/io.hpp"
#include "fabric/signoff.hpp"
#include "fabric/routing.hpp"
#include "fabric/topology.hpp"
#include "fabric/traffic.hpp"

using namespace floorsim::fabric;
using Clock = std::chrono::steady_clock;

namespace {

int sign_off_pack(const std::vector<uint32_t>& ks, bool search);

Topology tree(uint32_t k) {
  std::vector<TierSpec> tiers(3, TierSpec{gbps_to_bytes_per_s(400), 1e-6, "NDR"});
  return build_topology("fat_tree", kary_fat_tree(k), tiers);
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
// This process's CPU seconds: on a shared machine wall time overstates the work.
double cpu_s() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

void bench(const char* label, const Topology& t, const TrafficSpec& ts, RoutingMode mode) {
  const auto demands = make_traffic(t, ts);
  auto t0 = Clock::now();
  const auto routed = route_all(t, FailureSet{}, {mode, 1}, demands);
  const double route_s = seconds_since(t0);
  MaxMinSolver solver;
  std::vector<double> rates;
  solver.solve(routed.set, rates);  // warm the buffers
  // Repeat for at least 0.5 s.
  uint64_t n = 0;
  t0 = Clock::now();
  double el = 0;
  double checksum = 0;
  do {
    solver.solve(routed.set, rates);
    checksum += rates[n % rates.size()];
    ++n;
    el = seconds_since(t0);
  } while (el < 0.5);
  const uint32_t rounds = solver.last_rounds();
  t0 = Clock::now();
  const auto c = complete(routed.set, solver);
  const double complete_s = seconds_since(t0);
  std::printf("%-44s %-6s flows %7zu  rounds %4u  solve %9.1f us  %9.0f solves/s  route %8.2f ms  "
              "completion (%u solves) %8.2f ms  [checksum %.3g, makespan %.4g s]\n",
              label, routing_name(mode), routed.set.flows(), rounds, 1e6 * el / n, n / el,
              1e3 * route_s, c.solves, 1e3 * complete_s, checksum, c.makespan_s);
}

}  // namespace

// Usage: bench_fabric [--pack K[,K...]]: with --pack, only the sign-off pack at those radices
// (for profiling one size); without, every section and the pack at k = 16, 32, 48, 64.
int main(int argc, char** argv) {
  std::vector<uint32_t> pack_ks = {16, 32, 48, 64};
  bool pack_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--pack" && i + 1 < argc) {
      pack_only = true;
      pack_ks.clear();
      std::string v = argv[++i];
      for (size_t p = 0; p <= v.size();) {
        const size_t q = std::min(v.find(',', p), v.size());
        pack_ks.push_back(static_cast<uint32_t>(std::stoul(v.substr(p, q - p))));
        p = q + 1;
      }
    } else {
      std::fprintf(stderr, "usage: bench_fabric [--pack K[,K...]]\n");
      return 2;
    }
  }
  if (pack_only) return sign_off_pack(pack_ks, false);
  std::printf("bench_fabric: one core, MaxMinSolver::solve on a routed flow set (buffers reused)\n");
  const auto k8 = tree(8);
  TrafficSpec perm;
  perm.pattern = Pattern::Permutation;
  perm.bytes = 1e9;
  for (auto m : {RoutingMode::DModK, RoutingMode::Ecmp, RoutingMode::Split})
    bench("k=8 (128 hosts) permutation", k8, perm, m);
  const auto k16 = tree(16);
  TrafficSpec a2a;
  a2a.pattern = Pattern::AllToAll;
  a2a.bytes = 1e9;
  for (uint32_t i = 0; i < 64; ++i) a2a.hosts.push_back(i);
  for (auto m : {RoutingMode::DModK, RoutingMode::Ecmp})
    bench("k=16 (1,024 hosts) all-to-all, hosts 0..63", k16, a2a, m);
  a2a.hosts.clear();
  for (uint32_t i = 0; i < 64; ++i) a2a.hosts.push_back(i * 16);
  for (auto m : {RoutingMode::DModK, RoutingMode::Ecmp})
    bench("k=16 all-to-all, 64 hosts strided (inter-pod)", k16, a2a, m);
  bench("k=16 (1,024 hosts) permutation", k16, perm, RoutingMode::Ecmp);
  bench("k=32 (8,192 hosts) permutation", tree(32), perm, RoutingMode::Ecmp);

  // Accuracy anchor (spec fabric §2 oracle): slowest flow of random permutations, 1 GB flows on
  // 1 GB/s links, seeds 1..10, by routing mode.
  std::printf("\npermutation slowest flow (s), 1 GB on 1 GB/s links, seeds 1..10: min / median / max\n");
  for (uint32_t k : {8u, 16u}) {
    std::vector<TierSpec> tiers(3, TierSpec{1e9, 0, ""});
    const auto t = build_topology("fat_tree", kary_fat_tree(k), tiers);
    for (auto m : {RoutingMode::DModK, RoutingMode::Ecmp, RoutingMode::Split}) {
      std::vector<double> v;
      for (uint64_t seed = 1; seed <= 10; ++seed) {
        TrafficSpec p;
        p.pattern = Pattern::Permutation;
        p.seed = seed;
        v.push_back(run_traffic(t, FailureSet{}, {m, seed}, make_traffic(t, p)).completion.slowest_s);
      }
      std::sort(v.begin(), v.end());
      std::printf("  k=%-3u %-6s %.3g / %.3g / %.3g\n", k, routing_name(m), v.front(), v[v.size() / 2], v.back());
    }
  }
  return sign_off_pack(pack_ks, true);
}

namespace {

// The sign-off pack (examples/fabric/k8_quant.json: five profiles, four degraded cases run
// rerouted and static, jobs) at each radix in `ks`; the routing comparison and the
// worst-failure search off, as a large pack runs them only when asked. `search`: then the
// worst-failure search at k=16.
int sign_off_pack(const std::vector<uint32_t>& ks, bool search) {
  std::printf("\nsign-off pack, examples/fabric/k8_quant.json at radix k (routing comparison and worst-failure search off)\n");
  const std::string path = std::string(FLOORSIM_SOURCE_DIR) + "/examples/fabric/k8_quant.json";
  nlohmann::json doc = nlohmann::json::parse(floorsim::io::read_file(path));
  doc["worst_failure"]["enabled"] = false;
  doc["routing"]["compare"] = false;
  for (uint32_t k : ks) {
    doc["topology"]["k"] = k;
    doc["full_scale_hosts"] = k * k * k / 4;
    const auto t0 = Clock::now();
    const double c0 = cpu_s();
    const auto sc = parse_fabric_scenario(doc, path);
    const auto pack = run_signoff_pack(sc);
    std::printf("  k=%-3u %6llu hosts  %7.2f s wall  %7.2f s CPU  (permutation slowest %.6g s; csv MB: flows %.1f, links %.1f, "
                "links over time %.1f)\n", k,
                static_cast<unsigned long long>(sc.topology.hosts()), seconds_since(t0), cpu_s() - c0,
                pack.pack["traffic"][0]["results"]["dmodk"]["slowest_s"].get<double>(), pack.flows_csv.size() / 1e6,
                pack.links_csv.size() / 1e6, pack.links_over_time_csv.size() / 1e6);
  }
  if (!search) return 0;
  // The worst-failure search on (every switch and cable, one at a time) at k=16.
  doc["worst_failure"]["enabled"] = true;
  doc["topology"]["k"] = 16;
  doc["full_scale_hosts"] = 16 * 16 * 16 / 4;
  const auto t0 = Clock::now();
  const double c0 = cpu_s();
  const auto sc = parse_fabric_scenario(doc, path);
  const auto pack = run_signoff_pack(sc);
  std::printf("  k=16 with the worst-failure search: %7.2f s wall  %7.2f s CPU  (%llu candidates)\n", seconds_since(t0), cpu_s() - c0,
              static_cast<unsigned long long>(pack.pack["worst_failure"]["candidates"].get<uint64_t>()));
  return 0;
}

}  // namespace
