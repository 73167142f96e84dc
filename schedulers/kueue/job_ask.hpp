#pragma once
// What a Kueue job's pods ask of nodes besides GPUs: the scheduler block's cpu and memory per
// job and per GPU (requests_per_job, requests_per_gpu), its own CPUs (a CPU-only job's, or any
// job's with charge_cpu) and its own memory (mem_per_*_mib), in millicores and MiB, rounded as
// the model's quota requests are. One rule serves the model's node placement and the
// load-time fit check (registry SchedulerEntry::node_ask), so a job is refused at load exactly
// when the model could never place it.
#include "schedulers/common/node_resources.hpp"
#include "sim/core/config_spec.hpp"

namespace floorsim::kueue {

class JobNodeAsk {
 public:
  JobNodeAsk() = default;
  explicit JobNodeAsk(const cfg::json& resolved_block);
  // The whole job's ask (before a partial admission scales it to the GPUs admitted).
  placement::NodeAsk of(const JobSpec& js) const;

 private:
  int64_t cpu_per_job_milli_ = 0, cpu_per_gpu_milli_ = 0, mem_per_job_mib_ = 0, mem_per_gpu_mib_ = 0;
  bool charge_cpu_ = false;
};

}  // namespace floorsim::kueue
