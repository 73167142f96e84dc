#pragma once
// Analytic model of a fat-tree (spec fabric §4). Every figure states its assumption; all are
// "modelled only" in the sign-off pack (no measurement behind them).
#include <cstdint>
#include <vector>

#include "fabric/topology.hpp"

namespace floorsim::fabric {

// One path class: host pairs whose lowest common ancestor is at `lca_level`.
struct PathClass {
  uint32_t lca_level = 0;
  uint32_t hops = 0;              // links host to host = 2 * lca_level
  uint64_t paths = 0;             // equal-cost shortest paths = prod_{j<=L} w_j p_j
  uint64_t peers_per_host = 0;    // M_L - M_{L-1}
};
std::vector<PathClass> path_classes(const Topology& t);

// Mean hop count under uniform traffic (all ordered pairs of distinct hosts):
// sum_i 2i (M_i - M_{i-1}) / (N - 1).
double mean_hops_uniform(const Topology& t);

// Bisection bandwidth per direction across halves of the top-level subtrees (pods): subtrees
// [0, m_h/2) against the rest.
// closed form (healthy fabric, spec §1): (N/2) c_0 / max(1, s_1, s_1 s_2, ...), N even halves.
double bisection_formula_bytes_per_s(const Topology& t);
// Max flow (Boost.Graph push-relabel) from one half's hosts to the other's over live links,
// valley-free: up links inside the source half, down links inside the destination half (the
// only paths up*/down* routing can use). Exact for any failure set; the minimum of both
// directions is returned.
double bisection_maxflow_bytes_per_s(const Topology& t, const FailureSet& f = {});

// Per-tier load at injection rate lambda per host (bytes/s), uniform traffic, ideal spreading:
// rho_0 = lambda / c_0; tier i >= 1 (leaving level-i subtrees upward)
//   rho_i = lambda * f_i * s_1..s_i / c_0,  f_i = (N - M_i)/(N - 1).
struct TierLoad {
  std::vector<double> rho;             // by tier 0..h-1
  std::vector<double> leave_fraction;  // f_i by tier (f_0 = 1)
  double saturation_bytes_per_s = 0;   // lambda* = c_0 / max(1, max_i f_i prod s)
};
TierLoad tier_load_uniform(const Topology& t, double lambda_bytes_per_s);

// Dally & Towles (2004, ch. 3) bound: uniform traffic gives per-host throughput
// <= 2 B_C / N, B_C = bisection both directions; also <= c_0. Returns the smaller.
double uniform_throughput_bound_bytes_per_s(const Topology& t, double bisection_per_direction_bytes_per_s);

// Latency of the longest path class (LCA at level h) under uniform load lambda:
// T = sum over its 2h links of (tier latency + L/c + W), W the M/M/1 (or M/D/1) queueing
// wait rho L / (c (1 - rho)) (halved for M/D/1). Infinite at rho >= 1. Modelled only: GPU
// traffic is bursty, not Poisson.
struct LatencyEstimate {
  double zero_load_s = 0;   // sum (latency + L/c)
  double queueing_s = 0;    // sum W
  double total_s = 0;
};
LatencyEstimate latency_uniform(const Topology& t, double lambda_bytes_per_s, double packet_bytes, bool md1 = false);

}  // namespace floorsim::fabric
