#pragma once
// Max-min fair rates by progressive filling, and flow completion times with arrivals and
// departures (spec fabric §3).
//
// The closed step, exactly as computed here (kernels/ must reproduce it to 1e-9 relative):
//   per link l touched by an unfrozen flow:  share_l = remaining_l / unfrozen_l,
//     remaining_l = c_l minus the rates of flows already frozen on l (subtracted one by one in
//     freezing order), unfrozen_l = number of unfrozen flows on l (as a double);
//   m = min_l share_l; every link with share_l == m (exact floating-point equality: m is one of
//   those same values) freezes all its unfrozen flows at rate m. Repeat until all are frozen.
//   A link's share never falls below the rate that last froze a flow on it (share_l is
//   max(remaining_l / unfrozen_l, that rate)): without it rounding can make a later round's
//   minimum an ulp below an earlier one; with it the rates come out in non-decreasing order,
//   which is what lets a departure re-solve only the flows at or above its rate (complete()).
//   A flow on several links of one round is frozen by (attributed to) the lowest link id.
//   At most #links rounds; each round costs O(live links + links of the flows it freezes).
// A flow that lists no link (src == dst) gets rate +infinity. A flow must not list a link twice.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "fabric/flow_set.hpp"

namespace floorsim::fabric {

// Holds the scratch arrays, so repeated solves (event loops, benchmarks) do not allocate once
// the buffers have grown to the problem size. Not thread-safe; use one per thread.
class MaxMinSolver {
 public:
  // Rates of the flows in `active` (indices into s); rates[f] is written for those only.
  // `rates` is resized to s.flows() if smaller. `fixed`: flows outside `active` whose rates
  // (in `rates`) are kept: on the links of `active` they are subtracted first, in the order a
  // solve over both sets would have frozen them (by rate), so that when they are exactly the
  // flows that solve freezes below the active flows' rates, the active flows' rates are bit
  // for bit those of that solve.
  void solve(const FlowSet& s, std::span<const uint32_t> active, std::vector<double>& rates,
             std::span<const uint32_t> fixed = {});
  // All flows of s.
  void solve(const FlowSet& s, std::vector<double>& rates);
  uint32_t last_rounds() const { return rounds_; }
  // The link whose share froze flow f in the last solve (its bottleneck), kNoLink for a flow
  // with no link.
  static constexpr uint32_t kNoLink = ~0u;
  uint32_t limiting_link(uint32_t f) const { return frozen_link_[f]; }

 private:
  std::vector<uint32_t> all_;          // 0..n-1 for solve(s, rates)
  std::vector<uint32_t> link_pos_;     // by link id: position in touched_ (valid while touched)
  std::vector<uint32_t> touched_;      // link ids used by active flows
  std::vector<double> remaining_;      // by touched position
  std::vector<double> unfrozen_;       // by touched position (count, as double)
  void subtract_fixed(const FlowSet& s, std::span<const uint32_t> fixed, const std::vector<double>& rates);
  std::vector<double> share_;          // by touched position
  std::vector<double> key_;            // by touched position: its lowest heap entry's key
  std::vector<double> floor_;          // by touched position: rate that last froze a flow there
  std::vector<uint32_t> sorted_fixed_;
  std::vector<uint32_t> lf_off_, lf_flows_, lf_fill_;  // touched link -> active flows (CSR)
  std::vector<uint32_t> live_, next_live_, hit_;       // touched positions still in play
  std::vector<uint8_t> frozen_;        // by flow index
  std::vector<uint32_t> frozen_link_;  // by flow index: the link that froze it
  std::vector<std::pair<double, uint32_t>> heap_;  // (share, touched position), a min-heap
  uint32_t rounds_ = 0;
};

// Completion times with arrivals (flow_start_s) and departures (fabric/completion.cpp): rates
// re-solved at each arrival and departure, for the flows the event can affect: after an
// arrival, those sharing links (directly or through other flows) with the flows that arrived or
// departed; after departures only, those at or above the slowest departed flow's rate that
// share links with the departed flows through such flows (slower flows keep their rates; see
// LinkFlows in completion.cpp). The rates are bit for bit those of a solve over every active
// flow, so both take the same events.
// Progress is lazy: a flow keeps the bytes it had left at its last rate change and the time of
// it; its finish time, that time + those bytes / rate, waits in a min-heap. An event touches
// only the flows whose rate (or bottleneck, for the trace) changed, not every active flow.
// Tie rule: the next departure is at t_done = the smallest finish time (or the next arrival
// comes first, then nobody departs); every flow finishing by t_done + 1e-12 * (t_done - t) +
// 8 ulp-ish of t_done (8 * DBL_EPSILON * |t_done|, the rounding of an absolute finish time)
// departs at t_done, in one event.
struct Completion {
  std::vector<double> finish_s;         // by flow
  std::vector<double> link_bytes;       // bytes carried per link over the whole run
  double first_s = 0, makespan_s = 0;   // first arrival, last departure
  uint32_t solves = 0;
  uint64_t flows_solved = 0;            // flows re-solved, summed over the solves
  uint64_t rate_changes = 0;            // flows whose rate a solve changed (first rates included)
};
// One link's load, constant between two solver events (an arrival or departure that changed it).
struct LinkSegment {
  uint32_t link = 0;
  double from_s = 0, to_s = 0;
  double bytes_per_s = 0;
  bool bottleneck = false;  // full, and the link whose share limited at least one of its flows
};
// What complete() can record besides finish times (for flows.csv and links.csv).
struct CompletionTrace {
  // Piecewise-constant load per link, consecutive events with the same load merged, sorted by
  // link then time; a link carries nothing outside its segments.
  std::vector<LinkSegment> link_segments;
  std::vector<double> link_peak_bytes_per_s;  // by link: the most it carried at any time
  std::vector<double> link_saturated_s;       // by link: time it was full (a bottleneck)
  std::vector<uint32_t> flow_bottleneck;      // by flow: the link that limited it longest
};
// incremental = false re-solves every active flow from scratch at each event (the reference
// the incremental path is tested against: same rates, events and outputs, bit for bit; a flow
// re-solved to its old rate is left as it was either way). tests/fabric/eager_completion.hpp
// steps every flow at every event instead: the same figures to rounding (1e-9 relative).
Completion complete(const FlowSet& s, MaxMinSolver& solver, CompletionTrace* trace = nullptr, bool incremental = true);

// complete()'s index of the active flows on each link (LinkFlows in completion.cpp), by link
// and by link occurrence: its contents do not outlive a run, its memory may.
struct LinkFlowBuffers {
  std::vector<uint32_t> first, size, link_seen;  // by link: its first slot, the slots in use, a visit mark
  std::vector<uint32_t> slots;                   // by link's slot: an occurrence index into flow_links
  std::vector<uint32_t> pos, owner;              // by occurrence: its slot within its link's, its flow
  std::vector<uint32_t> flow_seen, seed_flows, seed_links, out, fixed, stack;  // a visit mark by flow; work lists
};
// The buffers of many runs over one fabric (a sign-off pack runs about 45 over 786,432 links at
// k=64): each run writes into memory already mapped, where fresh arrays cost a page fault per
// 4 KiB at every run. The same results as complete(s, solver, ...), bit for bit.
struct CompletionScratch {
  MaxMinSolver solver;
  LinkFlowBuffers links;
};
Completion complete(const FlowSet& s, CompletionScratch& scratch, CompletionTrace* trace = nullptr,
                    bool incremental = true);
Completion complete(const FlowSet& s, MaxMinSolver& solver, LinkFlowBuffers& links, CompletionTrace* trace,
                    bool incremental);

// Summary of completion durations (finish - start): p99 is nearest-rank.
struct DurationStats {
  double slowest_s = 0, mean_s = 0, p99_s = 0;
  uint64_t count = 0;
};
DurationStats duration_stats(std::vector<double> durations_s);

}  // namespace floorsim::fabric
