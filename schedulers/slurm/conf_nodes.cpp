// slurm.conf(5) NodeName, NodeSet and PartitionName lines: the cluster a site's slurm.conf
// describes (node names from host lists, CPUs, RealMemory, GPUs from Gres=, Weight, Features,
// State) and its partitions (Nodes= with NodeSets and ALL, tiers, limits, access lists).
// DEFAULT lines follow src/common/parse_config.c: their values become the defaults of the lines
// after them; the CPU count follows src/common/read_config.c (_parse_nodename).
#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "schedulers/slurm/conf_read.hpp"
#include "schedulers/slurm/conf_text.hpp"
#include "sim/core/cluster.hpp"

namespace floorsim::slurm::conf {
namespace {

// Splits a comma list outside brackets and parentheses ("gpu:a100:4(S:0-1),nvme:1", "n[1-3,5],set").
std::vector<std::string> split_top(const std::string& v) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : v) {
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

// Gres=gpu:8 | gpu:a100:8 | gpu:a100:8(S:0-1) | gpu:a100:no_consume:8, several separated by ','.
// GPUs are summed; other GRES are not modelled (one warning per line).
void node_gres(const std::string& v, NodeDef& d, const std::string& file, int ln, Notes& notes) {
  d.gpus = 0;
  d.gpu_type.clear();
  std::vector<std::string> others;
  for (const auto& g : split_top(v)) {
    std::string t = g;
    if (auto p = t.find('('); p != std::string::npos) t = t.substr(0, p);
    if (t.empty()) continue;
    auto parts = split_outside_quotes(t, ':');
    if (lower(parts[0]) != "gpu") {
      others.push_back(parts[0]);
      continue;
    }
    if (parts.size() < 2) bad(file, ln, fmt::format("Gres={} has no count; expected gpu:N or gpu:TYPE:N", v));
    const int64_t sum = int64_t{d.gpus} + to_count(parts.back(), "Gres", file, ln);
    if (sum > std::numeric_limits<int32_t>::max())
      bad(file, ln, fmt::format("Gres={} adds up to {} GPUs; expected at most 2147483647 per node", v, sum));
    d.gpus = static_cast<int32_t>(sum);
    if (parts.size() >= 3 && lower(parts[1]) != "no_consume")
      d.gpu_type += (d.gpu_type.empty() ? "" : ",") + parts[1];
  }
  if (!others.empty()) {
    std::string names;
    for (const auto& o : others) names += (names.empty() ? "" : ", ") + o;
    notes.add(file, ln, fmt::format("Gres {} is not modelled; no job waits for it", names));
  }
}

// slurmctld's CPU count (read_config.c _parse_nodename): CPUs= if given, else
// Boards*Sockets*CoresPerSocket*ThreadsPerCore (each 1 when not given; Sockets inferred from
// CPUs when only CPUs is given); a CPUs= that matches none of Sockets,
// Sockets*CoresPerSocket and Sockets*CoresPerSocket*ThreadsPerCore is reset to the last.
struct CpuShape {
  int64_t cpus = -1, boards = -1, sockets = -1, sockets_per_board = -1, cores = -1, threads = -1;
  bool topo() const { return boards > 0 || sockets > 0 || sockets_per_board > 0 || cores > 0 || threads > 0; }
};

void node_cpus(const CpuShape& s, NodeDef& d, const std::string& name, const std::string& file, int ln, Notes& notes) {
  if (s.cpus < 0 && !s.topo()) return;  // the defaults' values stand
  const int64_t boards = std::max<int64_t>(1, s.boards);
  const int64_t cores = std::max<int64_t>(1, s.cores), threads = std::max<int64_t>(1, s.threads);
  // Sockets not given: Boards*SocketsPerBoard, else inferred from CPUs as slurmctld does.
  const int64_t sockets = s.sockets > 0             ? s.sockets
                          : s.sockets_per_board > 0 ? boards * s.sockets_per_board
                          : s.cpus > 0              ? std::max<int64_t>(1, s.cpus / (cores * threads))
                                                    : boards;
  const int64_t product = sockets * cores * threads;
  int64_t cpus = s.cpus >= 0 ? s.cpus : product;
  if (s.cpus >= 0 && s.topo() && cpus != sockets && cpus != sockets * cores && cpus != product) {
    notes.add(file, ln, fmt::format("NodeName={} CPUs={} matches none of Sockets, Sockets*CoresPerSocket, Sockets*CoresPerSocket*ThreadsPerCore; slurmctld resets CPUs to {}, and so does floorsim", name, s.cpus, product));
    cpus = product;
  }
  if (cpus > std::numeric_limits<int32_t>::max())
    bad(file, ln, fmt::format("NodeName={} has {} CPUs; expected at most 2147483647", name, cpus));
  d.cpus = static_cast<int32_t>(cpus);
  d.cpus_given = true;
}

// NodeName options slurm.conf(5) documents that do not change scheduling here.
bool quiet_node_key(const std::string& k) {
  static const char* kQuiet[] = {"nodehostname", "nodeaddr", "bcastaddr", "port", "tmpdisk", "reason", "cpubind",
                                 "parameters", "memspeclimit", "topology", "comment", "extra", "instanceid", "instancetype"};
  return std::any_of(std::begin(kQuiet), std::end(kQuiet), [&](const char* q) { return k == q; });
}

// A State= that is not where slurmctld would start jobs from; what floorsim does instead.
const char* state_note(const std::string& state) {
  if (state == "future")
    return "slurmctld leaves a FUTURE node out of the cluster until it is made available (scontrol update State=RESUME), which a replay never does; floorsim leaves it out";
  if (state == "cloud")
    return "slurmctld keeps a CLOUD node powered down until a job needs it (ResumeTimeout); floorsim starts it up, with no resume delay";
  if (state == "down" || state == "drain" || state == "fail" || state == "failing")
    return "slurmctld starts no job on it until an administrator resumes it, which a replay never does; floorsim keeps it in its partitions' sizes and starts no job on it";
  return nullptr;
}

}  // namespace

void NodeLines::node(const Words& kv, SlurmConfig& cfg, const std::string& file, int ln, Notes& notes) {
  NodeDef d = node_defaults;
  CpuShape shape;
  int64_t procs = -1;
  for (size_t i = 1; i < kv.size(); ++i) {
    const std::string k = lower(kv[i].first);
    const std::string& v = kv[i].second;
    auto count = [&] { return int64_t{to_count(v, kv[i].first, file, ln)}; };
    if (k == "gres") node_gres(v, d, file, ln, notes);
    else if (k == "cpus") shape.cpus = count();
    else if (k == "procs") procs = count();  // the old name: CPUs= wins when both are given
    else if (k == "boards") shape.boards = count();
    else if (k == "sockets") shape.sockets = count();
    else if (k == "socketsperboard") shape.sockets_per_board = count();
    else if (k == "corespersocket") shape.cores = count();
    else if (k == "threadspercore") shape.threads = count();
    else if (k == "realmemory") d.real_memory_mb = to_bounded(v, kv[i].first, 0, 1e12, file, ln);
    else if (k == "weight") d.weight = to_count(v, kv[i].first, file, ln);
    else if (k == "features" || k == "feature" || k == "availablefeatures" || k == "activefeatures") d.features = to_list(v);
    else if (k == "state") d.state = lower(v);
    else if (quiet_node_key(k)) continue;
    else if (k == "corespeccount" || k == "cpuspeclist" || k == "restrictedcorespergpu")
      notes.add(file, ln, fmt::format("NodeName {}={} is not modelled; floorsim lets jobs use every CPU of the node", kv[i].first, v));
    else if (k == "tresweights")
      notes.add(file, ln, fmt::format("NodeName TRESWeights={} is not modelled; fair-share usage is billed without it", v));
    else notes.add(file, ln, fmt::format("{} is not a NodeName option of slurm.conf(5); ignored", kv[i].first));
  }
  if (shape.cpus < 0) shape.cpus = procs;
  node_cpus(shape, d, kv[0].second, file, ln, notes);
  if (lower(kv[0].second) == "default") {
    node_defaults = d;
    return;
  }
  if (const char* note = state_note(d.state))
    notes.add(file, ln, fmt::format("NodeName={} State={}: {}", kv[0].second, d.state, note));
  d.origin = {file, ln};
  for (const auto& name : to_nodes(kv[0].second, "NodeName", file, ln)) {
    // slurmctld refuses a node defined twice; taking either definition would be a guess.
    if (!seen_nodes.insert(name).second) bad(file, ln, fmt::format("node {} is already defined; expected each NodeName once", name));
    NodeDef nd = d;
    nd.name = name;
    cfg.nodes.push_back(nd);
  }
}

// NodeSet=NAME Nodes=LIST or Feature=F (slurm.conf(5) "NODESET CONFIGURATION").
void NodeLines::nodeset(const Words& kv, SlurmConfig& cfg, const std::string& file, int ln, Notes& notes) {
  NodeSet s;
  s.name = kv[0].second;
  s.origin = {file, ln};
  for (size_t i = 1; i < kv.size(); ++i) {
    const std::string k = lower(kv[i].first);
    if (k == "nodes") {
      for (auto& n : to_nodes(kv[i].second, kv[i].first, file, ln)) s.nodes.push_back(n);
    } else if (k == "feature") s.feature = kv[i].second;
    else notes.add(file, ln, fmt::format("{} is not a NodeSet option of slurm.conf(5); ignored", kv[i].first));
  }
  for (const auto& o : cfg.nodesets)
    if (o.name == s.name) bad(file, ln, fmt::format("NodeSet {} is defined twice; expected unique NodeSet names", s.name));
  cfg.nodesets.push_back(s);
}

namespace {

// A PartitionName option that changes scheduling but is not modelled: the warning, or "" when
// its value is slurmctld's default (nothing to warn about).
std::string partition_note(const std::string& k, const std::string& key, const std::string& v) {
  const std::string l = lower(v);
  if (k == "allowgroups") {
    if (l == "all") return "";
    return fmt::format("{}={} is not modelled (floorsim knows no Unix groups); every user may use the partition", key, v);
  }
  static const char* kLimits[] = {"maxcpuspernode", "maxcpuspersocket", "gracetime", "exclusiveuser", "exclusivetopo", "lln", "rootonly", "reqresv",
                                  "overtimelimit", "selecttypeparameters", "suspendtime", "suspendtimeout",
                                  "resumetimeout", "powerdownonidle", "qos_limits"};
  if (std::any_of(std::begin(kLimits), std::end(kLimits), [&](const char* x) { return k == x; })) {
    if ((k == "maxcpuspernode" || k == "maxcpuspersocket") && (l == "unlimited" || l == "infinite")) return "";
    if ((k == "exclusiveuser" || k == "exclusivetopo" || k == "lln" || k == "rootonly" || k == "reqresv" || k == "powerdownonidle") && l == "no") return "";
    if ((k.rfind("defmem", 0) == 0 || k == "defcpupergpu" || k == "gracetime") && l == "0") return "";
    return fmt::format("{}={} is not modelled; floorsim applies no such partition rule", key, v);
  }
  return "-";  // not a scheduling option of a partition
}

// OverSubscribe= (or the old Shared=): EXCLUSIVE, FORCE[:N], YES[:N] or NO (slurm.conf(5); N
// defaults to 4, read_config.c _parse_partitions).
void oversubscribe(const std::string& v, const std::string& key, Partition& p, const std::string& pname,
                   const std::string& file, int ln, Notes& notes) {
  const std::string l = lower(v);
  const size_t colon = l.find(':');
  const std::string kind = l.substr(0, colon);
  p.oversubscribe_jobs = colon == std::string::npos ? 4 : static_cast<int32_t>(to_bounded(l.substr(colon + 1), key, 1, 65533, file, ln));
  if (kind == "no") p.oversubscribe = OverSubscribe::No, p.oversubscribe_jobs = 1;
  else if (kind == "exclusive") p.oversubscribe = OverSubscribe::Exclusive, p.oversubscribe_jobs = 1;
  else if (kind == "yes") {
    p.oversubscribe = OverSubscribe::Yes;
    notes.add(file, ln, fmt::format("PartitionName={} {}={}: only jobs submitted with --oversubscribe share CPUs, and the "
                                    "workload's jobs carry no such flag; floorsim shares no CPU, as with OverSubscribe=NO", pname, key, v));
  } else if (kind == "force") {
    p.oversubscribe = OverSubscribe::Force;
    notes.add(file, ln, fmt::format("PartitionName={} {}={}: each CPU of its nodes takes up to {} jobs (floorsim counts {} "
                                    "times their CPUs where every partition on a node forces; GPUs and memory are not "
                                    "shared); jobs sharing a CPU keep their run times, no gang scheduling slices them",
                                    pname, key, v, p.oversubscribe_jobs, p.oversubscribe_jobs));
  } else bad(file, ln, fmt::format("{}={}; expected EXCLUSIVE, FORCE[:N], YES[:N] or NO", key, v));
}

// PartitionName State= (slurm.conf(5)): UP, DOWN, DRAIN or INACTIVE.
Partition::State part_state(const std::string& v, const std::string& key, const std::string& file, int ln) {
  const std::string l = lower(v);
  if (l == "up") return Partition::State::Up;
  if (l == "down") return Partition::State::Down;
  if (l == "drain") return Partition::State::Drain;
  if (l == "inactive") return Partition::State::Inactive;
  bad(file, ln, fmt::format("{}={}; expected UP, DOWN, DRAIN or INACTIVE", key, v));
}

// AllowAccounts=a,b / AllowQos=ALL (slurm.conf(5)): a name list; ALL (the default) is no list.
std::vector<std::string> access_list(const std::string& v) {
  auto names = to_list(v);
  for (const auto& n : names)
    if (lower(n) == "all") return {};
  return names;
}

// TRESBillingWeights=CPU=1.0,Mem=0.25G,GRES/gpu=2.0 (slurm.conf(5)); TRES floorsim lacks bill 0, each named.
void billing_weights(const std::string& v, Partition& p, const std::string& pname, const std::string& file, int ln,
                     Notes& notes) {
  std::vector<std::string> unmodelled;
  const std::string err = parse_billing_weights(v, p.billing, unmodelled);
  if (!err.empty()) bad(file, ln, err);
  for (const auto& t : unmodelled)
    notes.add(file, ln, fmt::format("PartitionName={} TRESBillingWeights {} is not modelled (no such resource in floorsim); it bills 0", pname, t));
}

}  // namespace

void NodeLines::partition(const Words& kv, SlurmConfig& cfg, const std::string& file, int ln, Notes& notes) {
  Partition p = part_defaults;
  std::string nodes = part_nodes_default;
  const std::string& pname = kv[0].second;
  for (size_t i = 1; i < kv.size(); ++i) {
    const std::string k = lower(kv[i].first);
    const std::string& v = kv[i].second;
    if (k == "nodes") nodes = v;
    else if (k == "prioritytier") p.priority_tier = to_int(v, kv[i].first, file, ln);
    else if (k == "priorityjobfactor") p.priority_job_factor = to_int(v, kv[i].first, file, ln);
    else if (k == "priority") p.priority_job_factor = p.priority_tier = to_int(v, kv[i].first, file, ln);
    else if (k == "maxtime") p.max_time_s = to_time(v, kv[i].first, file, ln);
    else if (k == "defaulttime") p.default_time_s = to_time(v, kv[i].first, file, ln);
    else if (k == "qos") p.qos = v;
    else if (k == "default") p.is_default = to_bool(v, kv[i].first, file, ln);
    else if (k == "preemptmode") p.preempt_mode = to_mode(v, kv[i].first, file, ln);
    else if (k == "tresbillingweights") billing_weights(v, p, pname, file, ln, notes);
    else if (k == "state") p.state = part_state(v, kv[i].first, file, ln);
    else if (job_default(k, kv[i].first, v, p.defaults, file, ln)) continue;
    else if (mem_limit(k, kv[i].first, v, p.max_mem, file, ln)) continue;
    else if (k == "oversubscribe" || k == "shared") oversubscribe(v, kv[i].first, p, pname, file, ln, notes);
    else if (k == "maxnodes") p.max_nodes = lower(v) == "unlimited" || lower(v) == "infinite" ? kUnset : to_int(v, kv[i].first, file, ln);
    else if (k == "minnodes") p.min_nodes = to_int(v, kv[i].first, file, ln);
    else if (k == "allowaccounts") p.allow_accounts = access_list(v);
    else if (k == "denyaccounts") p.deny_accounts = access_list(v);
    else if (k == "allowqos") p.allow_qos = access_list(v);
    else if (k == "denyqos") p.deny_qos = access_list(v);
    else if (k == "hidden" || k == "alternate" || k == "allocnodes" || k == "disablerootjobs" || k == "cpubind" ||
             k == "maxcpuspertask" || k == "nodesets")
      continue;  // who sees or submits to the partition, not where jobs run
    else if (const std::string note = partition_note(k, kv[i].first, v); note != "-") {
      if (!note.empty()) notes.add(file, ln, fmt::format("PartitionName={} {}", pname, note));
    } else notes.add(file, ln, fmt::format("{} is not a PartitionName option of slurm.conf(5); ignored", kv[i].first));
  }
  if (lower(pname) == "default") {
    part_defaults = p;
    part_nodes_default = nodes;
    return;
  }
  p.name = pname;
  p.origin = {file, ln};
  for (const auto& q : cfg.partitions)
    if (q.name == p.name) bad(file, ln, fmt::format("partition {} defined twice; expected unique PartitionName", p.name));
  cfg.partitions.push_back(p);
  part_nodes.push_back(nodes);
}

void NodeLines::resolve(SlurmConfig& cfg, Notes& notes) const {
  std::unordered_map<std::string, const NodeSet*> sets;
  for (auto& s : cfg.nodesets) {
    if (!s.feature.empty())
      for (const auto& n : cfg.nodes)
        if (std::find(n.features.begin(), n.features.end(), s.feature) != n.features.end()) s.nodes.push_back(n.name);
    sets[s.name] = &s;
  }
  for (size_t i = 0; i < cfg.partitions.size() && i < part_nodes.size(); ++i) {
    Partition& p = cfg.partitions[i];
    const std::string& spec = part_nodes[i];
    p.nodes.clear();
    if (spec.empty()) {
      // slurm.conf(5) Nodes: a partition without them has no node, and its jobs pend.
      p.no_nodes = true;
      notes.add(p.origin.file, p.origin.line, fmt::format("PartitionName={} has no Nodes=; it has no node, as in slurmctld, and its jobs pend", p.name));
      continue;
    }
    bool all = false;
    std::vector<std::string> names;
    for (const auto& item : split_top(spec)) {
      if (item.empty()) continue;
      if (lower(item) == "all") all = true;
      else if (auto it = sets.find(item); it != sets.end()) names.insert(names.end(), it->second->nodes.begin(), it->second->nodes.end());
      else for (auto& n : to_nodes(item, "Nodes", p.origin.file, p.origin.line)) names.push_back(n);
    }
    if (all) continue;  // empty: every node
    std::unordered_set<std::string> seen;
    for (auto& n : names)
      if (seen.insert(n).second) p.nodes.push_back(n);
    if (p.nodes.empty()) p.no_nodes = true;
  }
  drop_future(cfg);
}

// FUTURE nodes are not in the cluster (slurm.conf(5) State=FUTURE): gone from the nodes, node
// sets and partitions; a partition left without a node has none, as with no Nodes=.
void NodeLines::drop_future(SlurmConfig& cfg) {
  std::unordered_set<std::string> future;
  for (const auto& n : cfg.nodes)
    if (n.state == "future") future.insert(n.name);
  if (future.empty()) return;
  auto gone = [&](const std::string& n) { return future.count(n) > 0; };
  std::erase_if(cfg.nodes, [&](const NodeDef& d) { return gone(d.name); });
  for (auto& s : cfg.nodesets) std::erase_if(s.nodes, gone);
  for (auto& p : cfg.partitions) {
    if (p.nodes.empty()) continue;  // ALL, or none already
    std::erase_if(p.nodes, gone);
    if (p.nodes.empty()) p.no_nodes = true;
  }
}

}  // namespace floorsim::slurm::conf
