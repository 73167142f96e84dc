#include "schedulers/common/placement.hpp"

namespace floorsim::placement {
namespace {

// Nodes are tried in the order node(0), node(1), ... (identity: index order).
template <class Allowed, class Node>
bool fit(const JobSpec& job, std::span<const int32_t> free, Allowed allowed, std::vector<NodeShare>& out,
         int32_t max_node_gpus, Node node) {
  out.clear();
  const size_t n = free.size();
  if (job.gpus <= 0 || job.nodes > job.gpus) return false;  // the runner rejects such jobs
  if (job.nodes <= 0) {
    if (max_node_gpus <= 0 || job.gpus <= max_node_gpus)  // <= 0: unknown
      for (size_t k = 0; k < n; ++k)
        if (const size_t i = node(k); allowed(i) && free[i] >= job.gpus) {
          out.push_back({static_cast<NodeIdx>(i), job.gpus});
          return true;
        }
    int32_t need = job.gpus;
    for (size_t k = 0; k < n && need > 0; ++k) {
      const size_t i = node(k);
      if (!allowed(i) || free[i] <= 0) continue;
      const int32_t g = free[i] < need ? free[i] : need;
      out.push_back({static_cast<NodeIdx>(i), g});
      need -= g;
    }
    if (need > 0) {
      out.clear();
      return false;
    }
    return true;
  }
  const int32_t base = job.gpus / job.nodes;
  int32_t big = job.gpus % job.nodes;     // nodes that take base+1
  int32_t small = job.nodes - big;        // nodes that take base
  for (size_t k = 0; k < n && (big > 0 || small > 0); ++k) {
    const size_t i = node(k);
    if (!allowed(i)) continue;
    if (big > 0 && free[i] >= base + 1) {
      out.push_back({static_cast<NodeIdx>(i), base + 1});
      --big;
    } else if (small > 0 && free[i] >= base) {
      out.push_back({static_cast<NodeIdx>(i), base});
      --small;
    }
  }
  if (big > 0 || small > 0) {
    out.clear();
    return false;
  }
  return true;
}

}  // namespace

bool first_fit(const JobSpec& job, std::span<const int32_t> free, std::vector<NodeShare>& out, int32_t max_node_gpus) {
  return fit(job, free, [](size_t) { return true; }, out, max_node_gpus, [](size_t k) { return k; });
}

bool first_fit_masked(const JobSpec& job, std::span<const int32_t> free, std::span<const uint8_t> allowed,
                      std::vector<NodeShare>& out, int32_t max_node_gpus) {
  return fit(job, free, [&](size_t i) { return allowed[i] != 0; }, out, max_node_gpus, [](size_t k) { return k; });
}

bool first_fit_ordered(const JobSpec& job, std::span<const int32_t> free, std::span<const uint8_t> allowed,
                       std::span<const NodeIdx> order, std::vector<NodeShare>& out, int32_t max_node_gpus) {
  return fit(job, free, [&](size_t i) { return allowed[i] != 0; }, out, max_node_gpus,
             [&](size_t k) { return static_cast<size_t>(order[k]); });
}

}  // namespace floorsim::placement
