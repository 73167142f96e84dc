#pragma once
// What the Slurm passes remember of the last pass to skip work that cannot decide anything new
// (main_loop.cpp, priority.cpp sort_queue, reservations.cpp resv_boundaries_spent); tests/
// schedulers/slurm_pass_shortcuts.cpp runs every such shortcut on and off and compares.
// SlurmModel (model.hpp) inherits it privately: the members keep their names in the model's
// files, and model.hpp stays a readable size.
#include <cstdint>
#include <vector>

#include "sim/core/types.hpp"

namespace floorsim::slurm {

struct PassState {
  // The quiet stretch resv_boundaries_spent() measures: nothing running, no job event or policy
  // change, the same GPUs up, since quiet_since_s_.
  uint64_t quiet_events_ = UINT64_MAX;
  int64_t quiet_up_ = -1;
  SimTime quiet_since_s_ = 0;
  bool mins_blocked_ = false;
  // Skipping periodic passes that cannot decide anything new (nothing happened since the last
  // one of the same kind, the queue order is the same, no time-dependent condition expired).
  uint64_t events_ = 0, ev_main_ = UINT64_MAX, ev_bf_ = UINT64_MAX;
  SimTime last_main_s_ = -kNever;  // the last main pass (batch_sched_delay counts from it)
  int64_t up_main_ = -1, up_bf_ = -1;
  SimTime unskip_s_ = kNever;  // a time-dependent condition (exempt time, begin) expires then
  uint64_t ev_last_ = UINT64_MAX;
  std::vector<uint8_t> up_seen_;  // node_up at the previous pass (a node back up queues a pass)
  std::vector<SimTime> specials_;
  bool mins_blocked_prev_ = false;  // a job waits on a GrpTRESMins limit: decay may free it
  std::vector<JobIdx> order_main_, order_bf_;
  uint64_t ep_main_ = 0, ep_bf_ = 0;  // prio_epoch_ when order_main_ / order_bf_ were taken
  // sort_queue: the order is a strict total order when there is no preemption (id last, ids
  // unique), so the previous order with the new jobs appended, insertion-sorted, is the one
  // sorted order (priorities move little between passes).
  bool ids_unique_ = false;
  bool one_tier_ = false;  // every partition has the same PriorityTier
  std::vector<uint64_t> queue_mark_;  // by job: sort_queue's stamp (queued now / kept in order)
  uint64_t queue_stamp_ = 0;
};

}  // namespace floorsim::slurm
