#include "schedulers/common/node_resources.hpp"

#include <algorithm>
#include <limits>

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

void NodeResources::move(std::span<const NodeShare> p, int sign) {
  for (const auto& s : p) {
    if (!cpus_.empty() && cap_cpus_[s.node] > 0) cpus_[s.node] += sign * s.cpus;
    if (!mem_.empty() && cap_mem_[s.node] > 0) mem_[s.node] += sign * s.mem_mib;
  }
}

}  // namespace floorsim::placement
