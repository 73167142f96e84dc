#pragma once
// Placement over a per-node free-GPU vector. Pure functions: the caller owns the vectors, so
// the same code places jobs now (snapshot free) and in the future (a planner's projection).
#include <limits>
#include <span>
#include <vector>

#include "sim/core/job_state.hpp"
#include "sim/core/types.hpp"

namespace floorsim::placement {

// First fit in node index order:
// - nodes == 0: the first node that holds the whole job; if none does, greedy across nodes in
//   order (a job may spread, as SWF processors do);
// - nodes == N: the first N nodes that each hold an even share (gpus/N, the first gpus%N of
//   them one more), all at once (gang).
// Writes the placement into `out` (cleared first). Returns false, with `out` empty, if it does
// not fit. `free` holds 0 for nodes that are down. `max_node_gpus` (the largest node's
// capacity, ClusterView::max_node_gpus) lets a job too large for any single node skip the
// whole-node search (0 = unknown).
bool first_fit(const JobSpec& job, std::span<const int32_t> free, std::vector<NodeShare>& out,
               int32_t max_node_gpus = std::numeric_limits<int32_t>::max());

// Same, but only nodes with allowed[n] != 0 are considered (partitions, reservations).
bool first_fit_masked(const JobSpec& job, std::span<const int32_t> free, std::span<const uint8_t> allowed,
                      std::vector<NodeShare>& out, int32_t max_node_gpus = std::numeric_limits<int32_t>::max());

// Same as first_fit_masked, but nodes are tried in `order` (a permutation of the node
// indices; e.g. Slurm's lowest node Weight first). `out` lists nodes in the order taken.
bool first_fit_ordered(const JobSpec& job, std::span<const int32_t> free, std::span<const uint8_t> allowed,
                       std::span<const NodeIdx> order, std::vector<NodeShare>& out,
                       int32_t max_node_gpus = std::numeric_limits<int32_t>::max());

inline void take(std::span<int32_t> free, std::span<const NodeShare> p) {
  for (const auto& s : p) free[s.node] -= s.gpus;
}
inline void give(std::span<int32_t> free, std::span<const NodeShare> p) {
  for (const auto& s : p) free[s.node] += s.gpus;
}
inline int64_t sum(std::span<const int32_t> v) {
  int64_t t = 0;
  for (auto x : v) t += x;
  return t;
}

}  // namespace floorsim::placement
