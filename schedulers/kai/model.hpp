#pragma once
// The KAI-like model's static queue tree and its pure decision functions (spec
// kueue-kai-model.md §10): fair-share division of the cluster among queues (PP/resource_division),
// queue order (PP/queue_order), and victim selection for reclaim (PP/reclaimable) and preempt
// (actions/preempt). Nothing here knows about the simulator's engine: quantities are integer
// milli-GPUs, jobs are plain records, and "does it fit" is a callback.
//
// Resources. GPUs (milli-GPUs), CPU (millicores) and memory (MB = 10^6 bytes), KAI's units
// (docs/queues). Every resource is divided by the same rule; GPU fields are the QueueSpec's
// own, cpu and memory sit in QueueSpec::cpu / ::memory.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace floorsim::kai {

using Milli = int64_t;                    // GPU quantity in 1/1000 GPU (fractions are exact)
inline constexpr Milli kUnlimited = -1;   // quota -1 (unlimited deserved) / limit -1 (no limit)
inline constexpr int kNoQueue = -1;
inline constexpr int32_t kDefaultQueuePriority = 100;  // queue_types.go
inline constexpr int32_t kPreemptibleBelow = 100;      // v2alpha2/podgroup_types.go: p < 100 = preemptible

enum Resource : int { kGpu = 0, kCpu = 1, kMemory = 2, kResources = 3 };
inline constexpr const char* kResourceNames[kResources] = {"gpu", "cpu", "memory"};

struct ResQuota {  // one resource of a Queue's spec.resources
  Milli quota = 0;
  Milli limit = kUnlimited;
  double weight = 1;
};

struct QueueSpec {
  std::string name;
  int parent = kNoQueue;
  int32_t priority = kDefaultQueuePriority;  // allocated first, reclaimed last
  Milli quota = 0;                          // deserved (kUnlimited = whatever is requested)
  Milli limit = kUnlimited;                 // hard cap on allocation
  double weight = 1;                        // overQuotaWeight
  double preempt_min_runtime_s = -1;        // spec.preemptMinRuntime (-1: not set, inherit)
  double reclaim_min_runtime_s = -1;        // spec.reclaimMinRuntime (-1: not set, inherit)
  ResQuota cpu, memory;                     // millicores, MB
};
// Quota, limit and weight of resource r.
inline ResQuota res_quota(const QueueSpec& q, int r) {
  return r == kGpu ? ResQuota{q.quota, q.limit, q.weight} : r == kCpu ? q.cpu : q.memory;
}

// Queues in declaration order; only leaves take jobs (spec §10 Queue).
class QueueTree {
 public:
  int add(QueueSpec q);  // parent resolved later by name through set_parent
  void set_parent(int q, int parent) { q_[q].parent = parent; }
  // Builds children lists and a top-down order; false on a parent cycle.
  bool finalize();
  int size() const { return static_cast<int>(q_.size()); }
  const QueueSpec& operator[](int i) const { return q_[i]; }
  QueueSpec& operator[](int i) { return q_[i]; }
  const std::vector<int>& children(int i) const { return children_[i]; }
  const std::vector<int>& roots() const { return roots_; }
  const std::vector<int>& top_down() const { return order_; }  // parents before children
  bool leaf(int i) const { return children_[i].empty(); }
  int find(const std::string& name) const;
  // The ancestor of `a` (or `a` itself) whose parent is the lowest common ancestor of a and b
  // (kNoQueue above the roots): the queues compared at the "divergence level" (PP/reclaimable).
  std::pair<int, int> divergence(int a, int b) const;

 private:
  std::vector<QueueSpec> q_;
  std::vector<std::vector<int>> children_;
  std::vector<int> roots_, order_, depth_;
};

// --- Fair share (PP/resource_division setResourcesShare; proportion.go setFairShareForQueues) ---

struct ShareInput {
  Milli deserved = 0;   // kUnlimited allowed
  Milli request = 0;    // allocated + pending of the queue's subtree
  Milli limit = kUnlimited;
  double weight = 1;    // overQuotaWeight
  int32_t priority = kDefaultQueuePriority;
  double usage = 0;     // historical usage / cluster capacity over the window (time-aware fairness; 0 = off)
};

// Divides `total` among siblings: 1) each gets min(deserved, request, limit); 2) what remains
// goes by queue priority, highest first; within one priority in rounds proportional to
// max(0, w + k(w - usage)) with w the weight normalised over the queues still requesting,
// usage the queue's normalised historical usage and k = kValue (1) (resource_division.go
// calcShareWeights): each round's
// amounts are floored to whole `unit`s and capped at what the queue still requests; when a
// round gives nothing (the remainder is below one unit per queue), one unit (or less, if that
// is all that is wanted) goes to each queue, largest effective weight first. Weight 0 gets
// nothing above step 1. Writes fair shares into `out` (same size as `in`).
// Reusable buffers so that a pass does not allocate once warmed up.
struct DivideScratch {
  std::vector<Milli> want, out;
  std::vector<int32_t> prios;
  std::vector<size_t> live, ord;
  std::vector<double> eff;
  std::vector<ShareInput> in;
};
void divide(Milli total, std::span<const ShareInput> in, Milli unit, std::span<Milli> out, DivideScratch& scratch,
            double k_value = 1.0);
inline void divide(Milli total, std::span<const ShareInput> in, Milli unit, std::span<Milli> out) {
  DivideScratch s;
  divide(total, in, unit, out, s);
}

// Whole tree: the roots split `capacity`, then every queue's fair share is split among its
// children by the same rule (level by level). `leaf_request` is per queue (non-leaves ignored);
// subtree requests are summed here. `fair` is resized to the tree. `usage` (per queue, its
// subtree's normalised historical usage; empty = none) and `k_value` weigh the over-quota rounds.
void fair_shares(const QueueTree& t, Milli capacity, std::span<const Milli> leaf_request, Milli unit,
                 std::vector<Milli>& fair, std::vector<Milli>& subtree_request, DivideScratch& scratch,
                 std::span<const double> usage = {}, double k_value = 1.0, int resource = kGpu);
inline void fair_shares(const QueueTree& t, Milli capacity, std::span<const Milli> leaf_request, Milli unit,
                        std::vector<Milli>& fair, std::vector<Milli>& subtree_request) {
  DivideScratch s;
  fair_shares(t, capacity, leaf_request, unit, fair, subtree_request, s);
}

// --- Queue order (PP/queue_order) ---

struct QueueState {
  Milli allocated = 0;  // subtree allocation
  Milli fair = 0;       // fair share
  Milli deserved = 0;
  int32_t priority = kDefaultQueuePriority;
  int index = 0;        // declaration order stands in for creation time
  struct Extra {        // cpu, memory: the queue's allocation and fair share, the head job's request
    Milli allocated = 0, fair = 0, req = 0;
  };
  Extra extra[2] = {};
};
// Returns true if queue a is served before b for a job of `job_req` (each side its own head):
// 1) the queue that stays within its fair share with the job first; 2) a queue below its
// deserved quota (starved) first; 3) higher queue priority; 4) smaller dominant share, the
// largest allocated / fair share over gpu, cpu and memory (queue_order.go
// prioritizeSmallerResourceShareWithoutTask, GetDominantResourceShare); 5) declaration order.
// Step 1 holds in every resource; step 2 is judged on GPUs.
bool queue_before(const QueueState& a, Milli a_req, const QueueState& b, Milli b_req);

// --- Jobs as the actions see them ---

struct RunningJob {
  uint32_t key = 0;      // caller's id
  int queue = kNoQueue;  // leaf queue
  int32_t priority = 0;
  bool preemptible = true;
  double start_s = 0;
  Milli req = 0;         // charged against quota (gpu-fraction or gpu-memory share, or gpus x 1000)
};

struct Claimant {        // a pending job looking for victims
  int queue = kNoQueue;
  int32_t priority = 0;
  bool preemptible = true;
  Milli req = 0;
};

// Preemptibility (spec §10): the podgroup's explicit setting, else priority < 100.
inline bool preemptible_by_priority(int32_t priority) { return priority < kPreemptibleBelow; }

// Limit check up the tree (capacity_policy isOverLimit): alloc + req <= limit at the leaf and
// every ancestor with a limit. `alloc` is the subtree allocation per queue.
bool within_limits(const QueueTree& t, std::span<const Milli> alloc, int leaf, Milli req, int resource = kGpu);
// Non-preemptible jobs stay within deserved quota (capacity_policy, non-preemptible over quota):
// `nonpreempt_alloc` is the subtree allocation of non-preemptible jobs per queue.
bool nonpreemptible_within_quota(const QueueTree& t, std::span<const Milli> nonpreempt_alloc, int leaf, Milli req,
                                 int resource = kGpu);

// Reclaim settings (PP/reclaimable).
struct ReclaimConfig {
  double reclaimer_utilization_multiplier = 1.0;  // >= 1
};

// Can `in` reclaim at all (PP/reclaimable CanReclaimResources)? A non-preemptible reclaimer
// stays within deserved; otherwise the reclaimer queue and every ancestor stay within fair
// share with the job.
bool may_reclaim(const QueueTree& t, std::span<const Milli> alloc, std::span<const Milli> fair,
                 std::span<const Milli> nonpreempt_alloc, const Claimant& in);

// Is taking `removed` (per queue, subtree amounts already taken as victims, this one included)
// from victim queue `victim_leaf` valid for reclaimer leaf `reclaimer`? At the divergence level
// (children of the LCA: R' and V') the victim side passes MaintainFairShare (V' keeps at least
// min(limit, max(deserved, fair))) or GuaranteeDeservedQuota (R' with the job within deserved,
// V' still above deserved before this removal); and the reclaimer's saturation
// (alloc + req) / fair, when above 1, times the multiplier stays below V's after the removal.
bool reclaim_victim_ok(const QueueTree& t, std::span<const Milli> alloc, std::span<const Milli> fair,
                       std::span<const Milli> removed, const Claimant& in, int victim_leaf, Milli victim_req,
                       const ReclaimConfig& cfg);

// The same over every resource jobs ask (gpu, cpu, memory), for sessions where some job asks
// cpu or memory (PP/reclaimable/reclaimable.go and strategies.go compare the three together):
// a resource is involved when the reclaimer or the victim asks it. The reclaimer's path below
// the LCA stays within fair share in every resource; V' keeps at least
// min(limit, max(deserved, fair)) in every involved resource, or R' with the job stays within
// deserved in every involved resource while V' was above deserved in one; and per involved
// resource a reclaimer saturation above 1, times the multiplier, stays below V's where V has a
// fair share (isFairShareSaturationLowerPerResource).
struct ResState {
  std::span<const Milli> alloc, fair, removed;  // by queue
};
bool reclaim_victim_ok_res(const QueueTree& t, const ResState (&res)[kResources], const Claimant& in,
                           const Milli (&in_req)[kResources], int victim_leaf, const Milli (&victim_req)[kResources],
                           const ReclaimConfig& cfg);

// Victim search shared by reclaim and preempt: walks `candidates` in order, taking each that
// `admissible(candidate, removed_so_far)` allows, until `fits(chosen)` is true; then drops,
// in reverse order (all but the last taken), every victim whose return still leaves the claimant
// fitting (the minimal set, as kueue fillBackWorkloads). Returns false (chosen empty) when no
// prefix fits. `removed` is per queue (subtree sums of chosen victims) for the admissibility test.
using FitsFn = std::function<bool(std::span<const uint32_t> chosen)>;
using AdmissibleFn = std::function<bool(const RunningJob& cand, std::span<const Milli> removed)>;
bool select_victims(const QueueTree& t, std::span<const RunningJob> candidates, const AdmissibleFn& admissible,
                    const FitsFn& fits, std::vector<uint32_t>& chosen);

// Reclaim candidates (actions/reclaim): running preemptible jobs of leaves outside the
// reclaimer's own subtree path, ordered by victim queue (the divergence-level queue most over
// its fair share first, then lower queue priority), then lower job priority, then newest.
void reclaim_candidates(const QueueTree& t, std::span<const Milli> alloc, std::span<const Milli> fair,
                        std::span<const RunningJob> running, const Claimant& in, std::vector<RunningJob>& out);
// Preempt candidates (actions/preempt): same leaf queue only, preemptible, strictly lower
// priority; lowest priority first, then newest.
void preempt_candidates(std::span<const RunningJob> running, const Claimant& in, std::vector<RunningJob>& out);

// The minruntime plugin (pkg/scheduler/plugins/minruntime, resolver.go; docs/plugins/minruntime.md):
// a running job younger than its minimum runtime is not a victim. Preempt (same queue): the
// victim's queue's preemptMinRuntime, else its nearest ancestor's, else `dflt`. Reclaim
// (another queue), resolve method "lca": under different top-level queues, the victim's
// top-level queue's reclaimMinRuntime (else `dflt`); under one, the first value found from the
// victim's ancestor just below the lowest common ancestor upwards; method "queue": as preempt,
// with reclaimMinRuntime.
double preempt_min_runtime(const QueueTree& t, int victim_queue, double dflt);
double reclaim_min_runtime(const QueueTree& t, int claimant_queue, int victim_queue, double dflt, bool lca);

}  // namespace floorsim::kai
