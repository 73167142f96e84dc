#pragma once
// Configuration of the Slurm model: the scheduling-relevant parts of slurm.conf, the accounting
// database (`sacctmgr dump`: accounts, users, QOS), topology.conf and gres.conf.
//
// Every value carries Slurm's documented default (spec slurm-model.md). Times are seconds;
// "unset" limits are -1. Names are kept as strings here; the model resolves them to indices.
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedulers/slurm/billing.hpp"
#include "sim/core/types.hpp"

namespace floorsim::slurm {

inline constexpr int64_t kUnset = -1;

// The TRES the model tracks. gpu = gres/gpu; node; cpu (JobSpec::cpus, 0 when not given).
struct Tres {
  int64_t gpu = kUnset, node = kUnset, cpu = kUnset;
  bool any() const { return gpu >= 0 || node >= 0 || cpu >= 0; }
};

enum class PreemptMode : uint8_t { Unset, Off, Cancel, Requeue, Suspend };
enum class Version : uint8_t { V22_05, Master };
enum class PriorityType : uint8_t { Basic, Multifactor };

// Where a definition was read from a configuration file (line 0: from the scenario), so that a
// problem found only once the pieces are put together is reported against that file and line.
struct Origin {
  std::string file;
  int line = 0;
};

struct QosFlags {
  bool deny_on_limit = false;
  bool no_reserve = false;
  bool over_part_qos = false;
  bool no_decay = false;
};

struct Qos {
  std::string name;
  int64_t priority = 0;
  double usage_factor = 1.0;
  QosFlags flags;
  Tres grp_tres;           // running TRES of the whole QOS (all users, all partitions)
  Tres grp_tres_mins;      // decayed usage, TRES-minutes
  Tres max_tres_per_user;  // running TRES per user within the QOS
  Tres max_tres_per_job;
  int64_t max_jobs_per_user = kUnset;
  int64_t grp_jobs = kUnset;
  double max_wall_s = kUnset;
  std::vector<std::string> preempt;  // QOS names this QOS may preempt
  PreemptMode preempt_mode = PreemptMode::Unset;
  double preempt_exempt_time_s = kUnset;  // -1 = not set here
  double grace_time_s = 0;
  Origin origin;
};

struct Account {
  std::string name;
  std::string parent;  // "" for root
  int64_t fairshare = 1;
  Tres grp_tres;
  Tres max_tres_per_user;  // MaxTRES on the association, applied per job of its users
  int64_t max_jobs = kUnset;
  double max_wall_s = kUnset;
};

inline Account root_account() {
  Account a;
  a.name = "root";
  return a;
}

struct User {
  std::string name;
  std::string account;
  int64_t fairshare = 1;
  std::string default_qos;
  Tres grp_tres;
  int64_t max_jobs = kUnset;
  double max_wall_s = kUnset;
  Origin origin;
};

// Defaults for a job that does not ask (slurm.conf(5) DefCpuPerGPU, DefMemPerCPU, DefMemPerGPU,
// DefMemPerNode), MB and CPUs; 0 = not set ("unlimited": all of each node's memory).
struct JobDefaults {
  int64_t cpu_per_gpu = 0, mem_per_cpu = 0, mem_per_gpu = 0, mem_per_node = 0;
  bool mem_set() const { return mem_per_cpu > 0 || mem_per_gpu > 0 || mem_per_node > 0; }
};

// MaxMemPerCPU / MaxMemPerNode (slurm.conf(5)), MB; 0 = not set. The two are mutually exclusive:
// the one read last wins, as in slurmctld (one field with a per-CPU flag).
struct MemLimit {
  int64_t per_cpu = 0, per_node = 0;
  bool set() const { return per_cpu > 0 || per_node > 0; }
};

// EnforcePartLimits (slurm.conf(5)): NO accepts a job over a partition's limits (it pends), ALL
// and ANY refuse it at submission (they differ only for jobs listing several partitions).
enum class EnforcePart : uint8_t { No, Any, All };

// Partition OverSubscribe (slurm.conf(5), cons_tres_share.html): NO, EXCLUSIVE (whole nodes),
// YES[:N] (shared only by jobs that ask with --oversubscribe), FORCE[:N].
enum class OverSubscribe : uint8_t { No, Exclusive, Yes, Force };

struct Partition {
  std::string name;
  std::vector<std::string> nodes;  // expanded node names; empty = ALL (unless no_nodes)
  bool no_nodes = false;           // slurm.conf gave no Nodes=: slurmctld gives the partition no node
  int64_t priority_tier = 1;
  int64_t priority_job_factor = 1;
  double max_time_s = kNever;      // UNLIMITED
  double default_time_s = -1;      // -1 = MaxTime
  std::string qos;                 // Partition QOS
  bool is_default = false;
  PreemptMode preempt_mode = PreemptMode::Unset;
  BillingWeights billing;          // TRESBillingWeights (unset: billed by allocated CPUs)
  // AllowAccounts / DenyAccounts / AllowQos / DenyQos (slurm.conf(5)); empty = not set (ALL).
  std::vector<std::string> allow_accounts, deny_accounts, allow_qos, deny_qos;
  // State (slurm.conf(5)): UP runs and queues; DOWN queues, starts nothing; DRAIN refuses new
  // jobs, runs those queued; INACTIVE does neither.
  enum class State : uint8_t { Up, Down, Drain, Inactive } state = State::Up;
  JobDefaults defaults;  // the partition's own; each unset one is the cluster's (SlurmConfig)
  MemLimit max_mem;      // the partition's own; unset: the cluster's
  int64_t max_nodes = kUnset, min_nodes = 0;  // MaxNodes (UNLIMITED = kUnset), MinNodes
  OverSubscribe oversubscribe = OverSubscribe::No;
  int32_t oversubscribe_jobs = 1;  // YES:N / FORCE:N (default 4), jobs per CPU
  Origin origin;
};

struct NodeDef {
  std::string name;
  int32_t gpus = 0;
  std::string gpu_type;        // Gres=gpu:TYPE:N ("" = untyped; several types joined by ',')
  int32_t cpus = 1;            // slurmctld's count: CPUs=, else Boards*Sockets*CoresPerSocket*ThreadsPerCore
  bool cpus_given = false;     // CPUs= or a socket/core/thread count was written
  int64_t real_memory_mb = 0;  // RealMemory= (0 = not given; slurmctld's default is 1 MB)
  int32_t weight = 1;
  std::vector<std::string> features;  // Features= (NodeSet Feature= selects by them)
  std::string state;                  // State= as written, lower case ("" = not given)
  Origin origin;
};

// NodeSet=NAME Nodes=LIST | Feature=F (slurm.conf(5) "NODESET CONFIGURATION"): a name that
// PartitionName Nodes= may use in place of node names.
struct NodeSet {
  std::string name;
  std::vector<std::string> nodes;
  std::string feature;  // Feature=: every node with it (resolved once all nodes are read)
  Origin origin;
};

struct Switch {
  std::string name;
  std::vector<std::string> nodes;     // leaf switch: its nodes
  std::vector<std::string> switches;  // upper switch: its children
  Origin origin;
};

struct Block {
  std::string name;
  std::vector<std::string> nodes;
  Origin origin;
};

// Per-class job options (sbatch flags the workload's jobs of that class carry).
struct JobOptions {
  std::string klass;
  int64_t switches = 0;         // --switches=N (0 = none)
  double switch_wait_s = -1;    // --switches=N@t (-1 = SchedulerParameters max_switch_wait)
  int64_t segment = 0;          // --segment=S (0 = none; topology/block only)
};

struct Reservation {
  std::string name;
  double start_s = 0;      // first occurrence, simulated seconds
  double duration_s = 0;
  enum class Period : uint8_t { None, Hourly, Daily, Weekly } period = Period::None;
  double period_s() const {  // recurrence period in seconds (0 = one-off)
    return period == Period::Hourly ? 3600 : period == Period::Daily ? 86400 : period == Period::Weekly ? 7 * 86400 : 0;
  }
  std::vector<std::string> nodes;  // explicit nodes (Nodes=)
  int64_t node_cnt = 0;            // NodeCnt=
  int64_t gpus = 0;                // TRES=gres/gpu:N (partial reservation)
  std::vector<std::string> users, accounts, qos;  // who may use it
  std::vector<std::string> request_classes;       // model: jobs of these classes ask for it
  bool flex = false, magnetic = false, ignore_jobs = false, purge_comp = false;
  double purge_comp_s = 300;  // PURGE_COMP[=t]: deleted after t idle (default 5 min, spec §6)
  bool user_delete = false;  // USER_DELETE: a user who can use it may delete it (issue 9 loophole)
};

struct SchedParams {
  double sched_interval_s = 60;
  int64_t default_queue_depth = 100;
  double batch_sched_delay_s = 3;     // an event-triggered main pass runs at most this often
  bool assoc_limit_stop = false;
  bool backfill = true;               // SchedulerType=sched/backfill (default) vs sched/builtin
  double bf_interval_s = 30;
  double bf_window_s = 1440 * 60;
  double bf_resolution_s = 60;
  double t0_wall_s = 0;               // wall clock of t = 0: bf_resolution rounds epoch seconds (clock.hpp)
  int64_t bf_max_job_test = 500;
  bool bf_continue = false;
  int64_t bf_max_job_user = 0;
  double kill_wait_s = 30;
  double over_time_limit_s = 0;
  // How long an ended (or requeued) job's GPUs stay COMPLETING before another job may have them:
  // the Epilog's run time plus slurmd's epilog-complete message. 0: at once, as slurmctld with
  // no Epilog (recorded 22.05 runs start the next job in the second the last one ended).
  double completing_s = 0;
  double requeue_delay_s = 120;       // AuthInfo cred_expire (default 120); begin = now + delay + 1
  double max_switch_wait_s = 300;
};

struct PriorityParams {
  PriorityType type = PriorityType::Basic;  // 22.05 default (master: multifactor)
  bool fair_tree = true;                     // PriorityFlags without NO_FAIR_TREE
  bool max_tres = false;                     // PriorityFlags=MAX_TRES (billing: max of node TRES)
  double decay_half_life_s = 7 * 86400;
  double max_age_s = 7 * 86400;
  double calc_period_s = 300;
  std::string usage_reset_period = "NONE";
  double weight_age = 0, weight_fairshare = 0, weight_jobsize = 0, weight_partition = 0,
         weight_qos = 0, weight_assoc = 0;
  double weight_tres_gpu = 0, weight_tres_cpu = 0, weight_tres_node = 0;
  bool favor_small = false;
};

struct SlurmConfig {
  Version version = Version::V22_05;
  std::string cluster_name;
  // SelectTypeParameters has a *_Memory type (CR_Core_Memory is cons_tres's default, slurm.conf(5)):
  // RealMemory then binds; with CR_Core or CR_CPU it does not (cluster_from_conf leaves it out).
  bool memory_consumable = true;
  JobDefaults job_defaults;  // slurm.conf's global DefCpuPerGPU / DefMemPer*
  MemLimit max_mem;          // slurm.conf's global MaxMemPerCPU / MaxMemPerNode
  EnforcePart enforce_part_limits = EnforcePart::No;
  SchedParams sched;
  PriorityParams prio;
  // AccountingStorageEnforce
  bool enforce_limits = false, enforce_qos = false, enforce_safe = false, enforce_associations = false;
  // Preemption
  bool preempt_qos = false;              // PreemptType=preempt/qos
  PreemptMode preempt_mode = PreemptMode::Off;
  double preempt_exempt_time_s = -1;
  bool preempt_youngest_first = false;
  std::string topology = "none";         // none | tree | block
  std::vector<int64_t> block_sizes;      // topology/block BlockSizes (in nodes); empty = default
  Origin block_sizes_origin;
  std::vector<NodeDef> nodes;
  std::vector<NodeSet> nodesets;
  std::vector<Partition> partitions;
  std::vector<Qos> qos;
  std::vector<Account> accounts;
  std::vector<User> users;
  std::vector<Reservation> reservations;
  double resv_over_run_s = 0;            // ResvOverRun (minutes in slurm.conf)
  std::vector<Switch> switches;
  std::vector<Block> blocks;
  bool switches_from_fabric = false;    // switches derived from the scenario's fabric
  std::vector<JobOptions> job_options;  // by class (scheduler block "job_options")
  // Weight of nodes slurm.conf does not describe (scheduler block "node_weights").
  std::vector<std::pair<std::string, int32_t>> inline_weights;
  std::vector<std::string> warnings;  // ignored keys etc.
  std::string accounting_storage_type;  // slurm.conf AccountingStorageType ("" = not given: slurmdbd assumed)
  // Not a Slurm setting: backfill answers jobs whose fit their GPU count decides from a release
  // plan (bitsets), the same answers as the plain will_run; tests turn it off to compare the two.
  bool plan_backfill = true;
  // Not a Slurm setting either: the passes skip work that cannot change their outcome (sorting a
  // queue whose inputs did not change, main_loop.cpp, priority.cpp); tests turn it off to compare,
  // and check_pass_shortcuts does the skipped work too and counts any difference (work_counts).
  bool pass_shortcuts = true;
  bool check_pass_shortcuts = false;
};

// Slurm time strings: "minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours",
// "days-hours:minutes", "days-hours:minutes:seconds", "UNLIMITED"/"INFINITE" (kNever).
// Returns false on malformed input.
bool parse_time_s(const std::string& s, double& out_s);

// Readers. Throw InputError(file, line, ...) on malformed input.
void read_slurm_conf(const std::string& path, SlurmConfig& cfg);
void read_slurm_conf_text(const std::string& text, const std::string& file, SlurmConfig& cfg);
void read_sacctmgr_dump(const std::string& path, SlurmConfig& cfg);
void read_sacctmgr_dump_text(const std::string& text, const std::string& file, SlurmConfig& cfg);
void read_topology_conf(const std::string& path, SlurmConfig& cfg);
void read_topology_conf_text(const std::string& text, const std::string& file, SlurmConfig& cfg);
void read_gres_conf(const std::string& path, SlurmConfig& cfg);
void read_gres_conf_text(const std::string& text, const std::string& file, SlurmConfig& cfg);

// Checks what the configuration files name against each other and the cluster's nodes, as the
// model will when it is built: partition nodes and QOS (slurm.conf), QOS Preempt and DefaultQOS
// (sacctmgr dump), switches and blocks (topology.conf). A problem is reported against the file
// and line that has it, not against the scenario; those of the scenario's own definitions are
// left to the model, which names their JSON pointers.
void check_config_files(const SlurmConfig& cfg, std::span<const std::string> node_names);

// The effective configuration as JSON (for metrics.json and debugging).
nlohmann::json to_json(const SlurmConfig& cfg);

}  // namespace floorsim::slurm
