#pragma once
// Helpers shared by the kernels tests.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "fabric/flow_set.hpp"
#include "kernels/contention.hpp"
#include "kernels/fat_tree_gen.hpp"

namespace floorsim::kernels::test {

// Equal within `rel` relative (both +inf counts as equal; so do two exact zeros).
inline bool rel_eq(double a, double b, double rel = 1e-9) {
  if (std::isinf(a) || std::isinf(b)) return a == b;
  const double scale = std::max(std::fabs(a), std::fabs(b));
  return std::fabs(a - b) <= rel * scale;
}

inline double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return INFINITY;
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isinf(a[i]) || std::isinf(b[i])) {
      if (a[i] != b[i]) return INFINITY;
      continue;
    }
    const double s = std::max(std::fabs(a[i]), std::fabs(b[i]));
    if (s > 0) m = std::max(m, std::fabs(a[i] - b[i]) / s);
  }
  return m;
}

// A mixed batch of random fat-tree scenarios: k in {4, 8}, tapers, failed links, D-mod-K or
// random routing, random sizes and (for some) staggered starts.
inline ContentionBatch random_batch(uint32_t scenarios, uint64_t seed, std::vector<fabric::FlowSet>* keep = nullptr) {
  ContentionBatch batch;
  std::mt19937_64 rng(seed);
  for (uint32_t s = 0; s < scenarios; ++s) {
    gen::FatTreeSpec spec;
    spec.k = (rng() % 3 == 0) ? 4 : 8;
    const double tapers[] = {1.0, 4.0 / 3.0, 2.0, 3.0};
    spec.edge_taper = tapers[rng() % 4];
    spec.agg_taper = tapers[rng() % 4];
    const uint32_t L = gen::fat_tree_links(spec.k), H = gen::fat_tree_hosts(spec.k);
    const uint32_t fails = rng() % 4;
    for (uint32_t i = 0; i < fails; ++i) spec.failed_links.push_back(2 * H + rng() % (L - 2 * H));  // tiers 1-2
    const auto routing = rng() % 2 ? gen::Routing::DModK : gen::Routing::Random;
    const uint32_t flows = 1 + rng() % (2 * H);
    const double start_hi = rng() % 2 ? 0.0 : 0.5;
    fabric::FlowSet fs = gen::random_fat_tree_scenario(spec, flows, routing, 1e8, 2e9, start_hi, rng());
    batch.add(fs);
    if (keep) keep->push_back(std::move(fs));
  }
  return batch;
}

}  // namespace floorsim::kernels::test
