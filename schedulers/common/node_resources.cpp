#include "schedulers/common/node_resources.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"

namespace floorsim::placement {
namespace {

int32_t ceil_part(int64_t total, int64_t part, int64_t whole, int64_t unit) {
  if (total <= 0 || part <= 0 || whole <= 0) return 0;
  const int64_t den = whole * unit;
  const int64_t v = (total * part + den - 1) / den;
  return static_cast<int32_t>(std::min<int64_t>(v, std::numeric_limits<int32_t>::max()));
}

}  // namespace

int32_t share_cpus(int64_t cpu_milli, int64_t part, int64_t whole) { return ceil_part(cpu_milli, part, whole, 1000); }
int32_t share_mem(int64_t mem_mib, int64_t part, int64_t whole) { return ceil_part(mem_mib, part, whole, 1); }

void NodeResources::reset(const ClusterView& c) {
  cap_cpus_.assign(c.capacity_cpus.begin(), c.capacity_cpus.end());
  cap_mem_.assign(c.capacity_mem_mib.begin(), c.capacity_mem_mib.end());
  cpus_.assign(c.free_cpus.begin(), c.free_cpus.end());
  mem_.assign(c.free_mem_mib.begin(), c.free_mem_mib.end());
  up_.assign(c.node_up.begin(), c.node_up.end());
  binds_ = !cpus_.empty() || !mem_.empty();
}

void NodeResources::reset_capacity(const ClusterView& c) {
  reset(c);
  for (size_t n = 0; n < up_.size(); ++n) {
    if (!cpus_.empty()) cpus_[n] = up_[n] ? cap_cpus_[n] : 0;
    if (!mem_.empty()) mem_[n] = up_[n] ? cap_mem_[n] : 0;
  }
}

NodeShare NodeResources::share(size_t n, int32_t gpus, int32_t cpus, int32_t mem) const {
  // A node that does not track a resource holds none of it in the share (NodeShare's rule).
  const bool tc = !cpus_.empty() && cap_cpus_[n] > 0, tm = !mem_.empty() && cap_mem_[n] > 0;
  return NodeShare{static_cast<NodeIdx>(n), gpus, tc ? cpus : 0, tm ? mem : 0};
}

bool NodeResources::first_fit(const JobSpec& job, const NodeAsk& ask, std::span<const int32_t> free,
                              std::span<const uint8_t> allowed, std::vector<NodeShare>& out, int32_t max_node_gpus) const {
  if (job.gpus > 0 && (!ask.any() || !binds_))
    return allowed.empty() ? placement::first_fit(job, free, out, max_node_gpus)
                           : placement::first_fit_masked(job, free, allowed, out, max_node_gpus);
  out.clear();
  const size_t nn = free.size();
  auto ok = [&](size_t n) { return (allowed.empty() || allowed[n]) && (up_.empty() || up_[n]); };
  if (job.gpus <= 0) {  // CPU-only: one share of 0 GPUs per pod, each on its own node
    const int32_t pods = cpu_only_pods(job);
    const int32_t c = share_cpus(ask.cpu_milli, 1, pods), m = share_mem(ask.mem_mib, 1, pods);
    for (size_t n = 0; n < nn && out.size() < static_cast<size_t>(pods); ++n)
      if (ok(n) && fits(n, c, m)) out.push_back(share(n, 0, c, m));
    if (out.size() == static_cast<size_t>(pods)) return true;
    out.clear();
    return false;
  }
  if (job.nodes > job.gpus) return false;
  const int64_t whole = job.gpus;
  auto fits_g = [&](size_t n, int32_t g) {
    return ok(n) && free[n] >= g && fits(n, share_cpus(ask.cpu_milli, g, whole), share_mem(ask.mem_mib, g, whole));
  };
  auto push = [&](size_t n, int32_t g) {
    out.push_back(share(n, g, share_cpus(ask.cpu_milli, g, whole), share_mem(ask.mem_mib, g, whole)));
  };
  if (job.nodes <= 0) {
    if (max_node_gpus <= 0 || job.gpus <= max_node_gpus)
      for (size_t n = 0; n < nn; ++n)
        if (fits_g(n, job.gpus)) {
          push(n, job.gpus);
          return true;
        }
    // Greedy across nodes in order: on each node the most GPUs whose CPUs and memory fit too.
    int32_t need = job.gpus;
    for (size_t n = 0; n < nn && need > 0; ++n) {
      if (!ok(n) || free[n] <= 0) continue;
      int32_t g = std::min(free[n], need);
      while (g > 0 && !fits_g(n, g)) --g;
      if (g == 0) continue;
      push(n, g);
      need -= g;
    }
    if (need == 0) return true;
    out.clear();
    return false;
  }
  const int32_t base = job.gpus / job.nodes;
  int32_t big = job.gpus % job.nodes, small = job.nodes - big;
  for (size_t n = 0; n < nn && (big > 0 || small > 0); ++n) {
    if (big > 0 && fits_g(n, base + 1)) {
      push(n, base + 1);
      --big;
    } else if (small > 0 && fits_g(n, base)) {
      push(n, base);
      --small;
    }
  }
  if (big == 0 && small == 0) return true;
  out.clear();
  return false;
}

bool NodeResources::fill(std::span<NodeShare> shares, const NodeAsk& ask, int32_t gpus) const {
  if (!ask.any() || !binds_) return true;
  for (auto& s : shares) {
    const int32_t c = share_cpus(ask.cpu_milli, s.gpus, gpus), m = share_mem(ask.mem_mib, s.gpus, gpus);
    if (!fits(s.node, c, m)) return false;
    s = share(s.node, s.gpus, c, m);
  }
  return true;
}

std::string never_fits(const JobSpec& job, const NodeAsk& ask, const ClusterConfig& cluster) {
  if (!ask.any() || (!cluster.gives_cpus() && !cluster.gives_mem())) return {};
  const size_t nn = cluster.nodes();
  // The idle cluster as a view: every node up, all of its GPUs, CPUs and memory free.
  std::vector<int32_t> mem_mib;
  if (cluster.gives_mem())
    for (auto b : cluster.node_mem_bytes) mem_mib.push_back(static_cast<int32_t>(std::min<int64_t>(b >> 20, std::numeric_limits<int32_t>::max())));
  const std::vector<uint8_t> up(nn, 1);
  ClusterView v;
  v.capacity_gpus = v.free_gpus = cluster.node_gpus;
  v.node_up = up;
  if (cluster.gives_cpus()) v.capacity_cpus = v.free_cpus = cluster.node_cpus;
  v.capacity_mem_mib = v.free_mem_mib = mem_mib;
  NodeResources res;
  res.reset(v);
  std::vector<NodeShare> out;
  if (res.first_fit(job, ask, cluster.node_gpus, {}, out, cluster.max_node_gpus())) return {};
  int32_t most_cpus = 0;
  int64_t most_mem = 0;
  for (size_t n = 0; n < nn; ++n) {
    most_cpus = std::max(most_cpus, cluster.node_cpus.empty() ? 0 : cluster.node_cpus[n]);
    most_mem = std::max(most_mem, cluster.node_mem_bytes.empty() ? int64_t{0} : cluster.node_mem_bytes[n] >> 20);
  }
  if (job.gpus <= 0) {  // one pod per node, each an even share
    const int32_t pods = cpu_only_pods(job);
    const int32_t c = share_cpus(ask.cpu_milli, 1, pods), m = share_mem(ask.mem_mib, 1, pods);
    int32_t hold = 0;
    for (size_t n = 0; n < nn; ++n) {
      const int32_t nc = cluster.node_cpus.empty() ? 0 : cluster.node_cpus[n];
      const int64_t nm = cluster.node_mem_bytes.empty() ? 0 : cluster.node_mem_bytes[n] >> 20;
      hold += (nc <= 0 || c <= nc) && (nm <= 0 || m <= nm);
    }
    return fmt::format("job {} asks for {} CPUs and {} MiB of memory on each of {} node(s); {} node(s) of the cluster have that much "
                       "(the largest: {} CPUs, {} MiB); expected a CPU-only job that fits the nodes",
                       job.id, c, m, pods, hold, most_cpus, most_mem);
  }
  // A GPU job: its cpu and memory split by GPUs; name the share of its largest node part.
  const int32_t part = job.nodes > 0 ? (job.gpus + job.nodes - 1) / job.nodes : std::min(job.gpus, cluster.max_node_gpus());
  return fmt::format("job {} asks for {} CPUs and {} MiB of memory with its {} GPUs on {} node(s) ({} CPUs and {} MiB with {} GPUs "
                     "on one node); no placement on the idle cluster holds them (the largest node: {} GPUs, {} CPUs, {} MiB); "
                     "expected a job whose cpu and memory per node, split by GPUs, fit the nodes",
                     job.id, share_cpus(ask.cpu_milli, job.gpus, job.gpus), share_mem(ask.mem_mib, job.gpus, job.gpus), job.gpus,
                     job.nodes > 0 ? std::to_string(job.nodes) : std::string("any"), share_cpus(ask.cpu_milli, part, job.gpus),
                     share_mem(ask.mem_mib, part, job.gpus), part, cluster.max_node_gpus(), most_cpus, most_mem);
}

void NodeResources::move(std::span<const NodeShare> p, int sign) {
  for (const auto& s : p) {
    if (!cpus_.empty() && cap_cpus_[s.node] > 0) cpus_[s.node] += sign * s.cpus;
    if (!mem_.empty() && cap_mem_[s.node] > 0) mem_[s.node] += sign * s.mem_mib;
  }
}

}  // namespace floorsim::placement
