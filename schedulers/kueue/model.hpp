#pragma once
// Kueue's static configuration (ClusterQueues, cohorts, flavors) and the admitted-workload
// set, as flat data over a QuotaTree; plus the pure decision functions that read them:
// flavor assignment (spec kueue §5) and classical preemption target selection (spec §6).
// Nothing here knows about the simulator's engine.
#include <array>
#include <cstdint>
#include <string>
#include <limits>
#include <vector>

#include "schedulers/kueue/quota_tree.hpp"

namespace floorsim::kueue {

inline constexpr int kMaxRes = 8;  // resource kinds in one model (gpu, cpu, memory, five more names)
// What a workload asks for: per resource kind, summed over its pods; and the flavors whose
// nodeTaints (NoSchedule, NoExecute) its pods do not tolerate, which flavor assignment skips
// (pkg/scheduler/flavorassigner checkFlavorForPodSets, FindMatchingUntoleratedTaint).
struct Request {
  std::array<Qty, kMaxRes> qty{};
  uint64_t untolerated = 0;  // bit f: flavor f is tainted against this workload
  Qty& operator[](int r) { return qty[static_cast<size_t>(r)]; }
  Qty operator[](int r) const { return qty[static_cast<size_t>(r)]; }
  bool operator==(const Request&) const = default;
};

// PR/common/preemption_policy.go.
enum class Policy : uint8_t { Never, LowerPriority, LowerOrNewerEqualPriority, Any };

struct PreemptionConfig {
  Policy within = Policy::Never;    // withinClusterQueue
  Policy reclaim = Policy::Never;   // reclaimWithinCohort
  bool borrow_within_cohort = false;  // borrowWithinCohort.policy == LowerPriority
  bool has_threshold = false;         // borrowWithinCohort.maxPriorityThreshold set
  int32_t threshold = 0;
};

// flavorFungibility (spec §1 defaults: MayStopSearch, TryNextFlavor, BorrowingOverPreemption).
struct FlavorFungibility {
  bool borrow_try_next = false;          // whenCanBorrow = TryNextFlavor
  bool preempt_try_next = true;          // whenCanPreempt = TryNextFlavor
  bool preemption_over_borrowing = false;  // preference = PreemptionOverBorrowing
};

struct ResourceGroup {
  std::vector<int> resources;  // covered resource kinds
  std::vector<int> flavors;    // in order of preference
};

struct CqConfig {
  std::vector<ResourceGroup> groups;
  PreemptionConfig preemption;
  FlavorFungibility fungibility;
  bool strict_fifo = false;  // queueingStrategy StrictFIFO (default BestEffortFIFO)
  double fair_weight = 1;    // fairSharing.weight (also used for cohort nodes)
  bool active = true;
  // admissionScope.admissionMode = UsageBasedAdmissionFairSharing (spec §7): heads ordered by
  // their LocalQueue's decayed usage first (needs CoreSettings::afs as well).
  bool admission_fair_sharing = false;
};

// Static model: tree + per-CQ config. fr = flavor * resources + resource.
struct Model {
  QuotaTree tree;
  int resources = 1;
  int flavors = 1;
  std::vector<CqConfig> cq;  // indexed by NodeId (cohort entries unused)
  std::vector<std::string> resource_names, flavor_names;
  bool fair_sharing = false;  // fairSharing.enable (spec §7)
  // fairSharing.preemptionStrategies: S2-a LessThanOrEqualToFinalShare, S2-b LessThanInitialShare.
  bool fs_s2a = true, fs_s2b = true;
  bool gate_preempt_within_nominal = true;   // FairSharingPreemptWithinNominal
  bool gate_prioritize_non_borrowing = true;  // FairSharingPrioritizeNonBorrowing

  FrId fr(int flavor, int resource) const { return static_cast<FrId>(flavor * resources + resource); }
  int flavor_of(FrId f) const { return f / resources; }
  int resource_of(FrId f) const { return f % resources; }
};

// An admitted (quota-reserved) workload, as preemption sees it.
struct Admitted {
  uint32_t key = 0;        // caller's id (JobIdx in the simulator)
  uint32_t uid = 0;        // deterministic tie-breaker (the k8s UID order)
  NodeId cq = kNoNode;
  int32_t priority = 0;
  double queue_ts = 0;     // queue-order timestamp (creation, or eviction after a timeout)
  double reserved_s = 0;   // when QuotaReserved became true
  bool evicted = false;    // preemption issued; still holds quota until it stops (spec §8)
  uint32_t lq = 0;         // LocalQueue index (admission fair sharing orders victims by its usage)
  Usage usage;
};

// Slot pool with per-CQ membership lists; erase is O(1) (swap within the CQ list).
class AdmittedSet {
 public:
  void reset(int nodes) {
    slots_.clear();
    free_.clear();
    by_cq_.assign(nodes, {});
    pos_.clear();
    live_.clear();
  }
  uint32_t insert(const Admitted& a);
  void erase(uint32_t slot);
  const Admitted& operator[](uint32_t s) const { return slots_[s]; }
  Admitted& operator[](uint32_t s) { return slots_[s]; }
  const std::vector<uint32_t>& in_cq(NodeId cq) const { return by_cq_[cq]; }
  bool live(uint32_t s) const { return s < live_.size() && live_[s]; }

 private:
  std::vector<Admitted> slots_;
  std::vector<uint32_t> free_, pos_;
  std::vector<uint8_t> live_;
  std::vector<std::vector<uint32_t>> by_cq_;
};

enum class Reason : uint8_t { InClusterQueue, InCohortReclamation, InCohortReclaimWhileBorrowing, InCohortFairSharing };
const char* to_string(Reason r);

struct Target {
  uint32_t slot;
  Reason reason;
};

// The incoming workload for preemption: its CQ, ordering keys and assigned usage.
struct Preemptor {
  NodeId cq = kNoNode;
  int32_t priority = 0;
  double queue_ts = 0;
  uint32_t uid = 0;
  Usage usage;            // assignment usage (all frs)
  FrMask need = 0;        // frs whose assignment mode is Preempt
};

bool satisfies_policy(Policy p, const Preemptor& in, const Admitted& cand);

// Preemption target search (PR/preemption.go getTargets with the classical strategy). Mutates
// the tree only temporarily: on return the tree's usage is as it was. Owns reusable buffers.
// Dominant resource share of node n (spec §7 DRS), with `extra` usage added to n: integer
// per-mille share divided by the weight; 0 when not borrowing; kInfShare for weight 0.
inline constexpr int64_t kInfShare = std::numeric_limits<int64_t>::max();
int64_t dominant_resource_share(const Model& m, const QuotaTree& t, NodeId n, const Usage* extra = nullptr);

class Preemption {
 public:
  // Admission fair sharing (spec §6 CandidatesOrdering): LocalQueue usage scores by LQ index;
  // candidates of one AFS ClusterQueue from the higher-usage LocalQueue go first. Null = off.
  const std::vector<double>* lq_score = nullptr;
  // Dispatches to fair_targets when fair sharing is on, else classical_targets.
  void targets(const Model& m, QuotaTree& tree, const AdmittedSet& adm, const Preemptor& in, std::vector<Target>& out) {
    if (m.fair_sharing) fair_targets(m, tree, adm, in, out);
    else classical_targets(m, tree, adm, in, out);
  }
  // Fair-sharing preemption (PR/preemption.go fairPreemptions, spec §7).
  void fair_targets(const Model& m, QuotaTree& tree, const AdmittedSet& adm, const Preemptor& in,
                    std::vector<Target>& out);
  // Fills `out` with the targets (empty: no way to fit). `now` stands in for the reservation
  // time of candidates that have none yet.
  void classical_targets(const Model& m, QuotaTree& tree, const AdmittedSet& adm, const Preemptor& in,
                         std::vector<Target>& out);

 private:
  struct Cand {
    uint32_t slot;
    NodeId lca;
    uint8_t list;  // 0 hierarchical advantage, 1 priority-decided, 2 same CQ
    bool only_without_borrowing;
  };
  // CandidatesOrdering (spec §6, PR/common/ordering.go), the one place it is spelled out:
  // evicted first; candidate list; lower priority; newer reservation; uid.
  void sort_candidates(const Model& m, const AdmittedSet& adm);
  void collect_subtree(const Model& m, const QuotaTree& tree, const AdmittedSet& adm, const Preemptor& in,
                       NodeId cur, NodeId lca, NodeId skip, bool advantage);
  void classify_push(const Model& m, const AdmittedSet& adm, const Preemptor& in, uint32_t slot, NodeId lca,
                     bool advantage);
  bool run(const Model& m, QuotaTree& tree, const AdmittedSet& adm, const Preemptor& in, bool borrow,
           std::vector<Target>& out);
  NodeId pick_target(const Model& m, const QuotaTree& tree, const AdmittedSet& adm, const Preemptor& in, NodeId node,
                     const std::vector<std::vector<uint32_t>>& queues) const;
  bool subtree_has(const QuotaTree& tree, NodeId node, const std::vector<std::vector<uint32_t>>& queues) const;
  std::vector<Cand> cands_;
  std::vector<std::vector<uint32_t>> fs_queues_, fs_retry_;  // by CQ node: candidate slots, in order
  std::vector<uint32_t> fs_cursor_;
  std::vector<Qty> remaining_, remaining2_;
};

// workloadFitsInQuota: does `u` (remaining per fr) fit under the node's subtree quota, and
// what remains above its guaranteed quota for the parent.
bool fits_in_quota(const QuotaTree& t, NodeId n, const Usage& u, Usage* remaining);

// Flavor assignment (spec §5).
enum class Mode : uint8_t { NoFit = 0, NoCandidates = 1, Preempt = 2, Reclaim = 3, Fit = 4 };
const char* to_string(Mode m);

struct Assignment {
  Mode mode = Mode::NoFit;  // worst over resource groups
  int borrow = 0;           // max borrow level
  Usage usage;
  FrMask need_preemption = 0;
  bool representative_fit() const { return mode == Mode::Fit; }
  bool representative_preempt() const { return mode != Mode::NoFit && mode != Mode::Fit; }
};

class FlavorAssigner {
 public:
  // Assigns flavors for `req` in CQ `in.cq` against the tree's current usage; `in` carries the
  // ordering keys used by the preemption oracle. `assumed` (a workload's earlier PodSets'
  // assigned usage) is added to the request in every flavor's check, as upstream's
  // fitsResourceQuota(assumedUsage + requestUsage): a flavor those would overflow is skipped
  // for the next one. The result's usage is `req`'s alone.
  Assignment assign(const Model& m, QuotaTree& tree, const AdmittedSet& adm, Preemption& pre,
                    const Preemptor& in, const Request& req, const Usage* assumed = nullptr);

 private:
  Mode fits_resource_quota(const Model& m, QuotaTree& tree, const AdmittedSet& adm, Preemption& pre,
                           const Preemptor& in, FrId f, Qty val, int& level);
  std::vector<Target> oracle_targets_;
};

}  // namespace floorsim::kueue
