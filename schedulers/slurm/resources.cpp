// CPUs and memory as consumable resources beside GPUs, as select/cons_tres treats them
// (https://slurm.schedmd.com/cons_tres.html): a job fits a node only if its GPUs, CPUs and
// memory all fit there. Used only where the cluster gives CPUs or memory (res_on_); GPU-only
// clusters never come here, so their placements are unchanged.
//
// A job's request (JobSpec): cpus in all (Slurm ReqCPUS; 0 = not given: one CPU per node,
// Slurm's one task of one CPU) and memory per node, per CPU or per GPU (sbatch(1) --mem,
// --mem-per-cpu, --mem-per-gpu). Without a memory request the job gets all the memory of each
// node it uses: DefMemPerNode's default is 0, "unlimited" (slurm.conf(5)), and a memory
// specification of zero "grants the job access to all of the memory on each node" (sbatch(1)).
//
// The existing placement works in units over a per-node free vector: a GPU job's unit is a GPU,
// a CPU-only job's a CPU. Each node's units are what its free GPUs, CPUs and memory all allow
// (CPUs per GPU: the job's CPUs over its GPUs, rounded up), except that a node holding the whole
// job offers all of it, so "the first node that holds the whole job" is exact; a job spread
// over nodes takes CPUs in proportion to its GPUs there (at least one per node).
#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>

#include <fmt/format.h>

#include "schedulers/slurm/part_limits.hpp"
#include "schedulers/slurm/model.hpp"

namespace floorsim::slurm {

namespace {

constexpr int64_t kAny = INT32_MAX;  // a node that gives no CPUs (or memory): never binds

struct Ask {
  int64_t cpus = 0;       // CPUs of the whole job (at least 1)
  int64_t cpg = 0;        // GPU job: CPUs per GPU (0 = one CPU per node)
  int64_t mem = 0;        // MiB per node / CPU / GPU as mem_per says
  JobSpec::MemPer per = JobSpec::MemPer::None;
};

// Memory of `cpus` CPUs and `gpus` GPUs on a node whose memory is `cap` (0: not given).
int64_t mem_of(const Ask& a, int64_t cpus, int64_t gpus, int64_t cap) {
  switch (a.per) {
    case JobSpec::MemPer::Node: return a.mem;
    case JobSpec::MemPer::Cpu: return cpus * a.mem;
    case JobSpec::MemPer::Gpu: return gpus * a.mem;
    default: return cap;  // all of the node's memory
  }
}

}  // namespace

void SlurmModel::build_resources(const Workload& wl, const ClusterConfig& cluster) {
  res_on_ = cluster.gives_cpus() || cluster.gives_mem();
  if (!cluster.gives_cpus())
    for (const auto& p : cfg_.partitions)
      if (p.oversubscribe == OverSubscribe::Exclusive)
        built_warnings_.push_back(fmt::format("PartitionName={} OverSubscribe=EXCLUSIVE is not modelled: the cluster gives no CPU "
                                              "counts, so floorsim gives each job the GPUs it asks and shares nodes, as with NO", p.name));
  if (!res_on_) return;
  if (cluster.gives_cpus()) cap_cpus_ = own_cpus_ = cluster.node_cpus;
  // OverSubscribe=FORCE:N: cluster_from_conf gave the node N times its CPUs; a cluster from the
  // scenario did not, and then the partition shares no CPU.
  const std::vector<int32_t> share = cpu_share_by_node(cfg_);
  std::map<std::string, size_t> conf_of;
  for (size_t i = 0; i < cfg_.nodes.size(); ++i) conf_of[cfg_.nodes[i].name] = i;
  bool unscaled = false;
  for (size_t n = 0; n < cap_cpus_.size(); ++n)
    if (auto it = conf_of.find(cluster.node_names[n]); it != conf_of.end() && share[it->second] > 1) {
      if (cap_cpus_[n] == cfg_.nodes[it->second].cpus * share[it->second]) own_cpus_[n] = cfg_.nodes[it->second].cpus;
      else unscaled = true;
    }
  if (unscaled)
    built_warnings_.push_back("OverSubscribe=FORCE is not applied where the scenario's cluster block gives the CPUs (only a "
                              "cluster built from slurm.conf counts FORCE:N claims per CPU); those nodes share no CPU");
  if (cluster.gives_mem())
    for (auto b : cluster.node_mem_bytes) cap_mem_.push_back(static_cast<int32_t>(std::min<int64_t>(b >> 20, INT32_MAX)));
}

// OverSubscribe=EXCLUSIVE (slurm.conf(5)): "Allocates entire nodes to jobs even with
// SelectType=select/cons_tres"; the job gets all CPUs of its nodes but "only as much memory as
// they ask for". Only idle nodes can take it; holding all their CPUs, it keeps every other job off
// them (each job needs a CPU on each of its nodes). GPUs stay as asked: the engine's GPU count is
// the job's, and no other job can use the node's other GPUs meanwhile.
bool SlurmModel::whole_nodes(const JobSpec& asked) const {
  const auto i = &asked - wl_->jobs.data();
  return i >= 0 && static_cast<size_t>(i) < jpart_.size() && !cap_cpus_.empty() &&
         cfg_.partitions[jpart_[static_cast<size_t>(i)]].oversubscribe == OverSubscribe::Exclusive;
}

bool SlurmModel::place_res(const JobSpec& asked, std::span<const int32_t> f, const NodeRes& r) {
  const JobSpec& js = spec(asked);  // with DefCpuPerGPU / DefMemPer* applied
  const bool whole = whole_nodes(asked);
  Ask a;
  a.per = js.mem_per;
  a.mem = js.mem_mib;
  const bool gpu_job = js.gpus > 0;
  a.cpus = std::max<int64_t>({js.cpus, 1, gpu_job ? 0 : js.nodes});
  if (gpu_job && js.cpus > 0) a.cpg = (js.cpus + js.gpus - 1) / js.gpus;
  if (!gpu_job && a.per == JobSpec::MemPer::Gpu) a.per = JobSpec::MemPer::Node, a.mem = 0;  // --mem-per-gpu without GPUs asks none
  const int64_t want = gpu_job ? js.gpus : a.cpus;  // units of the whole job
  ufree_.resize(nn_);
  for (size_t n = 0; n < nn_; ++n) {
    const bool tc = !r.cpus.empty() && cap_cpus_[n] > 0, tm = !r.mem.empty() && cap_mem_[n] > 0;
    if (whole && !(f[n] == cluster_->node_gpus[n] && (!tc || r.cpus[n] == cap_cpus_[n]) && (!tm || r.mem[n] == cap_mem_[n]))) {
      ufree_[n] = 0;  // not idle
      continue;
    }
    // One job holds at most the node's own CPUs, also where FORCE:N counts N claims per CPU.
    const int64_t c = tc ? std::min(r.cpus[n], own_cpus_[n]) : kAny, m = tm ? r.mem[n] : kAny, cm = tm ? cap_mem_[n] : 0;
    const int64_t g = gpu_job ? f[n] : kAny;
    // Memory "per node" kinds bind by node, not by unit.
    const bool node_mem_ok = a.per == JobSpec::MemPer::None ? (!tm || m >= cm) : a.per != JobSpec::MemPer::Node || m >= a.mem;
    const bool all = node_mem_ok && g >= (gpu_job ? js.gpus : 0) && c >= a.cpus &&
                       m >= mem_of(a, a.cpus, js.gpus, cm);
    int64_t u = 0;
    if (node_mem_ok) {
      if (gpu_job) {
        u = g;
        if (a.cpg > 0) u = std::min(u, c / a.cpg);
        else if (c < 1) u = 0;
        if (a.per == JobSpec::MemPer::Cpu && a.mem > 0) u = std::min(u, m / (std::max<int64_t>(a.cpg, 1) * a.mem));
        if (a.per == JobSpec::MemPer::Gpu && a.mem > 0) u = std::min(u, m / a.mem);
      } else {
        u = c;
        if (a.per == JobSpec::MemPer::Cpu && a.mem > 0) u = std::min(u, m / a.mem);
      }
    }
    // Only a node that holds the whole job offers it all: the whole-node search stays exact.
    if (all) u = std::max(u, want);
    else if (js.nodes <= 0) u = std::min(u, want - 1);
    ufree_[n] = static_cast<int32_t>(std::clamp<int64_t>(u, 0, INT32_MAX));
  }
  bool ok;
  if (gpu_job) {
    ok = place_gpus(js, ufree_);
  } else {
    ujob_ = js;
    ujob_.gpus = static_cast<int32_t>(a.cpus);
    // The placement's "largest node" hint is in GPUs; CPU units have no such bound here.
    const int32_t keep = max_node_gpus_;
    max_node_gpus_ = INT32_MAX;
    ok = place_gpus(ujob_, ufree_);
    max_node_gpus_ = keep;
  }
  if (!ok) return false;
  int64_t left = a.cpus;
  for (auto& s : shares_) {
    const int64_t cm = cap_mem_.empty() ? 0 : cap_mem_[s.node];
    int64_t cpus;
    if (!gpu_job) cpus = s.gpus, s.gpus = 0;
    else if (shares_.size() == 1) cpus = a.cpus;
    else cpus = a.cpg > 0 ? std::max<int64_t>(1, std::min<int64_t>(s.gpus * a.cpg, left)) : 1;
    left -= cpus;
    s.mem_mib = static_cast<int32_t>(std::clamp<int64_t>(mem_of(a, cpus, s.gpus, cm), 0, INT32_MAX));
    s.cpus = static_cast<int32_t>(whole && cap_cpus_[s.node] > 0 ? cap_cpus_[s.node] : cpus);
  }
  return true;
}

}  // namespace floorsim::slurm
