#pragma once
// Engine-owned running state of a job, visible read-only to schedulers through the Snapshot.
#include <cstdint>
#include <string_view>

#include "sim/core/types.hpp"

namespace floorsim {

enum class JobState : uint8_t {
  Pending,    // in the queue (possibly not yet eligible: see JobRun::eligible_s)
  Running,
  Completed,  // ran its full runtime
  TimedOut,   // killed at its time limit (runtime > time limit)
  Cancelled,  // cancelled by policy (preempt mode CANCEL, reservation end, association deleted)
  NodeFail,   // killed by a node failure and not requeueable
  Unstarted,  // still pending when the simulation ended (horizon)
};

std::string_view to_string(JobState s);
inline bool is_final(JobState s) {
  return s != JobState::Pending && s != JobState::Running;
}

// One node's share of an allocation. cpus and mem_mib are 0 where the node gives no CPUs or
// memory (ClusterConfig::node_cpus / node_mem_bytes): those never bind there.
struct NodeShare {
  NodeIdx node = 0;
  int32_t gpus = 0;
  int32_t cpus = 0;
  int32_t mem_mib = 0;  // MiB: up to 2 PiB a node in 32 bits, keeping a share 16 bytes
};

struct JobRun {
  SimTime eligible_s = 0;         // may not start before (submit, or requeue begin time)
  SimTime queued_s = 0;           // when it (re)entered the queue: Slurm resets age on requeue
  SimTime start_s = -1;           // latest start (-1 = never started)
  SimTime first_start_s = -1;     // first start, for wait time
  SimTime end_s = -1;             // final end (-1 = not ended)
  SimTime planned_end_s = -1;     // start + min(remaining work, limit) while running
  SimTime limit_end_s = -1;       // start + time limit while running (what planners may assume)
  SimTime work_done_s = 0;        // checkpointed progress carried over requeues
  SimTime lost_gpu_s = 0;         // GPU-seconds of work thrown away by interruptions
  SimTime alloc_gpu_s = 0;        // GPU-seconds allocated over all runs
  SimTime stop_s = -1;            // a preemption with grace time takes effect then (-1 = none)
  uint32_t alloc_offset = 0;      // into Snapshot::allocations while running
  uint32_t alloc_count = 0;
  uint16_t requeues = 0;
  uint16_t preemptions = 0;
  uint16_t reason = 0;            // scheduler's last pending reason code (0 = none)
  uint32_t epoch = 0;             // bumped at every start: end events of older runs are stale
  uint16_t cascade_preemptions = 0;  // preemptions of this job caused by a job that was itself
                                     // preempted earlier (cascading preemption)
  bool suspended = false;         // pending because it was suspended, not queued
  uint8_t stop_how = 0;           // engine-private: what a delayed preemption will do
  bool ends_by_limit = false;     // the planned end is a time-limit kill (decided at start)
  JobState state = JobState::Pending;
  int32_t gpu_slot = -1;          // packed fractional job: the GPU slot it shares (ClusterView::gpu_first
                                  // + index on the node); -1 = whole GPUs. Fits the struct's padding.
};

}  // namespace floorsim
