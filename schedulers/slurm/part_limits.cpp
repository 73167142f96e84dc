// Partition rules (part_limits.hpp): MaxMemPerCPU / MaxMemPerNode following job_mgr.c
// _valid_pn_min_mem case by case (both per CPU, both per node, the two mixed forms compared per
// node); OverSubscribe=FORCE:N by node.
#include "schedulers/slurm/part_limits.hpp"

#include <algorithm>
#include <climits>

namespace floorsim::slurm {

MemLimit mem_limit_of(const MemLimit& cluster, const MemLimit& partition) { return partition.set() ? partition : cluster; }

namespace {
int32_t clamp32(int64_t x) { return static_cast<int32_t>(std::clamp<int64_t>(x, 0, INT32_MAX)); }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

bool apply_mem_limit(const MemLimit& lim, const MemLimitNode& node, JobSpec& js) {
  if (!lim.set() || js.mem_per == JobSpec::MemPer::Gpu) return true;
  const int64_t nodes = std::max<int32_t>(1, js.nodes);
  const int64_t cpus = js.cpus > 0 ? js.cpus : nodes;  // one task of one CPU per node when not given
  if (js.mem_per == JobSpec::MemPer::Cpu && lim.per_cpu > 0) {
    if (js.mem_mib <= lim.per_cpu) return true;
    // "increasing cpus_per_task and decreasing mem_per_cpu by factor of" the ratio.
    const int64_t ratio = ceil_div(js.mem_mib, lim.per_cpu);
    js.cpus = clamp32(cpus * ratio);
    js.mem_mib = clamp32(ceil_div(js.mem_mib, ratio));
    return true;
  }
  // Per node: the request, or all of the node's memory for a job that gives none.
  const bool per_node = js.mem_per != JobSpec::MemPer::Cpu;
  const int64_t job_node = !per_node ? -1 : js.mem_per == JobSpec::MemPer::Node && js.mem_mib > 0 ? js.mem_mib : node.mem_mib;
  if (job_node == 0) return true;  // the node's memory is not known (or --mem=0 on a node of none)
  if (job_node > 0 && lim.per_node > 0) return job_node <= lim.per_node;
  // Per CPU against MaxMemPerNode: compared per node, with the job's CPUs per node (all of the
  // node's when it gets whole nodes).
  if (job_node < 0) return js.mem_mib * (node.whole_nodes ? node.cpus : ceil_div(cpus, nodes)) <= lim.per_node;
  // Per node against MaxMemPerCPU: "Setting job's pn_min_cpus to N due to memory limit"; the
  // limit times those CPUs then always holds the request.
  const int64_t min_cpn = ceil_div(job_node, lim.per_cpu);
  if (min_cpn > ceil_div(cpus, nodes)) js.cpus = clamp32(min_cpn * nodes);
  return true;
}

std::vector<int32_t> cpu_share_by_node(const SlurmConfig& cfg) {
  std::vector<int32_t> n_of(cfg.nodes.size(), 0);  // 0: in no partition yet
  for (const auto& p : cfg.partitions) {
    const int32_t n = p.oversubscribe == OverSubscribe::Force ? p.oversubscribe_jobs : 1;
    for (size_t i = 0; i < cfg.nodes.size(); ++i) {
      const bool in = p.nodes.empty() ? !p.no_nodes : std::find(p.nodes.begin(), p.nodes.end(), cfg.nodes[i].name) != p.nodes.end();
      if (in) n_of[i] = n_of[i] == 0 ? n : std::min(n_of[i], n);
    }
  }
  for (auto& n : n_of) n = std::max(n, 1);
  return n_of;
}

}  // namespace floorsim::slurm
