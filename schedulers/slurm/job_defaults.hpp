#pragma once
// What slurmctld gives a job that does not ask: CPUs per GPU (DefCpuPerGPU) and memory per CPU,
// per GPU or per node (DefMemPerCPU, DefMemPerGPU, DefMemPerNode), from the job's partition or
// else the cluster (slurm.conf(5)).
#include "schedulers/slurm/config.hpp"
#include "sim/core/types.hpp"

namespace floorsim::slurm {

// The job's request with the defaults applied where it gives none. A GPU job without a CPU
// count gets DefCpuPerGPU CPUs per GPU. A job without a memory request gets DefMemPerGPU per GPU
// (GPU jobs), else DefMemPerCPU per CPU, else DefMemPerNode per node; the three are mutually
// exclusive in slurm.conf(5), and a partition that sets one replaces the cluster's.
JobSpec with_defaults(const JobDefaults& cluster, const JobDefaults& partition, JobSpec js);

}  // namespace floorsim::slurm
