// Readers of the accounting dump and the node files: sacctmgr(1) ("dump": Cluster, Parent,
// Account, User and QOS lines), topology.conf(5) (SwitchName, BlockName, BlockSizes) and
// gres.conf(5) (GPU counts per node); and the resolved configuration as JSON.
#include "schedulers/slurm/config.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <cmath>
#include <unordered_set>
#include <sstream>

#include <fmt/format.h>

#include "schedulers/slurm/conf_text.hpp"
#include "sim/core/cluster.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input.hpp"
#include "sim/core/io.hpp"

namespace floorsim::slurm {
using namespace conf;

void read_sacctmgr_dump(const std::string& path, SlurmConfig& cfg) { read_sacctmgr_dump_text(input::read_text(path), path, cfg); }

namespace {

// One line of a sacctmgr dump: "Kind - 'name':Key=Value:..." (kind lowercased, values unquoted).
struct DumpLine {
  std::string kind, name;
  std::vector<std::pair<std::string, std::string>> kv;
};

DumpLine dump_line(const std::string& line, const std::string& file, int ln) {
  // Read on, an open quote swallows the rest of the line into one name, and the damage shows
  // up later as an unrelated error ("QOS 'normal' is not defined") against another file.
  if (const char q = open_quote(line))
    bad(file, ln, fmt::format("unterminated quote: a {} opens but does not close; expected a closing {}", q, q));
  const size_t dash = line.find(" - ");
  if (dash == std::string::npos)
    bad(file, ln, "line is not 'Kind - 'name':Key=Value...'; expected Cluster, Parent, Account, User or QOS lines as written by sacctmgr dump");
  DumpLine d;
  d.kind = lower(trim(line.substr(0, dash)));
  auto fields = split_outside_quotes(trim(line.substr(dash + 3)), ':');
  d.name = unquote(trim(fields[0]));
  if (d.name.empty()) bad(file, ln, fmt::format("{} line has an empty name; expected '{} - 'name'", d.kind, d.kind));
  for (size_t i = 1; i < fields.size(); ++i) {
    const std::string f = trim(fields[i]);
    if (f.empty()) continue;
    const size_t eq = f.find('=');
    if (eq == std::string::npos) bad(file, ln, fmt::format("option '{}' has no value; expected Key=Value", f));
    d.kv.push_back({f.substr(0, eq), unquote(trim(f.substr(eq + 1)))});
  }
  return d;
}

int64_t dump_fairshare(const std::string& v, const std::string& k, const std::string& file, int ln) {
  if (lower(v) == "parent") return 1;  // not modelled: treated as 1 share
  return to_int(v, k, file, ln);
}

Account dump_account(const DumpLine& d, const std::string& parent, const std::string& file, int ln, std::vector<std::string>& ignored) {
  Account a;
  a.name = d.name;
  a.parent = parent;
  for (const auto& [key, v] : d.kv) {
    const std::string k = lower(key);
    if (k == "fairshare") a.fairshare = dump_fairshare(v, key, file, ln);
    else if (k == "grptres") a.grp_tres = to_tres(v, key, file, ln);
    else if (k == "maxtres" || k == "maxtresperjob") a.max_tres_per_user = to_tres(v, key, file, ln);
    else if (k == "maxjobs") a.max_jobs = to_limit(v, key, file, ln);
    else if (k == "maxwall" || k == "maxwalldurationperjob") a.max_wall_s = to_time(v, key, file, ln);
    else if (k == "description" || k == "organization") continue;
    else ignored.push_back("Account:" + key);
  }
  return a;
}

User dump_user(const DumpLine& d, const std::string& parent, const std::string& file, int ln, std::vector<std::string>& ignored) {
  User u;
  u.name = d.name;
  u.origin = {file, ln};
  u.account = parent;
  for (const auto& [key, v] : d.kv) {
    const std::string k = lower(key);
    if (k == "fairshare") u.fairshare = dump_fairshare(v, key, file, ln);
    else if (k == "grptres") u.grp_tres = to_tres(v, key, file, ln);
    else if (k == "defaultqos") u.default_qos = v;
    else if (k == "maxjobs") u.max_jobs = to_limit(v, key, file, ln);
    else if (k == "maxwall" || k == "maxwalldurationperjob") u.max_wall_s = to_time(v, key, file, ln);
    else if (k == "defaultaccount" || k == "adminlevel" || k == "qos" || k == "defaultwckey" || k == "wckeys") continue;
    else ignored.push_back("User:" + key);
  }
  return u;
}

Qos dump_qos(const DumpLine& d, const std::string& file, int ln, std::vector<std::string>& ignored) {
  Qos q;
  q.name = d.name;
  q.origin = {file, ln};
  for (const auto& [key, v] : d.kv) {
    const std::string k = lower(key);
    if (k == "priority") q.priority = to_int(v, key, file, ln);
    else if (k == "usagefactor") q.usage_factor = to_bounded(v, key, 0, 1e9, file, ln);
    else if (k == "grptres") q.grp_tres = to_tres(v, key, file, ln);
    else if (k == "grptresmins") q.grp_tres_mins = to_tres(v, key, file, ln);
    else if (k == "maxtresperuser" || k == "maxtresperu") q.max_tres_per_user = to_tres(v, key, file, ln);
    else if (k == "maxtresperjob" || k == "maxtres") q.max_tres_per_job = to_tres(v, key, file, ln);
    else if (k == "maxjobsperuser" || k == "maxjobspu") q.max_jobs_per_user = to_limit(v, key, file, ln);
    else if (k == "grpjobs") q.grp_jobs = to_limit(v, key, file, ln);
    else if (k == "maxwall" || k == "maxwalldurationperjob") q.max_wall_s = to_time(v, key, file, ln);
    else if (k == "preempt") q.preempt = to_list(v);
    else if (k == "preemptmode") q.preempt_mode = to_mode(v, key, file, ln);
    else if (k == "preemptexempttime") q.preempt_exempt_time_s = to_time(v, key, file, ln);
    else if (k == "gracetime") q.grace_time_s = to_bounded(v, key, 0, 365 * 86400.0, file, ln);
    else if (k == "flags") {
      for (auto& f : to_list(lower(v))) {
        if (f == "denyonlimit") q.flags.deny_on_limit = true;
        else if (f == "noreserve") q.flags.no_reserve = true;
        else if (f == "overpartqos") q.flags.over_part_qos = true;
        else if (f == "nodecay") q.flags.no_decay = true;
        else ignored.push_back("QOS:Flags:" + f);
      }
    } else if (k == "description") continue;
    else ignored.push_back("QOS:" + key);
  }
  return q;
}

}  // namespace

void read_sacctmgr_dump_text(const std::string& text, const std::string& file, SlurmConfig& cfg) {
  io::check_utf8(text, file);
  std::unordered_set<std::string> seen_qos;  // within this file (a dump may override inline QOS)
  std::istringstream in(text);
  std::string raw;
  int ln = 0;
  std::string parent = "root";
  bool have_root = false;
  for (const auto& a : cfg.accounts) have_root |= a.name == "root";
  if (!have_root) cfg.accounts.push_back(root_account());
  std::vector<std::string> ignored;
  while (std::getline(in, raw)) {
    ++ln;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    const DumpLine d = dump_line(line, file, ln);
    const std::string& name = d.name;
    if (d.kind == "cluster") {
      cfg.cluster_name = name;
    } else if (d.kind == "parent") {
      bool found = false;
      for (const auto& a : cfg.accounts) found |= a.name == name;
      if (!found) bad(file, ln, fmt::format("Parent '{}' is not a defined account; expected an account listed earlier", name));
      parent = name;
    } else if (d.kind == "account") {
      const Account a = dump_account(d, parent, file, ln, ignored);
      bool dup = false;
      for (auto& e : cfg.accounts) dup |= e.name == name;
      if (dup) bad(file, ln, fmt::format("account '{}' defined twice; expected each account once", name));
      cfg.accounts.push_back(a);
    } else if (d.kind == "user") {
      cfg.users.push_back(dump_user(d, parent, file, ln, ignored));
    } else if (d.kind == "qos") {
      const Qos q = dump_qos(d, file, ln, ignored);
      if (!seen_qos.insert(name).second)
        bad(file, ln, fmt::format("QOS '{}' appears twice in this dump; expected each QOS once", name));
      bool replaced = false;
      for (auto& e : cfg.qos)
        if (e.name == name) e = q, replaced = true;
      if (!replaced) cfg.qos.push_back(q);
    } else {
      bad(file, ln, fmt::format("unknown line kind '{}'; expected Cluster, Parent, Account, User or QOS", d.kind));
    }
  }
  if (!ignored.empty()) {
    std::string w = file + ": ignored options not modelled by the slurm model:";
    for (size_t i = 0; i < ignored.size(); ++i) w += (i ? ", " : " ") + ignored[i];
    cfg.warnings.push_back(w);
  }
}

// A node under two leaf switches: slurmctld's topology/tree warns "Multiple leaf switches contain
// nodes" and goes on (topology_tree.c); floorsim keeps each such node under the first leaf
// switch that lists it, and says so.
static void multi_homed(SlurmConfig& cfg, const std::string& file) {
  std::set<std::string> seen;
  std::vector<std::string> twice;
  for (auto& s : cfg.switches)
    std::erase_if(s.nodes, [&](const std::string& n) {
      if (seen.insert(n).second) return false;
      twice.push_back(n);
      return true;
    });
  if (twice.empty()) return;
  cfg.warnings.push_back(fmt::format("{}: Multiple leaf switches contain nodes: {} (slurmctld's topology/tree warns so and keeps "
                                     "them under each); floorsim keeps each under the first leaf switch that lists it",
                                     file, hostlist(twice)));
}

void read_topology_conf(const std::string& path, SlurmConfig& cfg) { read_topology_conf_text(input::read_text(path), path, cfg); }

void read_topology_conf_text(const std::string& text, const std::string& file, SlurmConfig& cfg) {
  io::check_utf8(text, file);
  for (const auto& L : logical_lines(text)) {
    auto kv = kv_tokens(L.text, file, L.number);
    if (kv.empty()) continue;
    const std::string first = lower(kv[0].first);
    if (first == "switchname") {
      Switch s;
      s.name = kv[0].second;
      s.origin = {file, L.number};
      for (size_t i = 1; i < kv.size(); ++i) {
        const std::string k = lower(kv[i].first);
        if (k == "nodes") s.nodes = to_nodes(kv[i].second, kv[i].first, file, L.number);
        else if (k == "switches") s.switches = to_nodes(kv[i].second, kv[i].first, file, L.number);
        else if (k == "linkspeed") continue;
        else bad(file, L.number, fmt::format("unknown SwitchName option '{}'; expected Nodes, Switches or LinkSpeed", kv[i].first));
      }
      cfg.switches.push_back(s);
    } else if (first == "blockname") {
      Block b;
      b.name = kv[0].second;
      b.origin = {file, L.number};
      for (size_t i = 1; i < kv.size(); ++i) {
        if (lower(kv[i].first) == "nodes") b.nodes = to_nodes(kv[i].second, kv[i].first, file, L.number);
        else bad(file, L.number, fmt::format("unknown BlockName option '{}'; expected Nodes", kv[i].first));
      }
      cfg.blocks.push_back(b);
    } else if (first == "blocksizes") {
      cfg.block_sizes.clear();
      cfg.block_sizes_origin = {file, L.number};
      for (auto& x : to_list(kv[0].second)) cfg.block_sizes.push_back(to_int(x, "BlockSizes", file, L.number));
    } else {
      bad(file, L.number, fmt::format("unknown line '{}'; expected SwitchName=, BlockName= or BlockSizes=", kv[0].first));
    }
  }
  multi_homed(cfg, file);
}

void read_gres_conf(const std::string& path, SlurmConfig& cfg) { read_gres_conf_text(input::read_text(path), path, cfg); }

void read_gres_conf_text(const std::string& text, const std::string& file, SlurmConfig& cfg) {
  io::check_utf8(text, file);
  // NodeName=n[1-8] Name=gpu [Type=a100] Count=8 | File=/dev/nvidia[0-7]. A line without
  // NodeName applies to every node; AutoDetect lines are ignored.
  std::vector<std::string> notes;
  std::map<std::string, int64_t> found;  // GPUs per node, over all its lines
  for (const auto& L : logical_lines(text)) {
    auto kv = kv_tokens(L.text, file, L.number);
    std::vector<std::string> nodes;
    bool all = true, gpu = false;
    int64_t count = -1;
    std::string count_text;  // checked once the line is known to be about GPUs
    for (const auto& [key, v] : kv) {
      const std::string k = lower(key);
      if (k == "nodename") nodes = to_nodes(v, key, file, L.number), all = false;
      else if (k == "name") gpu = lower(v) == "gpu";
      else if (k == "count") count_text = v;
      else if (k == "file") {
        // /dev/nvidia[0-7] -> 8 devices
        try {
          count = static_cast<int64_t>(expand_hostlist(v).size());
        } catch (const std::exception&) {
          bad(file, L.number, fmt::format("File={} is not a device list; expected e.g. /dev/nvidia[0-7]", v));
        }
      } else if (k == "type" || k == "cores" || k == "cpus" || k == "autodetect" || k == "links" || k == "flags" ||
                 k == "multiplefiles")
        continue;  // device binding, not counts (CPUs is Cores' older name)
      else bad(file, L.number, fmt::format("unknown gres.conf key '{}'; expected NodeName, Name, Type, Count, File, Cores", key));
    }
    if (!gpu) continue;
    // A negative or oversized GPU Count is an error, not a line to skip or a count to wrap.
    if (!count_text.empty()) count = to_count(count_text, "Count", file, L.number);
    if (count < 0) continue;
    for (const auto& n : cfg.nodes)
      if (all || std::find(nodes.begin(), nodes.end(), n.name) != nodes.end()) found[n.name] += count;
  }
  // slurmctld schedules the GPUs slurm.conf's Gres= configures; the count a node's slurmd finds
  // through gres.conf (its lines for that node added up) is checked against it
  // (gres_node_config_validate): a lower one drains the node ("gres/gpu count reported lower
  // than configured"). floorsim keeps slurm.conf's count.
  for (const auto& n : cfg.nodes) {
    auto it = found.find(n.name);
    if (it == found.end() || it->second == n.gpus) continue;
    const int64_t count = it->second;
    if (n.gpus == 0)
      notes.push_back(fmt::format("{}: node {} has {} GPUs in gres.conf but no Gres=gpu in slurm.conf; slurmctld schedules no GPU there, nor does floorsim", file, n.name, count));
    else if (count < n.gpus)
      notes.push_back(fmt::format("{}: node {} has {} GPUs in gres.conf, fewer than slurm.conf's Gres ({}); slurmctld drains such a node, floorsim keeps it up with {}", file, n.name, count, n.gpus, n.gpus));
    else
      notes.push_back(fmt::format("{}: node {} has {} GPUs in gres.conf, more than slurm.conf's Gres ({}); slurmctld schedules the configured {}, and so does floorsim", file, n.name, count, n.gpus, n.gpus));
  }
  // One line per node would drown a large site: the first few, then a count.
  for (size_t i = 0; i < notes.size() && i < 5; ++i) cfg.warnings.push_back(notes[i]);
  if (notes.size() > 5) cfg.warnings.push_back(fmt::format("{}: {} more nodes whose gres.conf GPU count differs from slurm.conf's", file, notes.size() - 5));
}

namespace {
nlohmann::json tres_json(const Tres& t) {
  nlohmann::json j = nlohmann::json::object();
  if (t.gpu >= 0) j["gres/gpu"] = t.gpu;
  if (t.node >= 0) j["node"] = t.node;
  if (t.cpu >= 0) j["cpu"] = t.cpu;
  return j;
}
const char* mode_name(PreemptMode m) {
  switch (m) {
    case PreemptMode::Unset: return "unset";
    case PreemptMode::Off: return "OFF";
    case PreemptMode::Cancel: return "CANCEL";
    case PreemptMode::Requeue: return "REQUEUE";
    case PreemptMode::Suspend: return "SUSPEND";
  }
  return "unset";
}
nlohmann::json time_json(double s) { return std::isfinite(s) ? nlohmann::json(s) : nlohmann::json("UNLIMITED"); }
}  // namespace

nlohmann::json to_json(const SlurmConfig& c) {
  using nlohmann::json;
  json j;
  j["version"] = c.version == Version::V22_05 ? "22.05" : "master";
  j["cluster_name"] = c.cluster_name;
  const auto& s = c.sched;
  j["sched"] = {{"sched_interval_s", s.sched_interval_s}, {"default_queue_depth", s.default_queue_depth},
                {"batch_sched_delay_s", s.batch_sched_delay_s},
                {"assoc_limit_stop", s.assoc_limit_stop}, {"backfill", s.backfill},
                {"bf_interval_s", s.bf_interval_s}, {"bf_window_s", s.bf_window_s},
                {"bf_resolution_s", s.bf_resolution_s}, {"bf_max_job_test", s.bf_max_job_test},
                {"bf_continue", s.bf_continue}, {"bf_max_job_user", s.bf_max_job_user},
                {"kill_wait_s", s.kill_wait_s}, {"requeue_delay_s", s.requeue_delay_s}};
  const auto& p = c.prio;
  j["priority"] = {{"type", p.type == PriorityType::Basic ? "priority/basic" : "priority/multifactor"},
                   {"fair_tree", p.fair_tree}, {"decay_half_life_s", p.decay_half_life_s},
                   {"max_age_s", p.max_age_s}, {"calc_period_s", p.calc_period_s},
                   {"usage_reset_period", p.usage_reset_period},
                   {"weight_age", p.weight_age}, {"weight_fairshare", p.weight_fairshare},
                   {"weight_jobsize", p.weight_jobsize}, {"weight_partition", p.weight_partition},
                   {"weight_qos", p.weight_qos}, {"weight_assoc", p.weight_assoc},
                   {"weight_tres_gpu", p.weight_tres_gpu}, {"weight_tres_cpu", p.weight_tres_cpu},
                   {"weight_tres_node", p.weight_tres_node}};
  j["enforce"] = {{"limits", c.enforce_limits}, {"qos", c.enforce_qos}, {"safe", c.enforce_safe},
                  {"associations", c.enforce_associations}};
  j["preempt"] = {{"type", c.preempt_qos ? "preempt/qos" : "preempt/none"}, {"mode", mode_name(c.preempt_mode)},
                  {"exempt_time_s", c.preempt_exempt_time_s}, {"youngest_first", c.preempt_youngest_first}};
  j["topology"] = c.topology;
  j["nodes"] = c.nodes.size();
  j["partitions"] = json::array();
  for (const auto& q : c.partitions)
    j["partitions"].push_back({{"name", q.name}, {"nodes", q.nodes.empty() ? "ALL" : hostlist(q.nodes)},
                               {"priority_tier", q.priority_tier}, {"priority_job_factor", q.priority_job_factor},
                               {"max_time_s", time_json(q.max_time_s)}, {"qos", q.qos}, {"default", q.is_default}});
  j["qos"] = json::array();
  for (const auto& q : c.qos)
    j["qos"].push_back({{"name", q.name}, {"priority", q.priority}, {"usage_factor", q.usage_factor},
                        {"grp_tres", tres_json(q.grp_tres)}, {"grp_tres_mins", tres_json(q.grp_tres_mins)},
                        {"max_tres_per_user", tres_json(q.max_tres_per_user)},
                        {"max_jobs_per_user", q.max_jobs_per_user}, {"max_wall_s", q.max_wall_s},
                        {"preempt", q.preempt}, {"preempt_mode", mode_name(q.preempt_mode)},
                        {"preempt_exempt_time_s", q.preempt_exempt_time_s}, {"grace_time_s", q.grace_time_s},
                        {"flags", {{"DenyOnLimit", q.flags.deny_on_limit}, {"NoReserve", q.flags.no_reserve},
                                   {"OverPartQOS", q.flags.over_part_qos}, {"NoDecay", q.flags.no_decay}}}});
  j["accounts"] = json::array();
  for (const auto& a : c.accounts)
    j["accounts"].push_back({{"name", a.name}, {"parent", a.parent}, {"fairshare", a.fairshare}, {"grp_tres", tres_json(a.grp_tres)}});
  j["users"] = json::array();
  for (const auto& u : c.users)
    j["users"].push_back({{"name", u.name}, {"account", u.account}, {"fairshare", u.fairshare}, {"default_qos", u.default_qos}});
  j["warnings"] = c.warnings;
  return j;
}

}  // namespace floorsim::slurm
