#pragma once
// Jobs slurmctld refuses at submission: sbatch(1) fails and the job never enters the queue.
// floorsim keeps such a job in its outputs (CANCELLED at its submit time, with the refusal as
// its reason) and counts it, so that nothing of the workload disappears silently.
#include <cstdint>
#include <string>

#include "schedulers/slurm/config.hpp"

namespace floorsim::slurm {

// The message sbatch prints for a refusal reason (src/common/slurm_errno.c), "" for others.
const char* refusal_error(uint16_t reason);

// A partition's State and access lists at submission (slurm.conf(5) State, AllowAccounts,
// DenyAccounts, AllowQos, DenyQos; job_mgr.c _part_access_check and partition_mgr.c
// part_policy_valid_acct / part_policy_valid_qos): kNone, or the refusal. An Allow list, when
// set, is the only list checked (the Deny list is then not enforced). account is "" when the
// job has no known account: an AllowAccounts partition refuses it.
uint16_t access_refusal(const Partition& p, const std::string& account, const std::string& qos);

}  // namespace floorsim::slurm
