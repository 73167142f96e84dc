// Job defaults (job_defaults.hpp) and the model's copy of the requests they change: placement
// (resources.cpp) and billing take a job's request from there.
#include "schedulers/slurm/job_defaults.hpp"

#include <algorithm>
#include <climits>

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

void SlurmModel::build_job_defaults(const Workload& wl) {
  const bool any = cfg_.job_defaults.cpu_per_gpu > 0 || cfg_.job_defaults.mem_set() ||
                   std::any_of(cfg_.partitions.begin(), cfg_.partitions.end(),
                               [](const Partition& p) { return p.defaults.cpu_per_gpu > 0 || p.defaults.mem_set(); });
  if (!any) return;
  jeff_.reserve(wl.jobs.size());
  for (size_t j = 0; j < wl.jobs.size(); ++j)
    jeff_.push_back(with_defaults(cfg_.job_defaults, cfg_.partitions[jpart_[j]].defaults, wl.jobs[j]));
}

}  // namespace floorsim::slurm
