// ClusterQueue quota updates at run time (issue 9). Kueue applies an edited ClusterQueue at
// once: the cache recomputes subtree and guaranteed quotas (spec kueue §2) and every
// inadmissible workload of the cohort tree is requeued (spec §3, any spec change).
// Admitted workloads are never evicted by a quota cut: they keep running, and the CQ is simply
// over its new nominal quota (so reclaim in the cohort may preempt them later).
#include "schedulers/kueue/core.hpp"

#include <fmt/format.h>

namespace floorsim::kueue {

std::string Core::set_quota(NodeId cq, FrId fr, int which, Qty value, Qty& before) {
  QuotaTree& t = m_.tree;
  if (cq < 0 || cq >= t.size() || !t.is_cq(cq)) return "not a ClusterQueue";
  if (fr >= t.frs()) return "no such flavor/resource";
  // Limits must be nil without a cohort (spec §1).
  if (which != 0 && value != kNoLimit && !t.has_parent(cq))
    return fmt::format("ClusterQueue {} has no cohort; borrowingLimit and lendingLimit must stay nil", t.name(cq));
  Qty nominal = t.nominal(cq, fr), bl = t.borrowing_limit(cq, fr), ll = t.lending_limit(cq, fr);
  Qty& slot = which == 0 ? nominal : which == 1 ? bl : ll;
  before = slot;
  slot = value;
  if (which == 2 && ll != kNoLimit && ll > nominal) return fmt::format("lendingLimit {} exceeds nominalQuota {}", ll, nominal);
  // Keep each CQ's own usage, rebuild the cohorts' bubbled usage under the new quotas.
  std::vector<Qty> own(static_cast<size_t>(t.size()) * t.frs(), 0);
  for (NodeId n = 0; n < t.size(); ++n)
    if (t.is_cq(n))
      for (FrId f = 0; f < t.frs(); ++f) own[static_cast<size_t>(n) * t.frs() + f] = t.usage(n, f);
  t.set_quota(cq, fr, nominal, bl, ll);
  t.finalize();
  t.restore_usage(std::vector<Qty>(own.size(), 0));
  for (NodeId n = 0; n < t.size(); ++n)
    if (t.is_cq(n))
      for (FrId f = 0; f < t.frs(); ++f)
        if (const Qty u = own[static_cast<size_t>(n) * t.frs() + f]; u != 0) t.add_usage(n, f, u);
  retry_inadmissible(t.root(cq));
  retry_waiting_for_nodes();
  return "";
}

}  // namespace floorsim::kueue
