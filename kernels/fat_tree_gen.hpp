#pragma once
// A tiny k-ary fat-tree flow-set generator for kernels/ tests and benchmarks (fabric/ owns the
// real topology builder). Directed links, 6H of them (H = k^3/4 hosts):
//   tier 0  host h -> its edge: h;            edge -> host h: H + h
//   tier 1  edge e -> agg a of its pod: 2H + e*(k/2) + a;    agg a -> edge e: 3H + e*(k/2) + a
//   tier 2  agg g -> core j of group a: 4H + g*(k/2) + j;    core -> agg g: 5H + g*(k/2) + j
// (edge e = h / (k/2); agg g = pod*(k/2) + a; core (a, j) links to agg a of every pod.)
// Routing (spec fabric §2): D-mod-K (aggregation d mod (k/2), core floor(d/(k/2)) mod (k/2)), with
// "next live port" failover when a link on the D-mod-K path has failed; or a random path.
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "fabric/flow_set.hpp"

namespace floorsim::kernels::gen {

enum class Routing { DModK, Random };

struct FatTreeSpec {
  uint32_t k = 8;
  double host_link_bytes_per_s = 25e9;  // 200 Gb/s
  double edge_taper = 1.0;              // s_e = c_host / c_edge-agg
  double agg_taper = 1.0;               // s_a = c_edge-agg / c_agg-core
  std::vector<uint32_t> failed_links;   // capacity 0
};

uint32_t fat_tree_hosts(uint32_t k);
uint32_t fat_tree_links(uint32_t k);

// Links only (no flows yet): capacities per tier from the tapers, failed links at 0.
fabric::FlowSet fat_tree_links(const FatTreeSpec& spec);

// The links of the route src -> dst (empty when src == dst).
std::vector<uint32_t> fat_tree_route(const FatTreeSpec& spec, const fabric::FlowSet& links, uint32_t src,
                                     uint32_t dst, Routing routing, std::mt19937_64& rng);

// Appends one flow.
void add_flow(fabric::FlowSet& fs, const std::vector<uint32_t>& path, double size_bytes, double start_s);

// A random scenario: `flows` flows between random distinct hosts (a permutation when flows == H),
// sizes uniform in [size_lo, size_hi], starts uniform in [0, start_hi].
fabric::FlowSet random_fat_tree_scenario(const FatTreeSpec& spec, uint32_t flows, Routing routing,
                                         double size_lo, double size_hi, double start_hi, uint64_t seed);

}  // namespace floorsim::kernels::gen
