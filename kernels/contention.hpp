#pragma once
// Batch contention: B scenarios (each a fabric variant + flow set) solved at once.
// Max-min rates by progressive filling (spec fabric §3, closed step) and completion times by
// re-solving at every arrival and departure. Implementations: omp:: (g++, Thrust OMP backend,
// always built) and cuda:: (nvcc, only when built with FLOORSIM_CUDA=ON, see FLOORSIM_HAVE_CUDA).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "fabric/flow_set.hpp"

namespace floorsim::kernels {

// "A link attains the minimum share m" means share_l <= m * (1 + kAttainRelTol). Exact ties in
// real arithmetic can differ by an ulp or two after rounding (and between CPU and GPU), so a
// strict comparison would split one freezing round into two with ~1e-16 different rates.
inline constexpr double kAttainRelTol = 1e-12;
// At each step dt = the smallest remaining/rate; every flow with remaining/rate <= dt*(1 + this)
// departs at t + dt (near-simultaneous departures are one event, not a cascade of tiny ones).
// An arrival strictly before t + dt ends the step instead, and nobody departs. Same rule as
// fabric::complete, so the two agree to rounding.
inline constexpr double kFinishRelTol = 1e-12;

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// B scenarios in flat arrays (structure of arrays). Scenario b owns links
// [link_offsets[b], link_offsets[b+1]) and flows [flow_offsets[b], flow_offsets[b+1]).
// flow_links holds link indices LOCAL to the scenario (as in fabric::FlowSet), so a scenario's
// block can be copied or reused as-is. A flow crosses at most 255 links. Failed links: capacity 0 (flows over them get rate 0 and
// never finish: completion = +inf), or simply route around them when building the flow set.
struct ContentionBatch {
  std::vector<uint32_t> link_offsets{0};       // B+1
  std::vector<uint32_t> flow_offsets{0};       // B+1
  std::vector<double> link_capacity_bytes_per_s;
  std::vector<uint32_t> link_tier;
  std::vector<uint32_t> flow_link_offsets{0};  // total flows + 1, into flow_links
  std::vector<uint32_t> flow_links;            // local link indices
  std::vector<double> flow_size_bytes;
  std::vector<double> flow_start_s;
  uint32_t tiers = 0;                          // 1 + largest link tier in the batch

  size_t scenarios() const { return link_offsets.size() - 1; }
  size_t total_links() const { return link_capacity_bytes_per_s.size(); }
  size_t total_flows() const { return flow_size_bytes.size(); }
  // Appends one scenario. Throws std::invalid_argument when the flow set is malformed
  // (offsets not monotone, a link index out of range, sizes of arrays disagreeing).
  void add(const fabric::FlowSet& fs);
};

// Per-scenario results, flat. Flow arrays are indexed like the batch's flows; per-tier arrays
// are [b * tiers + tier].
struct ContentionResults {
  // Max-min rate with every flow of the scenario present at once (the static problem that
  // fabric's MaxMinSolver solves). A flow with no links is unconstrained: +inf.
  std::vector<double> flow_rate_bytes_per_s;
  // Completion time with arrivals at flow_start_s and re-solving at every arrival/departure.
  // +inf for a flow that never finishes (rate 0: a failed link on its path).
  std::vector<double> flow_completion_s;
  std::vector<double> slowest_completion_s;   // per scenario: max completion (inf if any stuck)
  std::vector<uint32_t> slowest_flow;         // per scenario: local index of that flow (lowest on ties)
  std::vector<double> min_rate_bytes_per_s;   // per scenario: smallest static rate (the bottleneck flow)
  // Static rates: sum over the tier's links of carried rate / sum of the tier's capacity.
  std::vector<double> tier_utilisation;
  uint32_t tiers = 0;
};

// Scratch and input/output bytes one scenario touches (for the bytes-per-scenario figure).
struct ContentionBytes {
  double input_bytes = 0, output_bytes = 0, scratch_bytes = 0;
};
ContentionBytes contention_bytes_per_scenario(const ContentionBatch& batch);

// Plain, unoptimised scalar reference (kernels/contention_reference.cpp): the literal closed
// step over std::vectors, one scenario at a time. The batch kernels must equal it.
ContentionResults contention_reference(const ContentionBatch& batch);

// Where a batch's time went (for the benchmark): copies to and from the device (0 on OMP,
// where the caller's arrays are used in place) and the solve itself.
struct ContentionTiming {
  double upload_s = 0, kernel_s = 0, download_s = 0;
};

namespace omp {
// One scenario per OpenMP thread (Thrust OMP backend); thread count from omp_set_num_threads.
ContentionResults batch_contention(const ContentionBatch& batch, ContentionTiming* timing = nullptr);
}  // namespace omp

#if defined(FLOORSIM_HAVE_CUDA)
namespace cuda {
bool device_available();
std::string device_name();
double device_memory_bandwidth_bytes_per_s();  // theoretical peak, from the device attributes
ContentionResults batch_contention(const ContentionBatch& batch, ContentionTiming* timing = nullptr);
}  // namespace cuda
#endif

}  // namespace floorsim::kernels
