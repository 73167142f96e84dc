#pragma once
// Workloads with several PodSets, and partial admission (kueue.sigs.k8s.io/docs/concepts/workload,
// feature gate PartialAdmission). Pure functions over the model, no engine types:
// - flavor assignment PodSet by PodSet, each seeing the usage the earlier ones were assigned
//   (pkg/scheduler/flavorassigner/flavorassigner.go Assign: a flavor per PodSet per resource);
// - the PodSet reducer, a binary search over the pods a workload may give up, down to each
//   PodSet's minCount (pkg/scheduler/flavorassigner/podset_reducer.go NewPodSetReducer /
//   Search, commit e4494ca5afc99b5b2ad27a092053112376567779's tests), used by the scheduler's
//   getInitialAssignments when the full counts do not fit and preemption cannot help.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "schedulers/kueue/model.hpp"

namespace floorsim::kueue {

struct PodSet {
  int32_t count = 1;      // pods
  int32_t min_count = 1;  // minCount (== count: not reducible)
  Request per_pod{};      // requests of one pod, in the model's units
  uint64_t untolerated = 0;  // flavors whose taints this PodSet's pods do not tolerate
};

// The PodSets of one workload, in the order of its spec.
struct PodSets {
  std::vector<PodSet> sets;
  uint64_t untolerated = 0;  // flavors whose taints no PodSet's pods tolerate (the LocalQueue's)
  bool can_be_partial() const {  // workload.CanBePartiallyAdmitted
    for (const auto& p : sets)
      if (p.count > p.min_count) return true;
    return false;
  }
  // The whole workload's request at `counts` (empty: the full counts).
  Request total(std::span<const int32_t> counts = {}) const;
};

// NewPodSetReducer + Search: the smallest reduction budget i in [0, sum(count - minCount)] for
// which fits(counts) holds, each PodSet giving up floor(delta_p * i / total) pods. Writes the
// counts into `out` and returns true; false when no budget fits, or none is reducible.
bool reduce_podsets(std::span<const int32_t> full, std::span<const int32_t> min,
                    const std::function<bool(std::span<const int32_t>)>& fits, std::vector<int32_t>& out);

// Flavor assignment PodSet by PodSet at `counts` in CQ `in.cq`: each PodSet's request is assigned
// with the earlier PodSets' assigned usage added to it in every flavor's check (assumedUsage), so
// a PodSet that would overflow a flavor the earlier ones took tries the next flavor; the result
// has the worst mode, the highest borrow level, the summed usage. The tree is not changed.
Assignment assign_podsets(const Model& m, QuotaTree& tree, const AdmittedSet& adm, Preemption& pre, FlavorAssigner& fa,
                          const Preemptor& in, const PodSets& ps, std::span<const int32_t> counts);

}  // namespace floorsim::kueue
