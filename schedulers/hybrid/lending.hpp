#pragma once
// The lending rule of a hybrid cluster (two schedulers, each owning part of the nodes): a pure
// function from the nodes' ownership, idleness and each side's unmet demand to the next
// ownership, so it can be table-tested apart from the schedulers.
//
//   lend     a node at home, idle for at least lend_after_s, whose home side has no pending
//            work, goes to the other side while that side's unmet demand (pending GPUs beyond
//            the free GPUs it holds) is not covered by what it already borrowed this step;
//   return   a borrowed node that is idle while its borrower has no pending work goes home;
//   reclaim  when the home side has unmet demand, its lent nodes are taken back (enough of them
//            to cover the demand): the node is closed to new work of the borrower, and goes home
//            once the borrowed work on it has ended (drain), or its borrowed jobs are requeued
//            after reclaim_grace_s (preempt: the caller issues the preemptions with that grace,
//            as Kueue's reclaimWithinCohort and Slurm's GraceTime do).
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/types.hpp"

namespace floorsim::hybrid {

enum class Side : uint8_t { Slurm = 0, Kubernetes = 1 };
inline Side other(Side s) { return s == Side::Slurm ? Side::Kubernetes : Side::Slurm; }

enum class Reclaim : uint8_t { Drain, Preempt };

struct LendParams {
  bool enabled = false;       // false: the static split, nothing ever moves
  SimTime lend_after_s = 300;
  Reclaim reclaim = Reclaim::Drain;
  SimTime reclaim_grace_s = 0;
};

struct NodeState {
  Side home = Side::Slurm;
  Side holder = Side::Slurm;   // who may start work on it (home unless lent)
  bool reclaiming = false;     // lent, being taken back: closed to new work of either side
  SimTime idle_since_s = -1;   // fully free and up since (-1: busy or down)
  SimTime reclaim_since_s = -1;
};

// A side's work that its held nodes cannot start now.
struct Demand {
  bool pending = false;       // eligible pending jobs of this side
  int64_t unmet_gpus = 0;     // their GPUs beyond the free GPUs on the nodes the side holds
};

struct LendStep {
  std::vector<NodeState> nodes;          // the next state
  // reclaim_started: every reclaim decided (an idle lent node is also reclaimed at once);
  // reclaimed: every node back home after a reclaim.
  std::vector<NodeIdx> lent, returned, reclaim_started, reclaimed;
  std::vector<NodeIdx> preempt_now;      // preempt mode: requeue the borrowed jobs on these (with the grace)
  SimTime wake_s = kNever;               // the next time a timer would lend a node
};

// One step at `now`. `idle[n]`: node n is up and has no job on it; `capacity_gpus[n]` its GPUs.
LendStep lend_step(const LendParams& p, SimTime now, const std::array<Demand, 2>& demand,
                   std::span<const uint8_t> idle, std::span<const int32_t> capacity_gpus,
                   std::span<const NodeState> in);

// Whether side `s` may start new work on the node.
inline bool usable_by(const NodeState& n, Side s) { return n.holder == s && !n.reclaiming; }

}  // namespace floorsim::hybrid
