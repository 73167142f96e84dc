// The "slurm" scheduler block: every parameter with Slurm's documented default, and the
// factory that merges it with slurm.conf / sacctmgr dump / topology.conf / gres.conf.
//
// Precedence: the block's values are the starting point; a key present in slurm.conf replaces
// it (slurm.conf is the site's source of truth). Accounts, users, QOS and partitions given
// inline are added to those of the files; the same name twice is an error, except that an
// inline QOS replaces a dumped QOS of the same name. The effective configuration is published in
// metrics.json under scheduler_report.config.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "schedulers/slurm/conf_override.hpp"
#include "schedulers/slurm/slurm.hpp"
#include "sim/core/error.hpp"

namespace floorsim::slurm {
namespace {

using cfg::json;

std::shared_ptr<const cfg::ObjectSpec> partition_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "slurm partition";
  s->doc = "a PartitionName= line";
  s->fields = {
      cfg::string("name", nullptr, "PartitionName").must(),
      cfg::string("nodes", "ALL", "Nodes= as a Slurm host list (n[1-8],gpu01) or ALL"),
      cfg::integer("priority_tier", 1, "PriorityTier: higher tiers are scheduled first").at_least(0),
      cfg::integer("priority_job_factor", 1, "PriorityJobFactor (partition priority factor)").at_least(0),
      cfg::number("max_time_s", nullptr, "MaxTime; null = UNLIMITED").or_null().at_least(0).in_unit("s"),
      cfg::number("default_time_s", nullptr, "DefaultTime for jobs without a limit; null = MaxTime").or_null().at_least(0).in_unit("s"),
      cfg::string("qos", "", "Partition QOS (its limits are pooled over every partition using it)"),
      cfg::boolean("default", false, "Default=YES: jobs without a partition go here"),
      cfg::string("tres_billing_weights", "", "TRESBillingWeights, e.g. CPU=1.0,Mem=0.25G,GRES/gpu=2.0; empty = jobs bill their allocated CPUs"),
  };
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> qos_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "slurm QOS";
  s->doc = "a QOS as sacctmgr shows it; TRES lists in Slurm syntax, e.g. \"gres/gpu=16,node=2\"";
  s->fields = {
      cfg::string("name", nullptr, "QOS name").must(),
      cfg::integer("priority", 0, "Priority (QOS priority factor)").at_least(0),
      cfg::number("usage_factor", 1.0, "UsageFactor: multiplies recorded usage").at_least(0),
      cfg::array_of("flags", cfg::Type::String, "Flags: DenyOnLimit, NoReserve, OverPartQOS, NoDecay").with_default(json::array()),
      cfg::string("grp_tres", "", "GrpTRES: running TRES of the whole QOS"),
      cfg::string("grp_tres_mins", "", "GrpTRESMins: decayed usage limit in TRES-minutes"),
      cfg::string("max_tres_per_user", "", "MaxTRESPerUser"),
      cfg::string("max_tres_per_job", "", "MaxTRESPerJob"),
      cfg::integer("max_jobs_per_user", -1, "MaxJobsPerUser (-1 = none)").at_least(-1),
      cfg::integer("grp_jobs", -1, "GrpJobs (-1 = none)").at_least(-1),
      cfg::number("max_wall_s", -1, "MaxWall (-1 = none)").at_least(-1).in_unit("s"),
      cfg::array_of("preempt", cfg::Type::String, "Preempt: QOS this QOS may preempt").with_default(json::array()),
      cfg::choice("preempt_mode", {"", "OFF", "CANCEL", "REQUEUE", "SUSPEND"}, "", "PreemptMode (\"\" = the global PreemptMode)"),
      cfg::number("preempt_exempt_time_s", -1, "PreemptExemptTime (-1 = not set here)").at_least(-1).in_unit("s"),
      cfg::number("grace_time_s", 0, "GraceTime given to its jobs when preempted").at_least(0).in_unit("s"),
  };
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> account_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "slurm account";
  s->doc = "an account association";
  s->fields = {
      cfg::string("name", nullptr, "account name").must(),
      cfg::string("parent", "root", "parent account"),
      cfg::integer("fairshare", 1, "Fairshare (raw shares)").at_least(0),
      cfg::string("grp_tres", "", "GrpTRES of the account's whole subtree"),
      cfg::integer("max_jobs", -1, "MaxJobs per association (-1 = none)").at_least(-1),
  };
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> user_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "slurm user";
  s->doc = "a user association";
  s->fields = {
      cfg::string("name", nullptr, "user name").must(),
      cfg::string("account", nullptr, "account of this association").must(),
      cfg::integer("fairshare", 1, "Fairshare (raw shares)").at_least(0),
      cfg::string("default_qos", "", "DefaultQOS (\"\" = normal)"),
      cfg::string("grp_tres", "", "GrpTRES of this association"),
      cfg::integer("max_jobs", -1, "MaxJobs (-1 = none)").at_least(-1),
  };
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> reservation_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "slurm reservation";
  s->doc = "an advanced reservation (scontrol create reservation); give nodes, node_cnt or gpus";
  s->fields = {
      cfg::string("name", nullptr, "ReservationName").must(),
      cfg::number("start_s", 0, "StartTime of the first occurrence").at_least(0).in_unit("s"),
      cfg::number("duration_s", nullptr, "Duration").must().at_least(1).in_unit("s"),
      cfg::choice("period", {"NONE", "HOURLY", "DAILY", "WEEKLY"}, "NONE", "recurrence (Flags=DAILY/WEEKLY/HOURLY)"),
      cfg::string("nodes", "", "Nodes= host list (whole nodes)"),
      cfg::integer("node_cnt", 0, "NodeCnt= (whole nodes, the first free in node order)").at_least(0),
      cfg::integer("gpus", 0, "TRES=gres/gpu:N (partial: only these GPUs)").at_least(0),
      cfg::array_of("users", cfg::Type::String, "Users= allowed in").with_default(json::array()),
      cfg::array_of("accounts", cfg::Type::String, "Accounts= allowed in").with_default(json::array()),
      cfg::array_of("qos", cfg::Type::String, "QOS= allowed in").with_default(json::array()),
      cfg::array_of("request_classes", cfg::Type::String,
                    "model: jobs of these classes ask for it (--reservation); MAGNETIC attracts every allowed job")
          .with_default(json::array()),
      cfg::array_of("flags", cfg::Type::String, "FLEX, MAGNETIC, IGNORE_JOBS (made by a change event: nodes busy with running jobs may be reserved; without it listed busy nodes refuse the change and NodeCnt/GPUs pass over them), PURGE_COMP[=time] (deleted after this long idle, default 5 min), USER_DELETE (a user who can use it may delete it)").with_default(json::array()),
  };
  return s;
}

std::shared_ptr<const cfg::ObjectSpec> switch_spec() {
  return cfg::obj("slurm switch", "a topology.conf SwitchName= line: a leaf lists nodes, an upper switch lists switches",
                  {cfg::string("name", nullptr, "SwitchName").must(),
                   cfg::string("nodes", "", "Nodes= host list (a leaf switch)"),
                   cfg::string("switches", "", "Switches= list of child switch names (an upper switch)")});
}

std::shared_ptr<const cfg::ObjectSpec> block_spec() {
  return cfg::obj("slurm block", "a topology.conf BlockName= line (a base block)",
                  {cfg::string("name", nullptr, "BlockName").must(), cfg::string("nodes", nullptr, "Nodes= host list").must()});
}

std::shared_ptr<const cfg::ObjectSpec> job_options_spec() {
  return cfg::obj("slurm job options", "sbatch topology options carried by every job of a class",
                  {cfg::integer("switches", 0, "--switches=N: wait for an allocation on at most N leaf switches (0 = none; topology/tree)").at_least(0).at_most(65535),
                   cfg::number("switch_wait_s", nullptr, "--switches=N@t: the most it waits, then best effort (null = max_switch_wait_s)").or_null().at_least(0).in_unit("s"),
                   cfg::integer("segment", 0, "--segment=S: node count must be a multiple of S, each S-node segment inside one base block (0 = none; topology/block)").at_least(0).at_most(1000000)});
}

std::shared_ptr<const cfg::ObjectSpec> params_spec() {
  auto s = std::make_shared<cfg::ObjectSpec>();
  s->name = "scheduler(slurm)";
  s->doc = "Slurm 22.05 slurmctld: main loop + backfill, multifactor priority, QOS limits, preempt/qos";
  s->fields = {
      cfg::string("type", "slurm", "scheduler model").must(),
      cfg::choice("version", {"22.05", "master"}, "22.05",
                  "behaviour where versions differ: backfill slot-end rounding (22.05 down, master up), default PriorityType"),
      cfg::string("slurm_conf", "", "slurm.conf to read (relative to the scenario); its keys override this block"),
      cfg::string("sacctmgr_dump", "", "`sacctmgr dump` file: accounts, users, QOS"),
      cfg::string("topology_conf", "", "topology.conf (SwitchName= / BlockName= lines)"),
      cfg::string("gres_conf", "", "gres.conf (GPU counts per node)"),
      cfg::boolean("backfill", true, "SchedulerType=sched/backfill (false = sched/builtin)"),
      cfg::number("sched_interval_s", 60, "SchedulerParameters=sched_interval: full main pass period").at_least(1).in_unit("s"),
      cfg::integer("default_queue_depth", 100, "jobs tested by an event-triggered main pass").at_least(1),
      cfg::number("batch_sched_delay_s", 3, "SchedulerParameters=batch_sched_delay: an event-triggered main pass runs at least this long after the previous main pass (slurmctld's background loop); 0 = at every event").at_least(0).in_unit("s"),
      cfg::boolean("assoc_limit_stop", false, "a limit-blocked job blocks its partition"),
      cfg::number("bf_interval_s", 30, "backfill period").at_least(1).in_unit("s"),
      cfg::number("bf_window_min", 1440, "bf_window: how far ahead backfill reserves").at_least(1).in_unit("min"),
      cfg::number("bf_resolution_s", 60, "bf_resolution: time granularity of the backfill map").at_least(1).in_unit("s"),
      cfg::integer("bf_max_job_test", 500, "jobs backfill tests per cycle").at_least(1),
      cfg::boolean("bf_continue", false, "bf_continue (no lock yields are modelled, so it has no effect)"),
      cfg::integer("bf_max_job_user", 0, "jobs per user backfill tests per cycle (0 = no limit)").at_least(0),
      cfg::number("kill_wait_s", 30, "KillWait: added to the end guess of a job over its limit").at_least(0).in_unit("s"),
      cfg::number("over_time_limit_min", 0, "OverTimeLimit").at_least(0).in_unit("min"),
      cfg::number("completing_s", 0, "COMPLETING hand-off: an ended or requeued job's GPUs reach the next job this long after it ends (the Epilog's run time plus slurmd's report); 0 = at once, as slurmctld without an Epilog").at_least(0).in_unit("s"),
      cfg::number("requeue_delay_s", 120, "a requeued job may start after this + 1 s (cred_expire)").at_least(0).in_unit("s"),
      cfg::choice("priority_type", {"auto", "basic", "multifactor"}, "auto",
                  "PriorityType; auto = the version's default (22.05 priority/basic, master priority/multifactor)"),
      cfg::boolean("fair_tree", true, "Fair Tree fair-share (false = PriorityFlags=NO_FAIR_TREE, classic)"),
      cfg::boolean("max_tres", false, "PriorityFlags=MAX_TRES: a job bills the largest of its weighted CPU, memory, node and GPU counts, not their sum"),
      cfg::number("priority_decay_half_life_s", 7 * 86400, "PriorityDecayHalfLife (0 = no decay)").at_least(0).in_unit("s"),
      cfg::number("priority_max_age_s", 7 * 86400, "PriorityMaxAge").at_least(0).in_unit("s"),
      cfg::number("priority_calc_period_s", 300, "PriorityCalcPeriod: usage, fair-share and job priority update period").at_least(1).in_unit("s"),
      cfg::choice("priority_usage_reset_period", {"NONE", "NOW", "DAILY", "WEEKLY", "MONTHLY", "QUARTERLY", "YEARLY"}, "NONE",
                  "PriorityUsageResetPeriod"),
      cfg::number("priority_weight_age", 0, "PriorityWeightAge").at_least(0),
      cfg::number("priority_weight_fairshare", 0, "PriorityWeightFairshare").at_least(0),
      cfg::number("priority_weight_jobsize", 0, "PriorityWeightJobSize").at_least(0),
      cfg::number("priority_weight_partition", 0, "PriorityWeightPartition").at_least(0),
      cfg::number("priority_weight_qos", 0, "PriorityWeightQOS").at_least(0),
      cfg::number("priority_weight_tres_gpu", 0, "PriorityWeightTRES GRES/gpu").at_least(0),
      cfg::number("priority_weight_tres_cpu", 0, "PriorityWeightTRES CPU").at_least(0),
      cfg::number("priority_weight_tres_node", 0, "PriorityWeightTRES Node").at_least(0),
      cfg::boolean("priority_favor_small", false, "PriorityFavorSmall"),
      cfg::array_of("accounting_storage_enforce", cfg::Type::String,
                    "AccountingStorageEnforce items: associations, limits, qos, safe, all (default: nothing enforced)")
          .with_default(json::array()),
      cfg::choice("preempt_type", {"preempt/none", "preempt/qos"}, "preempt/none", "PreemptType"),
      cfg::choice("preempt_mode", {"OFF", "CANCEL", "REQUEUE", "SUSPEND"}, "OFF", "PreemptMode (global)"),
      cfg::number("preempt_exempt_time_s", -1, "PreemptExemptTime (-1 = off)").at_least(-1).in_unit("s"),
      cfg::boolean("preempt_youngest_first", false, "PreemptParameters=youngest_first"),
      cfg::array_of("partitions", partition_spec(), "partitions, added to slurm.conf's").with_default(json::array()),
      cfg::array_of("qos", qos_spec(), "QOS, added to the dump's (same name: replaces)").with_default(json::array()),
      cfg::array_of("accounts", account_spec(), "accounts, added to the dump's").with_default(json::array()),
      cfg::array_of("users", user_spec(), "user associations, added to the dump's").with_default(json::array()),
      cfg::array_of("reservations", reservation_spec(), "advanced reservations").with_default(json::array()),
      cfg::number("resv_over_run_s", 0, "ResvOverRun: jobs in a reservation run this long past its end").at_least(0).in_unit("s"),
      cfg::choice("topology_plugin", {"topology/flat", "topology/tree", "topology/block"}, "topology/flat",
                  "TopologyPlugin (slurm.conf's replaces it); topology/block needs version master (absent in 22.05)"),
      cfg::number("max_switch_wait_s", 300, "SchedulerParameters=max_switch_wait: default --switches wait").at_least(0).in_unit("s"),
      cfg::array_of("switches", switch_spec(),
                    "topology/tree switches, added to topology.conf's; none at all = the scenario fabric's tree (edge switches as leaves), else the cluster's leaves under one root")
          .with_default(json::array()),
      cfg::array_of("blocks", block_spec(), "topology/block base blocks, added to topology.conf's; none at all = one per cluster leaf")
          .with_default(json::array()),
      cfg::array_of("block_sizes", cfg::Type::Int, "BlockSizes in nodes (base size, then power-of-2 multiples); [] = 1,2,4,8,16 base blocks")
          .with_default(json::array()),
      cfg::map_of("node_weights", cfg::Type::Int, "host list -> node Weight for nodes slurm.conf does not describe (lowest first)")
          .with_default(json::object()),
      cfg::map_of("job_options", job_options_spec(), "class name -> the topology options its jobs carry").with_default(json::object()),
  };
  return s;
}

PreemptMode mode_of(const std::string& m) {
  if (m == "OFF") return PreemptMode::Off;
  if (m == "CANCEL") return PreemptMode::Cancel;
  if (m == "REQUEUE") return PreemptMode::Requeue;
  if (m == "SUSPEND") return PreemptMode::Suspend;
  return PreemptMode::Unset;
}

// Parses a TRES string from JSON through the slurm.conf reader (one-line errors with a pointer).
Tres tres_of(const json& v, const std::string& file, const std::string& ptr) {
  const std::string s = v.get<std::string>();
  if (s.empty()) return {};
  SlurmConfig tmp;
  try {
    read_sacctmgr_dump_text("QOS - 'x':GrpTRES=" + s + "\n", file, tmp);
  } catch (const InputError& e) {
    throw InputError(file, ptr, fmt::format("TRES list \"{}\" is malformed; expected e.g. gres/gpu=16,node=2,cpu=64", s));
  }
  return tmp.qos.back().grp_tres;
}

std::string resolve_path(const std::string& base, const std::string& p) {
  if (p.empty()) return p;
  std::filesystem::path fp(p);
  if (fp.is_absolute() || base.empty()) return p;
  return (std::filesystem::path(base) / fp).string();
}

// The scalar settings of the scheduler block (scheduling, priority, enforcement, preemption,
// topology plugin); a slurm.conf read afterwards overrides them.
SlurmConfig scalars_from(const json& b, const std::string& file) {
  SlurmConfig c;
  c.version = b["version"] == "master" ? Version::Master : Version::V22_05;
  auto& sp = c.sched;
  sp.backfill = b["backfill"];
  sp.sched_interval_s = b["sched_interval_s"];
  sp.default_queue_depth = b["default_queue_depth"];
  sp.batch_sched_delay_s = b["batch_sched_delay_s"];
  sp.assoc_limit_stop = b["assoc_limit_stop"];
  sp.bf_interval_s = b["bf_interval_s"];
  sp.bf_window_s = b["bf_window_min"].get<double>() * 60;
  sp.bf_resolution_s = b["bf_resolution_s"];
  sp.bf_max_job_test = b["bf_max_job_test"];
  sp.bf_continue = b["bf_continue"];
  sp.bf_max_job_user = b["bf_max_job_user"];
  sp.kill_wait_s = b["kill_wait_s"];
  sp.over_time_limit_s = b["over_time_limit_min"].get<double>() * 60;
  sp.requeue_delay_s = b["requeue_delay_s"];
  sp.completing_s = b["completing_s"];
  auto& pr = c.prio;
  const std::string pt = b["priority_type"];
  pr.type = pt == "multifactor" || (pt == "auto" && c.version == Version::Master) ? PriorityType::Multifactor : PriorityType::Basic;
  pr.fair_tree = b["fair_tree"];
  pr.max_tres = pr.max_tres || b["max_tres"].get<bool>();
  pr.decay_half_life_s = b["priority_decay_half_life_s"];
  pr.max_age_s = b["priority_max_age_s"];
  pr.calc_period_s = b["priority_calc_period_s"];
  std::string reset = b["priority_usage_reset_period"];
  for (auto& ch : reset) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  pr.usage_reset_period = reset;
  pr.weight_age = b["priority_weight_age"];
  pr.weight_fairshare = b["priority_weight_fairshare"];
  pr.weight_jobsize = b["priority_weight_jobsize"];
  pr.weight_partition = b["priority_weight_partition"];
  pr.weight_qos = b["priority_weight_qos"];
  pr.weight_tres_gpu = b["priority_weight_tres_gpu"];
  pr.weight_tres_cpu = b["priority_weight_tres_cpu"];
  pr.weight_tres_node = b["priority_weight_tres_node"];
  pr.favor_small = b["priority_favor_small"];
  for (size_t i = 0; i < b["accounting_storage_enforce"].size(); ++i) {
    const std::string e = b["accounting_storage_enforce"][i];
    if (e == "limits") c.enforce_limits = true;
    else if (e == "qos") c.enforce_qos = true;
    else if (e == "safe") c.enforce_safe = c.enforce_limits = true;
    else if (e == "associations") c.enforce_associations = true;
    else if (e == "all") c.enforce_limits = c.enforce_qos = c.enforce_associations = true;
    else if (e == "nojobs" || e == "nosteps" || e == "wckeys") continue;
    else throw InputError(file, fmt::format("/scheduler/accounting_storage_enforce/{}", i),
                          fmt::format("unknown item \"{}\"; expected associations, limits, qos, safe or all", e));
  }
  c.preempt_qos = b["preempt_type"] == "preempt/qos";
  c.preempt_mode = mode_of(b["preempt_mode"]);
  c.preempt_exempt_time_s = b["preempt_exempt_time_s"];
  c.preempt_youngest_first = b["preempt_youngest_first"];

  {
    const std::string tp = b["topology_plugin"];
    c.topology = tp == "topology/tree" ? "tree" : tp == "topology/block" ? "block" : "none";
  }
  sp.max_switch_wait_s = b["max_switch_wait_s"];
  return c;
}

// Files: slurm.conf overrides the scalars above; the dump adds associations and QOS.
void read_config_files(const json& b, const SchedulerContext& ctx, SlurmConfig& c) {
  if (!b["slurm_conf"].get<std::string>().empty()) read_slurm_conf(resolve_path(ctx.base_dir, b["slurm_conf"]), c);
  if (!b["sacctmgr_dump"].get<std::string>().empty()) read_sacctmgr_dump(resolve_path(ctx.base_dir, b["sacctmgr_dump"]), c);
  if (!b["topology_conf"].get<std::string>().empty()) read_topology_conf(resolve_path(ctx.base_dir, b["topology_conf"]), c);
  if (!b["gres_conf"].get<std::string>().empty()) read_gres_conf(resolve_path(ctx.base_dir, b["gres_conf"]), c);
}

// scheduler.partitions[i] (at `ptr`); a name already defined (inline or in slurm.conf) is an error.
Partition partition_from(const json& p, const SlurmConfig& c, const std::string& file, const std::string& ptr) {
  Partition r;
  r.name = p["name"];
  for (const auto& q : c.partitions)
    if (q.name == r.name) throw InputError(file, ptr + "/name", fmt::format("partition {} is defined twice; expected unique names", r.name));
  const std::string nodes = p["nodes"];
  if (nodes != "ALL") {
    try {
      r.nodes = expand_hostlist(nodes);
    } catch (const std::exception& e) {
      throw InputError(file, ptr + "/nodes", fmt::format("\"{}\" is not a host list ({}); expected e.g. n[1-8]", nodes, e.what()));
    }
  }
  r.priority_tier = p["priority_tier"];
  r.priority_job_factor = p["priority_job_factor"];
  if (!p["max_time_s"].is_null()) r.max_time_s = p["max_time_s"];
  if (!p["default_time_s"].is_null()) r.default_time_s = p["default_time_s"];
  r.qos = p["qos"];
  r.is_default = p["default"];
  std::vector<std::string> unmodelled;
  const std::string err = parse_billing_weights(p["tres_billing_weights"], r.billing, unmodelled);
  if (!err.empty()) throw InputError(file, ptr + "/tres_billing_weights", err);
  if (!unmodelled.empty()) throw InputError(file, ptr + "/tres_billing_weights", fmt::format("TRES {} is not modelled; expected CPU, Mem, Node or GRES/gpu", unmodelled[0]));
  return r;
}

// scheduler.qos[i] (at `ptr`).
Qos qos_from(const json& q, const std::string& file, const std::string& ptr) {
  Qos r;
  r.name = q["name"];
  r.priority = q["priority"];
  r.usage_factor = q["usage_factor"];
  for (size_t k = 0; k < q["flags"].size(); ++k) {
    std::string f = q["flags"][k];
    std::string l = f;
    for (auto& ch : l) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (l == "denyonlimit") r.flags.deny_on_limit = true;
    else if (l == "noreserve") r.flags.no_reserve = true;
    else if (l == "overpartqos") r.flags.over_part_qos = true;
    else if (l == "nodecay") r.flags.no_decay = true;
    else throw InputError(file, fmt::format("{}/flags/{}", ptr, k), fmt::format("unknown QOS flag \"{}\"; expected DenyOnLimit, NoReserve, OverPartQOS or NoDecay", f));
  }
  r.grp_tres = tres_of(q["grp_tres"], file, ptr + "/grp_tres");
  r.grp_tres_mins = tres_of(q["grp_tres_mins"], file, ptr + "/grp_tres_mins");
  r.max_tres_per_user = tres_of(q["max_tres_per_user"], file, ptr + "/max_tres_per_user");
  r.max_tres_per_job = tres_of(q["max_tres_per_job"], file, ptr + "/max_tres_per_job");
  r.max_jobs_per_user = q["max_jobs_per_user"];
  r.grp_jobs = q["grp_jobs"];
  r.max_wall_s = q["max_wall_s"];
  for (const auto& x : q["preempt"]) r.preempt.push_back(x.get<std::string>());
  r.preempt_mode = mode_of(q["preempt_mode"]);
  r.preempt_exempt_time_s = q["preempt_exempt_time_s"];
  r.grace_time_s = q["grace_time_s"];
  return r;
}

// Inline partitions and QOS (an inline QOS replaces one of the same name from the dump).
void add_partitions_and_qos(const json& b, const std::string& file, SlurmConfig& c) {
  for (size_t i = 0; i < b["partitions"].size(); ++i)
    c.partitions.push_back(partition_from(b["partitions"][i], c, file, fmt::format("/scheduler/partitions/{}", i)));
  for (size_t i = 0; i < b["qos"].size(); ++i) {
    const Qos r = qos_from(b["qos"][i], file, fmt::format("/scheduler/qos/{}", i));
    bool replaced = false;
    for (auto& e : c.qos)
      if (e.name == r.name) e = r, replaced = true;
    if (!replaced) c.qos.push_back(r);
  }
}

// Inline accounts (under root, added first when missing) and users.
void add_associations(const json& b, const std::string& file, SlurmConfig& c) {
  if (c.accounts.empty() || c.accounts.front().name != "root") c.accounts.insert(c.accounts.begin(), root_account());
  for (size_t i = 0; i < b["accounts"].size(); ++i) {
    const json& a = b["accounts"][i];
    Account r;
    r.name = a["name"];
    r.parent = a["parent"];
    r.fairshare = a["fairshare"];
    r.grp_tres = tres_of(a["grp_tres"], file, fmt::format("/scheduler/accounts/{}/grp_tres", i));
    r.max_jobs = a["max_jobs"];
    for (const auto& e : c.accounts)
      if (e.name == r.name) throw InputError(file, fmt::format("/scheduler/accounts/{}/name", i), fmt::format("account {} is defined twice; expected unique names", r.name));
    c.accounts.push_back(r);
  }
  for (size_t i = 0; i < b["users"].size(); ++i) {
    const json& u = b["users"][i];
    User r;
    r.name = u["name"];
    r.account = u["account"];
    r.fairshare = u["fairshare"];
    r.default_qos = u["default_qos"];
    r.grp_tres = tres_of(u["grp_tres"], file, fmt::format("/scheduler/users/{}/grp_tres", i));
    r.max_jobs = u["max_jobs"];
    c.users.push_back(r);
  }
}

std::vector<std::string> host_list(const std::string& list, const std::string& file, const std::string& ptr) {
  try {
    return expand_hostlist(list);
  } catch (const std::exception& e) {
    throw InputError(file, ptr, fmt::format("\"{}\" is not a host list ({}); expected e.g. n[1-8]", list, e.what()));
  }
}

// Inline topology.conf (switches, blocks, block sizes) and node Weights.
void add_inline_topology(const json& b, const std::string& file, SlurmConfig& c) {
  for (size_t i = 0; i < b["switches"].size(); ++i) {
    const json& x = b["switches"][i];
    const std::string ptr = fmt::format("/scheduler/switches/{}", i);
    Switch w;
    w.name = x["name"];
    if (!x["nodes"].get<std::string>().empty()) w.nodes = host_list(x["nodes"], file, ptr + "/nodes");
    if (!x["switches"].get<std::string>().empty()) w.switches = host_list(x["switches"], file, ptr + "/switches");
    if (w.nodes.empty() == w.switches.empty())
      throw InputError(file, ptr, fmt::format("switch {} gives {}; expected nodes (a leaf) or switches (an upper switch)", w.name,
                                              w.nodes.empty() ? "neither nodes nor switches" : "both nodes and switches"));
    c.switches.push_back(w);
  }
  for (size_t i = 0; i < b["blocks"].size(); ++i) {
    const json& x = b["blocks"][i];
    Block k;
    k.name = x["name"];
    k.nodes = host_list(x["nodes"], file, fmt::format("/scheduler/blocks/{}/nodes", i));
    c.blocks.push_back(k);
  }
  if (!b["block_sizes"].empty()) {
    c.block_sizes.clear();
    c.block_sizes_origin = {};
    for (size_t i = 0; i < b["block_sizes"].size(); ++i) {
      const int64_t v = b["block_sizes"][i];
      if (v <= 0) throw InputError(file, fmt::format("/scheduler/block_sizes/{}", i), fmt::format("{}; expected a positive node count", v));
      c.block_sizes.push_back(v);
    }
  }
  for (const auto& [list, w] : b["node_weights"].items()) {
    const int64_t v = w;
    if (v < 0 || v > INT32_MAX) throw InputError(file, cfg::child("/scheduler/node_weights", list), fmt::format("{}; expected a Weight from 0 to 2147483647", v));
    for (const auto& n : host_list(list, file, cfg::child("/scheduler/node_weights", list))) c.inline_weights.emplace_back(n, static_cast<int32_t>(v));
  }
}

// topology/tree without switches on a scenario with a fabric: the fabric's tree (edge switch
// = leaf, then its aggregation levels, the top last), so placement and the contention model
// see the same switches ("leaf switches from the fabric").
std::vector<Switch> switches_from_fabric(const std::vector<std::vector<uint32_t>>& ft, const std::vector<std::string>& nodes) {
  std::vector<Switch> out;
  for (size_t l = 0; l < ft.size(); ++l) {
    const uint32_t groups = ft[l].empty() ? 0 : *std::max_element(ft[l].begin(), ft[l].end()) + 1;
    for (uint32_t g = 0; g < groups; ++g) {
      Switch w;
      w.name = fmt::format("fabric-L{}-{}", l + 1, g);
      for (size_t n = 0; n < nodes.size() && n < ft[l].size(); ++n) {
        if (ft[l][n] != g) continue;
        if (l == 0) w.nodes.push_back(nodes[n]);
        else {
          const std::string child = fmt::format("fabric-L{}-{}", l, ft[l - 1][n]);
          if (w.switches.empty() || w.switches.back() != child) w.switches.push_back(child);
        }
      }
      if (!w.nodes.empty() || !w.switches.empty()) out.push_back(std::move(w));
    }
  }
  return out;
}

// scheduler.reservations[i] (at `ptr`).
Reservation reservation_from(const json& x, const std::string& file, const std::string& ptr) {
  Reservation r;
  r.name = x["name"];
  r.start_s = x["start_s"];
  r.duration_s = x["duration_s"];
  const std::string per = x["period"];
  r.period = per == "HOURLY" ? Reservation::Period::Hourly
             : per == "DAILY" ? Reservation::Period::Daily
             : per == "WEEKLY" ? Reservation::Period::Weekly : Reservation::Period::None;
  const std::string nodes = x["nodes"];
  if (!nodes.empty()) {
    try {
      r.nodes = expand_hostlist(nodes);
    } catch (const std::exception& e) {
      throw InputError(file, ptr + "/nodes", fmt::format("\"{}\" is not a host list ({}); expected e.g. n[1-2]", nodes, e.what()));
    }
  }
  r.node_cnt = x["node_cnt"];
  r.gpus = x["gpus"];
  if (r.nodes.empty() && r.node_cnt == 0 && r.gpus == 0)
    throw InputError(file, ptr, "reservation reserves nothing; expected nodes, node_cnt or gpus");
  for (const auto& u : x["users"]) r.users.push_back(u);
  for (const auto& a : x["accounts"]) r.accounts.push_back(a);
  for (const auto& q : x["qos"]) r.qos.push_back(q);
  for (const auto& k : x["request_classes"]) r.request_classes.push_back(k);
  for (size_t k = 0; k < x["flags"].size(); ++k) {
    const std::string f = x["flags"][k];
    if (f == "FLEX") r.flex = true;
    else if (f == "MAGNETIC") r.magnetic = true;
    else if (f == "IGNORE_JOBS") r.ignore_jobs = true;
    else if (f == "PURGE_COMP") r.purge_comp = true;
    else if (f.rfind("PURGE_COMP=", 0) == 0) {
      r.purge_comp = true;
      if (!parse_time_s(f.substr(11), r.purge_comp_s) || r.purge_comp_s < 0)
        throw InputError(file, fmt::format("{}/flags/{}", ptr, k), fmt::format("PURGE_COMP time \"{}\"; expected a Slurm time such as 5 or 1:30:00", f.substr(11)));
    }
    else if (f == "USER_DELETE") r.user_delete = true;
    else throw InputError(file, fmt::format("{}/flags/{}", ptr, k), fmt::format("unknown reservation flag \"{}\"; expected FLEX, MAGNETIC, IGNORE_JOBS, PURGE_COMP or USER_DELETE", f));
  }
  return r;
}

}  // namespace

SlurmConfig config_from(const json& b, const SchedulerContext& ctx) {
  const std::string& file = ctx.scenario_file;
  SlurmConfig c = scalars_from(b, file);
  const SlurmConfig from_block = c;
  read_config_files(b, ctx, c);
  if (ctx.given && !b["slurm_conf"].get<std::string>().empty())
    for (auto& w : conf_override_warnings(*ctx.given, from_block, c, file, resolve_path(ctx.base_dir, b["slurm_conf"])))
      c.warnings.push_back(std::move(w));
  add_partitions_and_qos(b, file, c);
  add_associations(b, file, c);
  c.resv_over_run_s = b["resv_over_run_s"];
  add_inline_topology(b, file, c);
  for (const auto& [klass, o] : b["job_options"].items()) {
    JobOptions r;
    r.klass = klass;
    r.switches = o["switches"];
    r.switch_wait_s = o["switch_wait_s"].is_null() ? -1.0 : o["switch_wait_s"].get<double>();
    r.segment = o["segment"];
    c.job_options.push_back(r);
  }
  check_config_files(c, ctx.cluster.node_names);
  if (c.topology == "tree" && c.switches.empty() && ctx.fabric_tree && !ctx.fabric_tree->empty()) {
    c.switches = switches_from_fabric(*ctx.fabric_tree, ctx.cluster.node_names);
    c.switches_from_fabric = true;
  }
  for (size_t i = 0; i < b["reservations"].size(); ++i)
    c.reservations.push_back(reservation_from(b["reservations"][i], file, fmt::format("/scheduler/reservations/{}", i)));
  return c;
}

SchedulerEntry registry_entry() {
  return {"slurm",
          "Slurm 22.05 slurmctld: main loop + backfill, multifactor priority with fair-share, QOS/association "
          "limits, preempt/qos; reads slurm.conf and sacctmgr dump",
          [] { return params_spec(); },
          [](const json& resolved, const SchedulerContext& ctx) -> std::unique_ptr<Scheduler> {
            SlurmConfig c = config_from(resolved, ctx);
            c.sched.t0_wall_s = ctx.t0_wall_s;
            for (const auto& w : c.warnings) ctx.warn(w);
            return make_model(std::move(c), ctx.workload, ctx.cluster, ctx.scenario_file, ctx.warnings);
          },
          [](const json& b, const std::string& base_dir) -> std::optional<ClusterConfig> {
            // The files alone: warnings are given once, when the model is built from them.
            SlurmConfig c;
            if (b["slurm_conf"].get<std::string>().empty()) return std::nullopt;
            read_slurm_conf(resolve_path(base_dir, b["slurm_conf"]), c);
            if (c.nodes.empty()) return std::nullopt;
            if (!b["topology_conf"].get<std::string>().empty()) read_topology_conf(resolve_path(base_dir, b["topology_conf"]), c);
            return cluster_from_conf(c);
          }};
}

}  // namespace floorsim::slurm
