// The keys of slurm.conf(5) and what each does in the slurm model: modelled keys take effect;
// keys that do not change scheduling (daemons, ports, paths, logging, accounting storage, launch
// and task plugins) are accepted quietly; keys that change scheduling but are not modelled get a
// warning of their own saying what floorsim assumes instead; a key slurm.conf(5) does not know
// gets a warning naming it and its line. The lists are docs/models/slurm-conf-keys.md.
#include <algorithm>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "schedulers/slurm/conf_read.hpp"
#include "schedulers/slurm/conf_text.hpp"

namespace floorsim::slurm::conf {

void Notes::add(const std::string& file, int ln, const std::string& msg) {
  lines.push_back(ln > 0 ? fmt::format("{}:{}: {}", file, ln, msg) : fmt::format("{}: {}", file, msg));
}

namespace {

// slurm.conf(5) keys (lower case) that do not change which job starts where or when.
constexpr std::string_view kQuiet[] = {
    "accountingstoragebackuphost", "accountingstorageexternalhost", "accountingstoragehost", "accountingstorageloc",
    "accountingstorageparameters", "accountingstoragepass", "accountingstorageport", "accountingstoragetres",
    "accountingstorageuser", "accountingstoreflags", "accountingstorejobcomment", "acctgatherenergytype",
    "acctgatherfilesystemtype", "acctgatherinterconnecttype", "acctgathernodefreq", "acctgatherprofiletype",
    "allowspecresourcesusage", "authalttypes", "authaltparameters", "authtype", "backupaddr", "backupcontroller",
    "batchstarttimeout", "bcastexclude", "bcastparameters", "burstbuffertype", "cachegroups", "certmgrparameters",
    "certmgrtype", "checkpointtype", "clifilterplugins", "communicationparameters", "controladdr", "controlmachine",
    "corespecplugin", "cpufreqdef", "cpufreqgovernors", "credtype", "cryptotype", "debugflags", "defaultstoragehost",
    "defaultstorageloc", "defaultstoragepass", "defaultstorageport", "defaultstoragetype", "defaultstorageuser",
    "disablerootjobs", "eiotimeout", "epilog", "epilogmsgtime", "epilogslurmctld", "extsensorsfreq", "extsensorstype",
    "fastschedule", "federationparameters", "firstjobid", "getenvtimeout", "gpufreqdef", "grestypes",
    "groupupdateforce", "groupupdatetime", "hashplugin", "healthcheckinterval", "healthchecknodestate",
    "healthcheckprogram", "inactivelimit", "interactivestepoptions", "jobacctgatherfrequency", "jobacctgatherparams",
    "jobacctgathertype", "jobcheckpointdir", "jobcomphost", "jobcomploc", "jobcompparams", "jobcomppass", "jobcompport",
    "jobcomptype", "jobcompuser", "jobcontainertype", "jobcredentialprivatekey", "jobcredentialpubliccertificate",
    "jobfileappend", "keepalivetime", "killonbadexit", "launchparameters", "launchtype", "logtimeformat", "maildomain",
    "mailprog", "maxarraysize", "maxdbdmsgs", "maxjobid", "maxstepcount", "maxtaskspernode", "memlimitenforce",
    "messagetimeout", "minjobage", "mpidefault", "mpiparams", "nodefeaturesplugins", "plugindir", "plugstackconfig",
    "powerparameters", "powerplugin", "prepparameters", "prepplugins", "privatedata", "proctracktype", "prolog",
    "prologepilogtimeout", "prologflags", "prologslurmctld", "propagateprioprocess", "propagateresourcelimits",
    "propagateresourcelimitsexcept", "rebootprogram", "reconfigflags", "resumefailprogram", "resumeprogram",
    "resumerate", "resumetimeout", "resvepilog", "resvprolog", "returntoservice", "routeplugin",
    "sallocdefaultcommand", "sbcastparameters", "schedulerport", "schedulerrootfilter", "scronparameters",
    "selecttype", "slurmctldaddr", "slurmctlddebug", "slurmctldhost", "slurmctldlogfile",
    "slurmctldparameters", "slurmctldpidfile", "slurmctldplugstack", "slurmctldport", "slurmctldprimaryoffprog",
    "slurmctldprimaryonprog", "slurmctldsyslogdebug", "slurmctldtimeout", "slurmddebug", "slurmdlogfile",
    "slurmdparameters", "slurmdpidfile", "slurmdport", "slurmdspooldir", "slurmdsyslogdebug", "slurmdtimeout",
    "slurmduser", "slurmschedlogfile", "slurmschedloglevel", "slurmuser", "srunepilog", "srunportrange", "srunprolog",
    "statesavelocation", "suspendexcnodes", "suspendexcparts", "suspendexcstates", "suspendprogram", "suspendrate",
    "suspendtimeout", "switchparameters", "switchtype", "taskepilog", "taskplugin", "taskpluginparam", "taskprolog",
    "tcptimeout", "tlstype", "tmpfs", "trackwckey", "treewidth", "unkillablestepprogram", "unkillablesteptimeout",
    "usepam", "vsizefactor", "waittime", "x11parameters"};

// slurm.conf(5) keys that change scheduling but are not modelled, and what floorsim does instead.
struct Unmodelled {
  std::string_view key;
  std::string_view assumed;
};
constexpr Unmodelled kUnmodelled[] = {
    {"completewait", "jobs are scheduled while others complete (CompleteWait=0)"},
    {"dependencyparameters", "jobs have no dependencies"},
    {"fairsharedampeningfactor", "no dampening (FairShareDampeningFactor=1)"},
    {"jobrequeue", "floorsim's own failure handling decides what a node failure does to a job"},
    {"jobsubmitplugins", "no job_submit plugin changes jobs; they run as the workload gives them"},
    {"licenses", "no job waits for a license"},
    {"maxjobcount", "no limit on the jobs slurmctld holds"},
    {"mcsparameters", "nodes are shared regardless of MCS labels"},
    {"mcsplugin", "nodes are shared regardless of MCS labels"},
    {"priorityparameters", "no priority plugin parameters"},
    {"prioritysitefactorparameters", "the site factor is 0"},
    {"prioritysitefactorplugin", "the site factor is 0"},
    {"requeueexit", "no exit code requeues a job"},
    {"requeueexithold", "no exit code holds a job"},
    {"schedulertimeslice", "no gang scheduling time slices"},
    {"suspendtime", "nodes never power down, so no job waits for a node to resume"},
    {"topologyparam", "topology options other than the plugin are not applied"},
};

void sched_parameters(const std::string& v, SlurmConfig& cfg, const std::string& file, int ln, Notes& notes) {
  for (auto& item : split_outside_quotes(v, ',')) {
    const std::string it = trim(item);
    if (it.empty()) continue;
    const size_t eq = it.find('=');
    const std::string k = lower(it.substr(0, eq));
    const std::string val = eq == std::string::npos ? "" : it.substr(eq + 1);
    // Ranges from slurm.conf(5) where it gives them (bf_window 1-43200 min, bf_resolution 1-3600 s,
    // bf_interval up to 10800 s); counts are C ints in slurmctld.
    auto num = [&](double lo, double hi) { return to_bounded(val, "SchedulerParameters:" + k, lo, hi, file, ln); };
    auto count = [&] { return static_cast<int64_t>(num(0, std::numeric_limits<int32_t>::max())); };
    auto& s = cfg.sched;
    if (k == "bf_window") s.bf_window_s = num(1, 43200) * 60;
    else if (k == "bf_resolution") s.bf_resolution_s = num(1, 3600);
    else if (k == "bf_interval") s.bf_interval_s = num(1, 10800);
    else if (k == "bf_max_job_test" || k == "max_job_bf") s.bf_max_job_test = count();
    else if (k == "bf_continue") s.bf_continue = true;
    else if (k == "bf_max_job_user") s.bf_max_job_user = count();
    else if (k == "sched_interval") s.sched_interval_s = num(1, 86400);
    else if (k == "default_queue_depth") s.default_queue_depth = count();
    else if (k == "batch_sched_delay") s.batch_sched_delay_s = num(0, 86400);
    else if (k == "assoc_limit_stop") s.assoc_limit_stop = true;
    else if (k == "max_switch_wait") s.max_switch_wait_s = num(0, 365 * 86400.0);
    else notes.add(file, ln, fmt::format("SchedulerParameters item {} is not modelled; floorsim schedules as slurmctld does without it", it));
  }
}

// The priority keys of slurm.conf(5) (PriorityType, PriorityFlags, PriorityDecayHalfLife,
// PriorityWeight*, ...); false when `k` is not one of them.
bool priority_setting(const std::string& k, const std::string& key, const std::string& v, PriorityParams& pr,
                      const std::string& file, int ln, Notes& notes) {
  if (k == "prioritytype") {
    const std::string l = lower(v);
    if (l == "priority/basic") pr.type = PriorityType::Basic;
    else if (l == "priority/multifactor") pr.type = PriorityType::Multifactor;
    else bad(file, ln, fmt::format("PriorityType={}; expected priority/basic or priority/multifactor", v));
  } else if (k == "priorityflags") {
    for (auto& f : to_list(lower(v))) {
      if (f == "no_fair_tree") pr.fair_tree = false;
      else if (f == "fair_tree") pr.fair_tree = true;
      else if (f == "max_tres") pr.max_tres = true;
      else notes.add(file, ln, fmt::format("PriorityFlags item {} is not modelled; priority is computed without it", f));
    }
  } else if (k == "prioritydecayhalflife") pr.decay_half_life_s = to_time(v, key, file, ln);
  else if (k == "prioritymaxage") pr.max_age_s = to_time(v, key, file, ln);
  else if (k == "prioritycalcperiod") pr.calc_period_s = to_time(v, key, file, ln);
  else if (k == "priorityusageresetperiod") {
    const std::string u = lower(v);
    static constexpr const char* kOk[] = {"none", "now", "daily", "weekly", "monthly", "quarterly", "yearly"};
    if (std::find(std::begin(kOk), std::end(kOk), u) == std::end(kOk))
      bad(file, ln, fmt::format("PriorityUsageResetPeriod={}; expected NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY", v));
    pr.usage_reset_period = u;
  } else if (k == "priorityweightage") pr.weight_age = to_weight(v, key, file, ln);
  else if (k == "priorityweightfairshare") pr.weight_fairshare = to_weight(v, key, file, ln);
  else if (k == "priorityweightjobsize") pr.weight_jobsize = to_weight(v, key, file, ln);
  else if (k == "priorityweightpartition") pr.weight_partition = to_weight(v, key, file, ln);
  else if (k == "priorityweightqos") pr.weight_qos = to_weight(v, key, file, ln);
  else if (k == "priorityweightassoc") pr.weight_assoc = to_weight(v, key, file, ln);
  else if (k == "priorityfavorsmall") pr.favor_small = to_bool(v, key, file, ln);
  else if (k == "priorityweighttres") {
    for (auto& item : split_outside_quotes(v, ',')) {
      const auto eq = item.find('=');
      if (eq == std::string::npos) bad(file, ln, fmt::format("PriorityWeightTRES item '{}'; expected TRES=weight", item));
      const std::string t = lower(trim(item.substr(0, eq)));
      const double w = to_num(trim(item.substr(eq + 1)), key, file, ln);
      if (t == "gres/gpu") pr.weight_tres_gpu = w;
      else if (t == "cpu") pr.weight_tres_cpu = w;
      else if (t == "node") pr.weight_tres_node = w;
      else notes.add(file, ln, fmt::format("PriorityWeightTRES item {} is not modelled; its weight is taken as 0", t));
    }
  } else {
    return false;
  }
  return true;
}

// AuthInfo=cred_expire=N,socket=...: cred_expire is how long a job's credential lives, and a
// requeued job may not start again before it has passed (slurm.conf(5) AuthInfo; the model's
// begin time after a requeue). The other AuthInfo options are about munge and do not schedule.
void auth_info(const std::string& v, SlurmConfig& cfg, const std::string& file, int ln) {
  for (auto& item : split_outside_quotes(v, ',')) {
    const std::string it = trim(item);
    const size_t eq = it.find('=');
    if (eq == std::string::npos || lower(trim(it.substr(0, eq))) != "cred_expire") continue;
    cfg.sched.requeue_delay_s = to_bounded(trim(it.substr(eq + 1)), "AuthInfo:cred_expire", 5, 365 * 86400.0, file, ln);
  }
}

void accounting_enforce(const std::string& v, SlurmConfig& cfg, const std::string& file, int ln) {
  for (auto& f : to_list(lower(v))) {
    if (f == "limits") cfg.enforce_limits = true;
    else if (f == "qos") cfg.enforce_qos = true;
    else if (f == "safe") cfg.enforce_safe = cfg.enforce_limits = true;  // safe implies limits (slurm.conf(5))
    else if (f == "associations") cfg.enforce_associations = true;
    else if (f == "all") cfg.enforce_limits = cfg.enforce_qos = cfg.enforce_associations = true;
    else if (f == "nojobs" || f == "nosteps" || f == "wckeys") continue;
    else bad(file, ln, fmt::format("AccountingStorageEnforce item '{}'; expected associations, limits, qos, safe, nojobs, nosteps, wckeys or all", f));
  }
}

void preempt_type(const std::string& v, SlurmConfig& cfg, const std::string& file, int ln, Notes& notes) {
  const std::string l = lower(v);
  if (l == "preempt/qos") cfg.preempt_qos = true;
  else if (l == "preempt/none") cfg.preempt_qos = false;
  else if (l == "preempt/partition_prio") {
    cfg.preempt_qos = false;
    notes.add(file, ln, "PreemptType=preempt/partition_prio is not modelled; preemption is off");
  } else bad(file, ln, fmt::format("PreemptType={}; expected preempt/none, preempt/qos or preempt/partition_prio", v));
}

void topology_plugin(const std::string& v, SlurmConfig& cfg, const std::string& file, int ln) {
  const std::string l = lower(v);
  if (l == "topology/tree") cfg.topology = "tree";
  else if (l == "topology/block") cfg.topology = "block";
  else if (l == "topology/none" || l == "topology/default" || l == "topology/flat") cfg.topology = "none";
  else bad(file, ln, fmt::format("TopologyPlugin={}; expected topology/tree, topology/block or topology/flat", v));
}

// A key that changes scheduling but is not modelled; false when `k` is not one.

bool unmodelled(const std::string& k, const std::string& key, const std::string& v, const std::string& file, int ln,
                Notes& notes) {
  const auto it = std::find_if(std::begin(kUnmodelled), std::end(kUnmodelled), [&](const Unmodelled& u) { return u.key == k; });
  if (it == std::end(kUnmodelled)) return false;
  const std::string l = lower(v);
  // The values that are slurmctld's defaults (or say "off") change nothing, so they need no warning.
  const bool off = l.empty() || ((k == "suspendtime") && (l == "none" || l == "-1" || l == "infinite")) ||
                   ((k == "completewait" || k == "fairsharedampeningfactor") && (l == "0" || l == "1")) ||
                   ((k == "mcsplugin") && l == "mcs/none") ||
                   ((k == "jobrequeue") && l == "1") ||
                   ((k.rfind("defmem", 0) == 0 || k == "defcpupergpu") && l == "0");
  if (!off) notes.add(file, ln, fmt::format("{}={} is not modelled; floorsim assumes {}", key, v, it->assumed));
  return true;
}

}  // namespace

bool job_default(const std::string& k, const std::string& key, const std::string& v, JobDefaults& d, const std::string& file, int ln) {
  int64_t* to = k == "defcpupergpu" ? &d.cpu_per_gpu : k == "defmempercpu" ? &d.mem_per_cpu : k == "defmempergpu" ? &d.mem_per_gpu
              : k == "defmempernode" ? &d.mem_per_node : nullptr;
  if (!to) return false;
  const std::string l = lower(v);
  *to = l == "unlimited" || l == "infinite" ? 0 : static_cast<int64_t>(to_bounded(v, key, 0, 1e12, file, ln));
  return true;
}

bool mem_limit(const std::string& k, const std::string& key, const std::string& v, MemLimit& m, const std::string& file, int ln) {
  if (k != "maxmempercpu" && k != "maxmempernode") return false;
  const std::string l = lower(v);
  const int64_t mb = l == "unlimited" || l == "infinite" ? 0 : static_cast<int64_t>(to_bounded(v, key, 0, 1e12, file, ln));
  m = k == "maxmempercpu" ? MemLimit{mb, 0} : MemLimit{0, mb};
  return true;
}

// EnforcePartLimits (slurm_protocol_defs.c parse_part_enforce_type: YES, UP, TRUE and 1 are ANY).
static EnforcePart enforce_part(const std::string& v, const std::string& key, const std::string& file, int ln) {
  const std::string l = lower(v);
  if (l == "all") return EnforcePart::All;
  if (l == "any" || l == "yes" || l == "up" || l == "true" || l == "1") return EnforcePart::Any;
  if (l == "no" || l == "down" || l == "false" || l == "0") return EnforcePart::No;
  bad(file, ln, fmt::format("{}={}; expected NO, ANY or ALL", key, v));
}

bool quiet_key(const std::string& k) { return std::find(std::begin(kQuiet), std::end(kQuiet), k) != std::end(kQuiet); }

void setting(const std::string& key, const std::string& v, SlurmConfig& cfg, const std::string& file, int ln, Notes& notes) {
  const std::string k = lower(key);
  if (quiet_key(k)) {
    if (k == "selecttype" && lower(v) == "select/linear")
      notes.add(file, ln, "SelectType=select/linear is not modelled; floorsim allocates GPUs within nodes as select/cons_tres does");
    return;
  }
  if (unmodelled(k, key, v, file, ln, notes)) return;
  // Key="" leaves the setting at its default, as an empty string does in slurmctld.
  if (v.empty()) return;
  if (priority_setting(k, key, v, cfg.prio, file, ln, notes)) return;
  if (job_default(k, key, v, cfg.job_defaults, file, ln)) return;
  if (mem_limit(k, key, v, cfg.max_mem, file, ln)) return;
  if (k == "enforcepartlimits") cfg.enforce_part_limits = enforce_part(v, key, file, ln);
  else if (k == "clustername") cfg.cluster_name = v;
  // slurm.conf(5): cons_tres's default is CR_Core_Memory; memory binds only with a *_Memory type.
  else if (k == "selecttypeparameters") cfg.memory_consumable = lower(v).find("memory") != std::string::npos;
  else if (k == "schedulertype") {
    const std::string l = lower(v);
    if (l == "sched/backfill") cfg.sched.backfill = true;
    else if (l == "sched/builtin") cfg.sched.backfill = false;
    else bad(file, ln, fmt::format("SchedulerType={}; expected sched/backfill or sched/builtin", v));
  } else if (k == "schedulerparameters") sched_parameters(v, cfg, file, ln, notes);
  else if (k == "accountingstoragetype") cfg.accounting_storage_type = lower(trim(v));
  else if (k == "accountingstorageenforce") accounting_enforce(v, cfg, file, ln);
  else if (k == "preempttype") preempt_type(v, cfg, file, ln, notes);
  else if (k == "preemptmode") cfg.preempt_mode = to_mode(v, key, file, ln);
  else if (k == "preemptexempttime") cfg.preempt_exempt_time_s = to_time(v, key, file, ln);
  else if (k == "preemptparameters") {
    for (auto& f : to_list(lower(v)))
      if (f == "youngest_first") cfg.preempt_youngest_first = true;
      else notes.add(file, ln, fmt::format("PreemptParameters item {} is not modelled; preemption runs without it", f));
  } else if (k == "topologyplugin") topology_plugin(v, cfg, file, ln);
  else if (k == "authinfo") auth_info(v, cfg, file, ln);
  else if (k == "killwait") cfg.sched.kill_wait_s = to_bounded(v, key, 0, 65533, file, ln);
  else if (k == "resvoverrun") cfg.resv_over_run_s = lower(v) == "unlimited" ? kNever : to_bounded(v, key, 0, 65533, file, ln) * 60;
  else if (k == "overtimelimit") cfg.sched.over_time_limit_s = lower(v) == "unlimited" ? kNever : to_bounded(v, key, 0, 65533, file, ln) * 60;
  else notes.add(file, ln, fmt::format("{} is not a slurm.conf(5) key; ignored", key));
}

}  // namespace floorsim::slurm::conf
