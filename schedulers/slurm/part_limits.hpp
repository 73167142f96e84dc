#pragma once
// Partition rules on what a job gets: MaxMemPerCPU and MaxMemPerNode (slurm.conf(5)) on its
// memory request, as slurmctld applies them (src/slurmctld/job_mgr.c _valid_pn_min_mem, called at
// submission under EnforcePartLimits and by job_limits_check before every scheduling attempt);
// OverSubscribe=FORCE:N as CPU claims per CPU.
#include <cstdint>
#include <vector>

#include "schedulers/slurm/config.hpp"
#include "sim/core/types.hpp"

namespace floorsim::slurm {

// The limit that applies in a partition: its own when it sets one, else the cluster's.
MemLimit mem_limit_of(const MemLimit& cluster, const MemLimit& partition);

// What the partition's nodes give the rule: memory of its first node (MiB; 0 = not known) for a
// job without a memory request (--mem=0: all of it), and CPUs of a node for a job that gets
// whole nodes (OverSubscribe=EXCLUSIVE).
struct MemLimitNode {
  int64_t mem_mib = 0;
  int64_t cpus = 1;
  bool whole_nodes = false;
};

// Applies the limit to js (a request with the job defaults applied) and says whether the job
// may run in the partition. Per CPU over MaxMemPerCPU: CPUs multiplied by
// ceil(mem / MaxMemPerCPU), memory per CPU divided by it (the CPU count "will try to
// automatically increase", slurm.conf(5)). Per node over MaxMemPerCPU: at least
// ceil(mem / MaxMemPerCPU) CPUs on each node. Per node (or all of the node's) over
// MaxMemPerNode, or per CPU times the CPUs of a node over it: false. --mem-per-gpu requests are
// not checked (slurmctld compares pn_min_memory, which such a request leaves unset).
bool apply_mem_limit(const MemLimit& lim, const MemLimitNode& node, JobSpec& js);

// OverSubscribe=FORCE:N (slurm.conf(5): "enables each node, socket or core to oversubscribe
// each resource N ways"; GRES never, cons_tres_share.html): by node of cfg.nodes, how many jobs
// each CPU takes, N where every partition holding the node forces (the least N of them), 1
// elsewhere. cluster_from_conf gives such a node N times its CPUs, so the engine's CPU
// accounting, the main loop and backfill all count N claims per CPU; memory and GPUs are kept.
std::vector<int32_t> cpu_share_by_node(const SlurmConfig& cfg);

}  // namespace floorsim::slurm
