// The slurm.conf reader: slurm.conf(5) (scheduling, priority, accounting-enforcement and
// preemption parameters, NodeName, PartitionName, Include) and slurmctld's
// src/common/parse_config.c for how Include and DEFAULT lines are read.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>

#include "schedulers/slurm/conf_text.hpp"
#include "schedulers/slurm/config.hpp"
#include "sim/core/cluster.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input.hpp"
#include "sim/core/io.hpp"

namespace floorsim::slurm {
using namespace conf;
namespace {

void sched_parameters(const std::string& v, SlurmConfig& cfg, const std::string& file, int ln,
                      std::vector<std::string>& ignored) {
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
    else ignored.push_back("SchedulerParameters:" + k);
  }
}

void node_line(const std::vector<std::pair<std::string, std::string>>& kv, SlurmConfig& cfg, NodeDef& defaults,
               const std::string& file, int ln, std::vector<std::string>& ignored,
               std::unordered_set<std::string>& seen) {
  NodeDef d = defaults;
  for (size_t i = 1; i < kv.size(); ++i) {
    const std::string k = lower(kv[i].first);
    const std::string& v = kv[i].second;
    if (k == "gres") {
      d.gpus = 0;
      for (auto& g : split_outside_quotes(v, ',')) {
        // gpu:8, gpu:a100:8, gpu:a100:8(S:0-1)
        std::string t = trim(g);
        if (auto p = t.find('('); p != std::string::npos) t = t.substr(0, p);
        auto parts = split_outside_quotes(t, ':');
        if (parts.empty() || lower(parts[0]) != "gpu") continue;
        if (parts.size() < 2) bad(file, ln, fmt::format("Gres={} has no count; expected gpu:N or gpu:TYPE:N", v));
        const int64_t sum = int64_t{d.gpus} + to_count(parts.back(), "Gres", file, ln);
        if (sum > std::numeric_limits<int32_t>::max())
          bad(file, ln, fmt::format("Gres={} adds up to {} GPUs; expected at most 2147483647 per node", v, sum));
        d.gpus = static_cast<int32_t>(sum);
      }
    } else if (k == "cpus" || k == "procs") {
      d.cpus = to_count(v, kv[i].first, file, ln);
    } else if (k == "weight") {
      d.weight = to_count(v, kv[i].first, file, ln);
    } else if (k == "nodehostname" || k == "nodeaddr" || k == "port" || k == "realmemory" || k == "sockets" ||
               k == "corespersocket" || k == "threadspercore" || k == "state" || k == "boards" ||
               k == "socketsperboard" || k == "features" || k == "tmpdisk") {
      continue;  // not scheduling-relevant for a GPU model
    } else {
      ignored.push_back("NodeName:" + kv[i].first);
    }
  }
  if (lower(kv[0].second) == "default") {
    defaults = d;
    return;
  }
  for (const auto& name : to_nodes(kv[0].second, "NodeName", file, ln)) {
    // slurmctld refuses a node defined twice; taking either definition would be a guess.
    if (!seen.insert(name).second)
      bad(file, ln, fmt::format("node {} is already defined; expected each NodeName once", name));
    NodeDef nd = d;
    nd.name = name;
    cfg.nodes.push_back(nd);
  }
}

// TRESBillingWeights=CPU=1.0,Mem=0.25G,GRES/gpu=2.0 (slurm.conf(5)); TRES floorsim lacks bill 0, each named.
void billing_weights(const std::string& v, Partition& p, SlurmConfig& cfg, const std::string& file, int ln) {
  std::vector<std::string> unmodelled;
  const std::string err = parse_billing_weights(v, p.billing, unmodelled);
  if (!err.empty()) bad(file, ln, err);
  for (const auto& t : unmodelled)
    cfg.warnings.push_back(fmt::format("{}:{}: TRESBillingWeights {} is not modelled (no such resource in floorsim); it bills 0", file, ln, t));
}

void partition_line(const std::vector<std::pair<std::string, std::string>>& kv, SlurmConfig& cfg,
                    Partition& defaults, const std::string& file, int ln, std::vector<std::string>& ignored) {
  Partition p = defaults;
  for (size_t i = 1; i < kv.size(); ++i) {
    const std::string k = lower(kv[i].first);
    const std::string& v = kv[i].second;
    if (k == "nodes") p.nodes = to_nodes(v, kv[i].first, file, ln);
    else if (k == "prioritytier") p.priority_tier = to_int(v, kv[i].first, file, ln);
    else if (k == "priorityjobfactor") p.priority_job_factor = to_int(v, kv[i].first, file, ln);
    else if (k == "priority") p.priority_job_factor = p.priority_tier = to_int(v, kv[i].first, file, ln);
    else if (k == "maxtime") p.max_time_s = to_time(v, kv[i].first, file, ln);
    else if (k == "defaulttime") p.default_time_s = to_time(v, kv[i].first, file, ln);
    else if (k == "qos") p.qos = v;
    else if (k == "default") p.is_default = to_bool(v, kv[i].first, file, ln);
    else if (k == "preemptmode") p.preempt_mode = to_mode(v, kv[i].first, file, ln);
    else if (k == "tresbillingweights") billing_weights(v, p, cfg, file, ln);
    else if (k == "state" || k == "oversubscribe" || k == "shared") continue;
    else ignored.push_back("PartitionName:" + kv[i].first);
  }
  if (lower(kv[0].second) == "default") {
    defaults = p;
    return;
  }
  p.name = kv[0].second;
  p.origin = {file, ln};
  for (const auto& q : cfg.partitions)
    if (q.name == p.name) bad(file, ln, fmt::format("partition {} defined twice; expected unique PartitionName", p.name));
  cfg.partitions.push_back(p);
}

// The priority keys of slurm.conf(5) (PriorityType, PriorityFlags, PriorityDecayHalfLife,
// PriorityWeight*, ...); false when `k` is not one of them.
bool priority_setting(const std::string& k, const std::string& key, const std::string& v, PriorityParams& pr,
                      const std::string& file, int ln, std::vector<std::string>& ignored) {
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
      else ignored.push_back("PriorityFlags:" + f);
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
      else ignored.push_back("PriorityWeightTRES:" + t);
    }
  } else {
    return false;
  }
  return true;
}

// One Key=Value of a slurm.conf line other than NodeName, PartitionName and Include.
void setting(const std::string& key, const std::string& v, SlurmConfig& cfg, const std::string& file, int ln,
             std::vector<std::string>& ignored) {
  const std::string k = lower(key);
  if (v.empty() && k != "schedulerparameters") bad(file, ln, fmt::format("'{}' has no value; expected Key=Value", key));
  if (priority_setting(k, key, v, cfg.prio, file, ln, ignored)) return;
  if (k == "clustername") cfg.cluster_name = v;
  else if (k == "schedulertype") {
    const std::string l = lower(v);
    if (l == "sched/backfill") cfg.sched.backfill = true;
    else if (l == "sched/builtin") cfg.sched.backfill = false;
    else bad(file, ln, fmt::format("SchedulerType={}; expected sched/backfill or sched/builtin", v));
  } else if (k == "schedulerparameters") sched_parameters(v, cfg, file, ln, ignored);
  else if (k == "accountingstoragetype") {
    cfg.accounting_storage_type = lower(trim(v));
  } else if (k == "accountingstorageenforce") {
    for (auto& f : to_list(lower(v))) {
      if (f == "limits") cfg.enforce_limits = true;
      else if (f == "qos") cfg.enforce_qos = true;
      else if (f == "safe") cfg.enforce_safe = cfg.enforce_limits = true;  // safe implies limits (spec §4)
      else if (f == "associations") cfg.enforce_associations = true;
      else if (f == "all") cfg.enforce_limits = cfg.enforce_qos = cfg.enforce_associations = true;
      else if (f == "nojobs" || f == "nosteps" || f == "wckeys") continue;
      else bad(file, ln, fmt::format("AccountingStorageEnforce item '{}'; expected associations, limits, qos, safe, nojobs, nosteps, wckeys or all", f));
    }
  } else if (k == "preempttype") {
    const std::string l = lower(v);
    if (l == "preempt/qos") cfg.preempt_qos = true;
    else if (l == "preempt/none") cfg.preempt_qos = false;
    else if (l == "preempt/partition_prio") {
      cfg.preempt_qos = false;
      cfg.warnings.push_back("PreemptType=preempt/partition_prio is not modelled; preemption is off");
    } else bad(file, ln, fmt::format("PreemptType={}; expected preempt/none, preempt/qos or preempt/partition_prio", v));
  } else if (k == "preemptmode") cfg.preempt_mode = to_mode(v, key, file, ln);
  else if (k == "preemptexempttime") cfg.preempt_exempt_time_s = to_time(v, key, file, ln);
  else if (k == "preemptparameters") {
    for (auto& f : to_list(lower(v)))
      if (f == "youngest_first") cfg.preempt_youngest_first = true;
      else ignored.push_back("PreemptParameters:" + f);
  } else if (k == "topologyplugin") {
    const std::string l = lower(v);
    if (l == "topology/tree") cfg.topology = "tree";
    else if (l == "topology/block") cfg.topology = "block";
    else if (l == "topology/none" || l == "topology/default" || l == "topology/flat") cfg.topology = "none";
    else bad(file, ln, fmt::format("TopologyPlugin={}; expected topology/tree, topology/block or topology/flat", v));
  } else if (k == "killwait") cfg.sched.kill_wait_s = to_bounded(v, key, 0, 65533, file, ln);
  else if (k == "resvoverrun") cfg.resv_over_run_s = lower(v) == "unlimited" ? kNever : to_bounded(v, key, 0, 65533, file, ln) * 60;
  else if (k == "overtimelimit") cfg.sched.over_time_limit_s = lower(v) == "unlimited" ? kNever : to_bounded(v, key, 0, 65533, file, ln) * 60;
  else if (k == "selecttype" || k == "selecttypeparameters" || k == "gresTypes" || k == "grestypes" ||
           k == "slurmctldhost" || k == "controlmachine" || k == "authtype" || k == "credtype")
    return;  // fixed by the model (cons_tres, whole GPUs) or irrelevant to scheduling
  else ignored.push_back(key);
}

}  // namespace

void read_slurm_conf(const std::string& path, SlurmConfig& cfg) { read_slurm_conf_text(input::read_text(path), path, cfg); }

namespace {

// One slurm.conf and the files it includes. slurmctld parses an included file into the same
// table as the including one (parse_config.c s_p_parse_file), so node names and the DEFAULT
// lines carry across files.
struct ConfReader {
  struct Open {
    std::filesystem::path id;  // weakly canonical, to recognise a file reached again
    std::string shown;         // as named in messages
  };
  SlurmConfig& cfg;
  std::unordered_set<std::string> seen_nodes;
  NodeDef node_defaults;
  Partition part_defaults;
  std::vector<Open> chain;  // the files being read, outermost first
  std::vector<std::string> warnings;  // per file, added after the whole configuration's

  bool read(const std::string& text, const std::string& file);  // false: no settings in it
  void include(const std::string& line, const std::string& file, int ln);
};

// "Include FILE" (slurm.conf(5), "Include"): FILE is read in place of the line. As in
// parse_config.c, a relative FILE is relative to the including file's directory and "%c" stands
// for the ClusterName set above, lowercased. slurmctld loops on a file that includes itself;
// here that is an error.
void ConfReader::include(const std::string& line, const std::string& file, int ln) {
  namespace fs = std::filesystem;
  std::istringstream words(line.substr(7));
  std::string name, rest;
  words >> name;
  if (words >> rest) bad(file, ln, fmt::format("Include {} {}: text after the file name; expected Include FILE", name, rest));
  for (size_t at; (at = name.find("%c")) != std::string::npos;) {
    if (cfg.cluster_name.empty())
      bad(file, ln, fmt::format("Include {}: %c stands for ClusterName, which is not set above this line; expected ClusterName= first", name));
    name.replace(at, 2, lower(cfg.cluster_name));
  }
  fs::path path(name);
  if (path.is_relative()) path = fs::path(file).parent_path() / path;
  const std::string shown = path.lexically_normal().string();
  std::error_code ec;
  if (!fs::exists(path, ec))
    bad(file, ln, fmt::format("Include {}: {} does not exist; expected a file (a relative name is read from this file's directory)", name, shown));
  if (!fs::is_regular_file(path, ec)) bad(file, ln, fmt::format("Include {}: {} is not a regular file; expected a slurm.conf file", name, shown));
  const fs::path id = fs::weakly_canonical(path, ec);
  for (const auto& o : chain) {
    if (o.id != id) continue;
    std::string cycle;
    for (const auto& c : chain) cycle += c.shown + " -> ";
    bad(file, ln, fmt::format("Include {}: the file includes itself ({}{}); expected Includes without a cycle", name, cycle, shown));
  }
  chain.push_back({id, shown});
  read(input::read_text(path.string()), shown);  // an empty included file is allowed (slurmctld only logs it)
  chain.pop_back();
}

bool ConfReader::read(const std::string& text, const std::string& file) {
  io::check_utf8(text, file);
  bool any_line = false;
  std::vector<std::string> ignored;
  for (const auto& L : logical_lines(text)) {
    any_line = true;
    const int ln = L.number;
    if (L.text.size() > 7 && lower(L.text.substr(0, 7)) == "include" && std::isspace(static_cast<unsigned char>(L.text[7]))) {
      include(L.text, file, ln);
      continue;
    }
    auto kv = kv_tokens(L.text, file, ln);
    if (kv.empty()) continue;
    const std::string first = lower(kv[0].first);
    if ((first == "nodename" || first == "partitionname") && kv[0].second.empty())
      bad(file, ln, fmt::format("'{}' has no value; expected {}=NAME", kv[0].first, kv[0].first));
    if (first == "nodename") {
      node_line(kv, cfg, node_defaults, file, ln, ignored, seen_nodes);
      continue;
    }
    if (first == "partitionname") {
      partition_line(kv, cfg, part_defaults, file, ln, ignored);
      continue;
    }
    if (first == "nodeset" || first == "frontendname" || first == "downnodes") {
      ignored.push_back(kv[0].first);
      continue;
    }
    for (const auto& [key, v] : kv) setting(key, v, cfg, file, ln, ignored);
  }
  if (!ignored.empty()) {
    std::string w = file + ": ignored keys not modelled by the slurm model:";
    for (size_t i = 0; i < ignored.size(); ++i) w += (i ? ", " : " ") + ignored[i];
    warnings.push_back(w);
  }
  return any_line;
}

}  // namespace

void read_slurm_conf_text(const std::string& text, const std::string& file, SlurmConfig& cfg) {
  ConfReader reader{cfg, {}, {}, {}, {}, {}};
  std::error_code ec;
  reader.chain.push_back({std::filesystem::weakly_canonical(file, ec), file});
  const bool any_line = reader.read(text, file);
  // priority_multifactor.c init(): without slurmdbd there is no usage history, so the age and
  // fair-share weights are dropped, with slurmctld's own error (seen live on 22.05).
  if (!cfg.accounting_storage_type.empty() && cfg.accounting_storage_type != "accounting_storage/slurmdbd") {
    if (cfg.prio.weight_age != 0) cfg.warnings.push_back(file + ": PriorityWeightAge can only be used with SlurmDBD, ignoring");
    if (cfg.prio.weight_fairshare != 0) cfg.warnings.push_back(file + ": PriorityWeightFairshare can only be used with SlurmDBD, ignoring");
    cfg.prio.weight_age = cfg.prio.weight_fairshare = 0;
  }
  // An explicitly named slurm.conf with no settings is a wrong path or an emptied file.
  if (!any_line) bad(file, 1, "no settings; expected slurm.conf lines (Key=Value ...)");
  cfg.warnings.insert(cfg.warnings.end(), reader.warnings.begin(), reader.warnings.end());
}

}  // namespace floorsim::slurm
