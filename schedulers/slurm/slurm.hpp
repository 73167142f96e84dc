#pragma once
// The `slurm` model: Slurm 22.05's slurmctld scheduling (main loop + backfill), multifactor
// priority with fair-share, QOS/association limits, preempt/qos and reservations, driven by a
// SlurmConfig read from slurm.conf + sacctmgr dump (+ topology.conf, gres.conf) or inline JSON.
// Rules and their sources: README.md beside this file maps each file to the slurmctld source
// files and Slurm documentation it follows.
#include <memory>
#include <string>

#include "schedulers/registry.hpp"
#include "schedulers/slurm/config.hpp"
#include "sim/core/cluster.hpp"
#include "sim/core/scheduler_api.hpp"

namespace floorsim::slurm {

// Pending-reason codes (names as in src/common/job_state_reason.c).
enum Reason : uint16_t {
  kNone = 0,
  kPriority,
  kResources,
  kBeginTime,
  kPartitionTimeLimit,
  kPartitionNodeLimit,
  kQOSGrpGRES,
  kQOSGrpNodeLimit,
  kQOSGrpCpuLimit,
  kQOSMaxGRESPerUser,
  kQOSMaxNodePerUserLimit,
  kQOSMaxCpuPerUserLimit,
  kQOSMaxGRESPerJob,
  kQOSMaxNodePerJobLimit,
  kQOSMaxCpuPerJobLimit,
  kQOSMaxJobsPerUserLimit,
  kQOSGrpJobsLimit,
  kQOSMaxWallDurationPerJobLimit,
  kQOSGrpGRESMinutes,
  kQOSGrpNodeMinutes,
  kQOSGrpCpuMinutesLimit,
  kAssocGrpGRES,
  kAssocGrpNodeLimit,
  kAssocGrpCpuLimit,
  kAssocMaxJobsLimit,
  kAssocMaxWallDurationPerJobLimit,
  kReservation,
  kResvDeleted,
  kPartitionDown,
  // Refused at submission (submit_check.cpp): the job never enters slurmctld's queue.
  kInvalidAccount,
  kInvalidQOS,
  kPartitionNotAvail,
  kInvalidNodeCount,
  kTooManyCpus,
  kBadConstraints,
  kInvalidTimeLimit,
  kInvalidTaskMemory,
  // Pending for good under EnforcePartLimits=NO (job_mgr.c job_limits_check).
  kPartitionConfig,
  kMaxMemPerLimit,
  kReasonCount
};
const char* reason_text(uint16_t code);

// Builds the model. `file` names the scenario for errors about jobs that reference unknown
// partitions or QOS. The cluster's node names must match the partitions' Nodes= lists. What the
// model cannot apply goes to `warnings` (null: printed once the model is built).
std::unique_ptr<Scheduler> make_model(SlurmConfig cfg, const Workload& workload, const ClusterConfig& cluster,
                                      const std::string& file, Warnings* warnings = nullptr);

// The cluster a slurm.conf describes (NodeName lines, leaves from topology.conf switches or blocks).
ClusterConfig cluster_from_conf(const SlurmConfig& cfg);

// The effective configuration of a resolved "scheduler" block (slurm.conf and sacctmgr dump read
// and merged with the inline settings), as the model is built from it. Used by `floorsim lint`.
SlurmConfig config_from(const nlohmann::json& resolved_block, const SchedulerContext& ctx);

// The registry entry "slurm": parameter spec (every default documented) and factory.
SchedulerEntry registry_entry();

}  // namespace floorsim::slurm
