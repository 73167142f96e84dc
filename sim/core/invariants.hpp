#pragma once
// Engine invariants, checked after every event when EngineConfig::check_invariants is set
// (`floorsim run --check-invariants`). Incremental: the checker keeps its own per-node used
// GPUs and per-state job counts, updated from engine hooks, and after each event it checks only
// the nodes and jobs that event touched plus O(1) global identities, so it can run on a full
// trace replay. The engine holds it by pointer: with the flag off every hook is one branch on a
// null pointer and nothing else runs.
//
// After every event (a job end or stop, a node event, a submission, a wake-up, and each
// decision a scheduler pass applies):
//   - no GPU allocated twice: the GPUs the checker counts on a node from the placements of the
//     running jobs plus the engine's free GPUs equal the node's capacity (0 while down), and
//     never exceed it; free GPUs are never negative;
//   - every job is in exactly one state: each job's state moved along a legal transition
//     (unsubmitted -> pending -> running -> pending (requeue, suspend) | final), the number of
//     pending jobs equals the live queue length and the number running the running list;
//   - GPU-seconds are conserved: the sum over jobs of allocated GPU-seconds (finished runs plus
//     the running ones so far) equals the integral of the engine's allocated GPUs over time;
//   - no event in the past: nothing is scheduled before now, time never goes back.
// run() also ends with the full O(jobs + nodes) sweep (Engine::check_invariants).
// A violation throws std::logic_error naming the invariant, the time and the job or node.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/types.hpp"

namespace floorsim {

class Engine;

class InvariantChecker {
 public:
  explicit InvariantChecker(const Engine& e);
  void on_push(SimTime t) const;            // an event scheduled at t
  void advance(SimTime t);                  // time moves from e.now() to t (before any event at t)
  void on_start(JobIdx j);                  // after the engine started j
  void on_release(JobIdx j);                // before the engine frees a running j's GPUs
  void touch(JobIdx j) { dirty(j); }        // j's state may have changed
  void touch_node(NodeIdx n) { dirty_node(n); }
  void after_event(const char* what);       // checks what the event touched

 private:
  void dirty(JobIdx j);
  void dirty_node(NodeIdx n);
  [[noreturn]] void fail(const char* what, const std::string& msg) const;

  const Engine& e_;
  std::vector<int64_t> used_;          // by node: GPUs of running placements (checker's own count)
  std::vector<uint8_t> state_;         // by job: last state seen (kUnsubmitted before submission)
  std::vector<uint8_t> job_dirty_;
  std::vector<uint8_t> node_dirty_;
  std::vector<JobIdx> dirty_jobs_;
  std::vector<NodeIdx> dirty_nodes_;
  std::vector<double> seen_alloc_gpu_s_;  // by job: JobRun::alloc_gpu_s last seen
  int64_t count_[8] = {};              // jobs per state (index = JobState, 7 = unsubmitted)
  double integral_gpu_s_ = 0;          // integral of (up - free) GPUs over time
  double closed_gpu_s_ = 0;            // sum over jobs of JobRun::alloc_gpu_s
  double running_gpus_ = 0;            // sum of gpus over running jobs
  double running_start_gpu_s_ = 0;     // sum of start_s * gpus over running jobs
};

}  // namespace floorsim
