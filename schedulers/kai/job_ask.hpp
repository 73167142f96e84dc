#pragma once
// What a KAI job requests besides GPUs: cpu and memory from the scheduler block
// (requests_per_job, requests_per_gpu), a CPU-only job's own CPUs and any job's own memory
// (mem_per_*_mib). One rule serves the model (quota charges, node placement) and the load-time
// fit check (registry SchedulerEntry::node_ask), so a job is refused at load exactly when the
// model could never place it.
#include "schedulers/common/node_resources.hpp"
#include "schedulers/kai/model.hpp"
#include "sim/core/config_spec.hpp"

namespace floorsim::kai {

class JobAsk {
 public:
  JobAsk() = default;
  explicit JobAsk(const cfg::json& resolved_block);
  // The request of resource r (0: cpu in millicores, 1: memory in MB, KAI's Queue units).
  Milli request(int r, const JobSpec& js) const;
  // Whether the block asks resource r of every job (per job or per GPU).
  bool block_asks(int r) const { return per_job_[r] != 0 || per_gpu_[r] != 0; }
  // The memory the job's pods ask of nodes, in MiB (its bytes rounded up to whole MiB).
  int64_t node_mem_mib(const JobSpec& js) const;
  // What the job's pods ask of nodes: its cpu and node_mem_mib; nothing for a fractional job
  // packed onto a shared GPU (gpu_sharing: placed by GPU share only).
  placement::NodeAsk node_ask(const JobSpec& js) const;

 private:
  double per_job_[2] = {0, 0}, per_gpu_[2] = {0, 0};
  bool sharing_ = false;
};

}  // namespace floorsim::kai
