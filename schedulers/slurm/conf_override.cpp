#include "schedulers/slurm/conf_override.hpp"

#include <functional>

#include <fmt/format.h>

namespace floorsim::slurm {

namespace {

// A block key, the slurm.conf(5) key that sets the same thing, and that setting as text.
struct Pair {
  const char* block_key;
  const char* conf_key;
  std::function<std::string(const SlurmConfig&)> value;
};

std::string mode_name(PreemptMode m) {
  switch (m) {
    case PreemptMode::Off: return "OFF";
    case PreemptMode::Cancel: return "CANCEL";
    case PreemptMode::Requeue: return "REQUEUE";
    case PreemptMode::Suspend: return "SUSPEND";
    default: return "unset";
  }
}

template <class T>
std::string text(const T& v) {
  return fmt::format("{}", v);
}

const std::vector<Pair>& pairs() {
  static const std::vector<Pair> p = {
      {"backfill", "SchedulerType", [](const SlurmConfig& c) { return std::string(c.sched.backfill ? "sched/backfill" : "sched/builtin"); }},
      {"sched_interval_s", "SchedulerParameters=sched_interval", [](const SlurmConfig& c) { return text(c.sched.sched_interval_s); }},
      {"default_queue_depth", "SchedulerParameters=default_queue_depth", [](const SlurmConfig& c) { return text(c.sched.default_queue_depth); }},
      {"batch_sched_delay_s", "SchedulerParameters=batch_sched_delay", [](const SlurmConfig& c) { return text(c.sched.batch_sched_delay_s); }},
      {"bf_interval_s", "SchedulerParameters=bf_interval", [](const SlurmConfig& c) { return text(c.sched.bf_interval_s); }},
      {"bf_window_min", "SchedulerParameters=bf_window", [](const SlurmConfig& c) { return text(c.sched.bf_window_s / 60); }},
      {"bf_resolution_s", "SchedulerParameters=bf_resolution", [](const SlurmConfig& c) { return text(c.sched.bf_resolution_s); }},
      {"bf_max_job_test", "SchedulerParameters=bf_max_job_test", [](const SlurmConfig& c) { return text(c.sched.bf_max_job_test); }},
      {"bf_max_job_user", "SchedulerParameters=bf_max_job_user", [](const SlurmConfig& c) { return text(c.sched.bf_max_job_user); }},
      {"max_switch_wait_s", "SchedulerParameters=max_switch_wait", [](const SlurmConfig& c) { return text(c.sched.max_switch_wait_s); }},
      {"kill_wait_s", "KillWait", [](const SlurmConfig& c) { return text(c.sched.kill_wait_s); }},
      {"over_time_limit_min", "OverTimeLimit", [](const SlurmConfig& c) { return text(c.sched.over_time_limit_s / 60); }},
      {"priority_type", "PriorityType",
       [](const SlurmConfig& c) { return std::string(c.prio.type == PriorityType::Multifactor ? "priority/multifactor" : "priority/basic"); }},
      {"fair_tree", "PriorityFlags (NO_FAIR_TREE)", [](const SlurmConfig& c) { return text(c.prio.fair_tree); }},
      {"max_tres", "PriorityFlags (MAX_TRES)", [](const SlurmConfig& c) { return text(c.prio.max_tres); }},
      {"priority_decay_half_life_s", "PriorityDecayHalfLife", [](const SlurmConfig& c) { return text(c.prio.decay_half_life_s); }},
      {"priority_max_age_s", "PriorityMaxAge", [](const SlurmConfig& c) { return text(c.prio.max_age_s); }},
      {"priority_calc_period_s", "PriorityCalcPeriod", [](const SlurmConfig& c) { return text(c.prio.calc_period_s); }},
      {"priority_usage_reset_period", "PriorityUsageResetPeriod", [](const SlurmConfig& c) { return c.prio.usage_reset_period; }},
      {"priority_weight_age", "PriorityWeightAge", [](const SlurmConfig& c) { return text(c.prio.weight_age); }},
      {"priority_weight_fairshare", "PriorityWeightFairshare", [](const SlurmConfig& c) { return text(c.prio.weight_fairshare); }},
      {"priority_weight_jobsize", "PriorityWeightJobSize", [](const SlurmConfig& c) { return text(c.prio.weight_jobsize); }},
      {"priority_weight_partition", "PriorityWeightPartition", [](const SlurmConfig& c) { return text(c.prio.weight_partition); }},
      {"priority_weight_qos", "PriorityWeightQOS", [](const SlurmConfig& c) { return text(c.prio.weight_qos); }},
      {"priority_weight_tres_gpu", "PriorityWeightTRES (GRES/gpu)", [](const SlurmConfig& c) { return text(c.prio.weight_tres_gpu); }},
      {"priority_weight_tres_cpu", "PriorityWeightTRES (CPU)", [](const SlurmConfig& c) { return text(c.prio.weight_tres_cpu); }},
      {"priority_weight_tres_node", "PriorityWeightTRES (Node)", [](const SlurmConfig& c) { return text(c.prio.weight_tres_node); }},
      {"priority_favor_small", "PriorityFavorSmall", [](const SlurmConfig& c) { return text(c.prio.favor_small); }},
      {"preempt_type", "PreemptType", [](const SlurmConfig& c) { return std::string(c.preempt_qos ? "preempt/qos" : "preempt/none"); }},
      {"preempt_mode", "PreemptMode", [](const SlurmConfig& c) { return mode_name(c.preempt_mode); }},
      {"preempt_exempt_time_s", "PreemptExemptTime", [](const SlurmConfig& c) { return text(c.preempt_exempt_time_s); }},
      {"topology_plugin", "TopologyPlugin", [](const SlurmConfig& c) { return "topology/" + (c.topology == "none" ? std::string("flat") : c.topology); }},
  };
  return p;
}

// Every setting of the table moved off its default, so a key the file leaves alone keeps a
// value no file reading gives both starting points.
SlurmConfig perturbed() {
  SlurmConfig c;
  auto& sp = c.sched;
  sp.backfill = !sp.backfill;
  for (double* d : {&sp.sched_interval_s, &sp.batch_sched_delay_s, &sp.bf_interval_s, &sp.bf_window_s, &sp.bf_resolution_s,
                    &sp.max_switch_wait_s, &sp.kill_wait_s, &sp.over_time_limit_s})
    *d += 7.25;
  sp.default_queue_depth += 7;
  sp.bf_max_job_test += 7;
  sp.bf_max_job_user += 7;
  auto& pr = c.prio;
  pr.type = pr.type == PriorityType::Basic ? PriorityType::Multifactor : PriorityType::Basic;
  pr.fair_tree = !pr.fair_tree;
  pr.max_tres = !pr.max_tres;
  pr.favor_small = !pr.favor_small;
  for (double* d : {&pr.decay_half_life_s, &pr.max_age_s, &pr.calc_period_s, &pr.weight_age, &pr.weight_fairshare, &pr.weight_jobsize,
                    &pr.weight_partition, &pr.weight_qos, &pr.weight_tres_gpu, &pr.weight_tres_cpu, &pr.weight_tres_node})
    *d += 7.25;
  pr.usage_reset_period = "perturbed";
  c.preempt_qos = !c.preempt_qos;
  c.preempt_mode = c.preempt_mode == PreemptMode::Suspend ? PreemptMode::Cancel : PreemptMode::Suspend;
  c.preempt_exempt_time_s += 7.25;
  c.topology = "perturbed";
  return c;
}

}  // namespace

std::vector<std::string> block_keys_set_by_conf(const std::string& conf_path) {
  SlurmConfig a, b = perturbed();
  read_slurm_conf(conf_path, a);
  read_slurm_conf(conf_path, b);
  std::vector<std::string> out;
  for (const auto& p : pairs())
    if (p.value(a) == p.value(b)) out.push_back(p.block_key);
  return out;
}

std::vector<std::string> conf_override_warnings(const nlohmann::json& given, const SlurmConfig& from_block, const SlurmConfig& effective,
                                                const std::string& scenario_file, const std::string& conf_file) {
  std::vector<std::string> out;
  if (!given.is_object()) return out;
  for (const auto& p : pairs()) {
    if (!given.contains(p.block_key)) continue;
    const std::string mine = p.value(from_block), theirs = p.value(effective);
    if (mine == theirs) continue;
    const std::string shown = given[p.block_key].is_string() ? given[p.block_key].get<std::string>() : given[p.block_key].dump();
    out.push_back(fmt::format("{}: {} ({}) overrides {} /scheduler/{} = {}: slurm.conf is read after the scheduler block and its "
                              "keys win, so the block's value (and a sweep or tune axis on it) has no effect; remove the key from one of them",
                              conf_file, p.conf_key, theirs, scenario_file, p.block_key, shown));
  }
  return out;
}

}  // namespace floorsim::slurm
