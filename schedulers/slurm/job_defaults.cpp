// Job defaults (job_defaults.hpp) and the model's copy of the requests they change: placement
// (resources.cpp) and billing take a job's request from there.
#include "schedulers/slurm/job_defaults.hpp"

#include <algorithm>
#include <climits>

#include "schedulers/slurm/part_limits.hpp"
#include "schedulers/slurm/model.hpp"

namespace floorsim::slurm {

JobSpec with_defaults(const JobDefaults& cluster, const JobDefaults& partition, JobSpec js) {
  const int64_t cpg = partition.cpu_per_gpu > 0 ? partition.cpu_per_gpu : cluster.cpu_per_gpu;
  if (js.gpus > 0 && js.cpus <= 0 && cpg > 0)
    js.cpus = static_cast<int32_t>(std::min<int64_t>(INT32_MAX, cpg * js.gpus));
  if (js.mem_per != JobSpec::MemPer::None) return js;
  const JobDefaults& d = partition.mem_set() ? partition : cluster;
  auto set = [&](JobSpec::MemPer per, int64_t mb) {
    js.mem_per = per;
    js.mem_mib = static_cast<int32_t>(std::min<int64_t>(INT32_MAX, mb));
  };
  if (js.gpus > 0 && d.mem_per_gpu > 0) set(JobSpec::MemPer::Gpu, d.mem_per_gpu);
  else if (d.mem_per_cpu > 0) set(JobSpec::MemPer::Cpu, d.mem_per_cpu);
  else if (d.mem_per_node > 0) set(JobSpec::MemPer::Node, d.mem_per_node);
  return js;
}

// With MaxMemPerCPU / MaxMemPerNode (part_limits.hpp) applied after the defaults: a job the limit
// refuses is marked MaxMemPerLimit in jblock_ (build_submit_checks decides refuse or pend).
void SlurmModel::build_job_defaults(const Workload& wl) {
  auto any_part = [&](auto&& f) { return std::any_of(cfg_.partitions.begin(), cfg_.partitions.end(), f); };
  const bool any = cfg_.job_defaults.cpu_per_gpu > 0 || cfg_.job_defaults.mem_set() ||
                   any_part([](const Partition& p) { return p.defaults.cpu_per_gpu > 0 || p.defaults.mem_set(); });
  const bool limits = cfg_.max_mem.set() || any_part([](const Partition& p) { return p.max_mem.set(); });
  if (!any && !limits) return;
  jeff_.reserve(wl.jobs.size());
  for (size_t j = 0; j < wl.jobs.size(); ++j)
    jeff_.push_back(with_defaults(cfg_.job_defaults, cfg_.partitions[jpart_[j]].defaults, wl.jobs[j]));
  if (!limits) return;
  std::vector<MemLimitNode> at(part_.size());
  for (size_t p = 0; p < part_.size(); ++p) {
    const auto& m = part_[p].conf_mask;
    const size_t n = static_cast<size_t>(std::find(m.begin(), m.end(), 1) - m.begin());
    if (n < nn_ && !cap_mem_.empty()) at[p].mem_mib = cap_mem_[n];
    if (n < nn_ && !cap_cpus_.empty()) at[p].cpus = std::max(1, cap_cpus_[n]);
    at[p].whole_nodes = cfg_.partitions[p].oversubscribe == OverSubscribe::Exclusive;
  }
  for (size_t j = 0; j < wl.jobs.size(); ++j) {
    const uint32_t p = jpart_[j];
    if (!apply_mem_limit(mem_limit_of(cfg_.max_mem, cfg_.partitions[p].max_mem), at[p], jeff_[j])) {
      if (jblock_.empty()) jblock_.assign(wl.jobs.size(), kNone);
      jblock_[j] = kMaxMemPerLimit;
    }
  }
}

}  // namespace floorsim::slurm
