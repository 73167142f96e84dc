#pragma once
// The earlier attempts of requeued jobs, for accounting that shows every attempt as sacct
// --duplicates does: a recording wrapper around the run's scheduler that watches job events
// (start, preemption, requeue) and forwards everything else unchanged, so the run is the same.
#include <memory>
#include <string>
#include <vector>

#include "sim/core/cluster.hpp"
#include "sim/core/scheduler_api.hpp"

namespace floorsim::app {

// One attempt that ended in a requeue; the last attempt of a job is its JobRun.
struct Attempt {
  SimTime start_s = 0;
  SimTime end_s = 0;
  bool preempted = false;  // stopped by a preemption; otherwise by a node failure
  std::string node_list;   // Slurm hostlist of the attempt's allocation
};

using AttemptLog = std::vector<std::vector<Attempt>>;  // by JobIdx, in time order

// Wraps `inner`; fills `log` (sized to the workload) as the run goes. `log` and `cluster` must
// outlive the returned scheduler.
std::unique_ptr<Scheduler> record_attempts(std::unique_ptr<Scheduler> inner, const ClusterConfig& cluster, AttemptLog& log);

}  // namespace floorsim::app
