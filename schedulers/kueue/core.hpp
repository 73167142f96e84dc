#pragma once
// Kueue's queueing and admission cycle (spec kueue §3, §4) over the pure model: per-CQ heaps
// with BestEffortFIFO / StrictFIFO requeueing, the inadmissible set, sticky preemptors, and
// the cycle itself (nominate heads against one snapshot, order them, process sequentially on
// the mutating snapshot). No engine types: the simulator adapter drives it with keys (JobIdx)
// and a placement callback, and the conformance tests drive it directly.
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include <unordered_map>

#include "schedulers/kueue/model.hpp"
#include "schedulers/kueue/podsets.hpp"

namespace floorsim::kueue {

struct CoreSettings {
  // Legacy rule (kueue before 3a075dcf58, v0.5): at most one admission per cohort per cycle
  // when the workload borrows. Default: the modern sequential rule (spec §4).
  bool legacy_one_borrower_per_cohort = false;
  bool priority_sorting_within_cohort = true;  // gate PrioritySortingWithinCohort (spec §4.3)
  // Admission fair sharing (spec §7; config admissionFairSharing + gate AdmissionFairSharing):
  // in ClusterQueues with admissionMode UsageBasedAdmissionFairSharing, heads are picked by
  // their LocalQueue's usage sum_r w_r (consumed_r + penalty_r) / lqWeight, lowest first.
  bool afs = false;
  double afs_half_life_s = 604800;  // usageHalfLifeTime
  double afs_sampling_s = 300;      // usageSamplingInterval
  std::array<double, kMaxRes> afs_weights{1, 1, 1, 1, 1, 1, 1, 1};  // resourceWeights by resource kind
  bool partial_admission = true;  // feature gate PartialAdmission (beta, on by default)
};

enum class Outcome : uint8_t {
  Admitted,       // quota reserved (and placed)
  PreemptIssued,  // preemptions issued for it; waits for the victims to stop
  NoFit,          // does not fit and cannot preempt
  NoCandidates,   // would need preemption but no candidate exists (capacity reserved unless reclaim=Any)
  Skipped,        // no longer fits after earlier commits, or overlapping targets: retried at once
  NoNodes,        // fits in quota but the cluster cannot place it (the ResourceQuota caveat)
  Inactive,       // its ClusterQueue is inactive (missing cohort, cycle, ...)
};
const char* to_string(Outcome o);

struct CycleRecord {
  uint32_t key;
  Outcome outcome;
  Mode mode;
  int borrow;
};

class Core {
 public:
  Core(Model model, CoreSettings settings, size_t max_keys);

  const Model& model() const { return m_; }
  // During a PlaceFn call: the flavor assignment of the workload being placed.
  const Usage& placing_usage() const { return placing_; }
  // During a PlaceFn call: the pods admitted per PodSet (empty: all of them) of a workload
  // with PodSets (set_podsets).
  const std::vector<int32_t>& placing_counts() const { return placing_counts_; }
  // The workload's PodSets (before enqueue): then it is assigned flavors PodSet by PodSet and
  // may be partially admitted (core_podsets.cpp). Its Request stays the full total.
  void set_podsets(uint32_t key, PodSets ps) { podsets_[key] = std::move(ps); }
  QuotaTree& tree() { return m_.tree; }
  const AdmittedSet& admitted() const { return adm_; }

  // A workload enters its CQ's queue (submission, or requeue after eviction with `queue_ts`
  // kept: spec §8, no backoff and the original timestamp).
  void enqueue(uint32_t key, NodeId cq, int32_t priority, double queue_ts, uint32_t uid, const Request& req,
               uint32_t lq = 0);
  // LocalQueue fairSharing.weight by LocalQueue index (admission fair sharing); LQ 0 by default.
  void set_local_queue_weights(std::vector<double> weights);
  // The LocalQueue's admission-fair-sharing usage at `now` (decayed; spec §7).
  double lq_usage(uint32_t lq, double now);
  // Records a workload as already admitted with usage `u` (initial state, tests).
  void assume_admitted(uint32_t key, NodeId cq, int32_t priority, double queue_ts, uint32_t uid, const Usage& u,
                       double reserved_s);
  // Drops a pending workload from every queue (deleted / cancelled).
  void forget(uint32_t key);
  // An admitted workload stopped (finished, or an evicted one stopped): its quota is released
  // and the inadmissible workloads of its cohort tree are retried (spec §3).
  void release(uint32_t key, double now = -1);
  // Retries every workload waiting for nodes (called when GPUs are freed).
  void retry_waiting_for_nodes();
  bool is_admitted(uint32_t key) const { return slot_[key] != kNoSlot; }
  bool is_evicted(uint32_t key) const { return slot_[key] != kNoSlot && adm_[slot_[key]].evicted; }
  NodeId cq_of(uint32_t key) const { return info_[key].cq; }

  // Placement hook: returns false when the workload cannot be placed now.
  using PlaceFn = std::function<bool(uint32_t key)>;
  // Evictions the cycle issued: (victim key, preemptor key, reason).
  struct Eviction {
    uint32_t victim, by;
    Reason reason;
  };

  // One scheduling cycle at time `now`. Returns false if there were no heads.
  bool cycle(double now, const PlaceFn& place, std::vector<CycleRecord>& records, std::vector<Eviction>& evictions);
  // Cycles until no CQ has a head that can still make progress at this instant.
  void pass(double now, const PlaceFn& place, std::vector<CycleRecord>& records, std::vector<Eviction>& evictions);

  // Policy change (issue 9, schedulers/kueue/core_policy.cpp): sets nominalQuota (which 0),
  // borrowingLimit (1) or lendingLimit (2) of (cq, fr) to `value` (kNoLimit = nil), recomputes
  // the quota tree and the cohorts' usage, and retries the inadmissible workloads of its cohort
  // tree, as a ClusterQueue update does. Returns "" or why it was refused; `before` gets the
  // old value.
  std::string set_quota(NodeId cq, FrId fr, int which, Qty value, Qty& before);

  size_t pending_in(NodeId cq) const { return heap_[cq].size() + inadmissible_[cq].size() + (sticky_[cq] != kNoKey); }

 private:
  static constexpr uint32_t kNoSlot = 0xffffffffu;
  static constexpr uint32_t kNoKey = 0xffffffffu;
  enum class Where : uint8_t { None, Heap, Inadmissible, Sticky, Admitted, WaitingNodes, Head };
  struct Info {
    NodeId cq = kNoNode;
    int32_t priority = 0;
    double queue_ts = 0;
    uint32_t uid = 0;
    Request req{};
    uint32_t lq = 0;
    Where where = Where::None;
  };
  // Admission fair sharing state of one LocalQueue: usage decays at every sampling instant
  // k * samplingInterval (consumed <- consumed (1 - a) + usage a, a = 1 - 0.5^(interval /
  // halfLife)); each admission adds a penalty req * a until the next sample.
  struct Lq {
    double weight = 1;
    int64_t sample = 0;  // index of the last sampling instant applied
    std::array<double, kMaxRes> usage{}, consumed{}, penalty{};
  };
  void afs_advance(Lq& q, double now);
  void afs_charge(uint32_t key, double now, int sign);
  struct Entry {
    uint32_t key;
    Assignment a;
    uint32_t t_off = 0, t_cnt = 0;
    uint32_t c_off = 0, c_cnt = 0;  // partial admission: counts per PodSet in cpool_ (0: full)
    Outcome outcome = Outcome::Inactive;
    bool done = false;
  };
  // The steps of cycle() (pkg/scheduler/scheduler.go schedule()).
  bool take_heads(double now);
  void nominate(Entry& e);
  void nominate_podsets(Entry& e, Preemptor in, const PodSets& ps);  // core_podsets.cpp
  bool classical_before(const Entry& x, const Entry& y) const;
  void process_entries(const PlaceFn& place, std::vector<CycleRecord>& records);
  Outcome process_entry(const Entry& e, const PlaceFn& place);
  void reserve_capacity(const Entry& e);
  bool fits_after_claims(const Entry& e);
  bool is_claimed(uint32_t slot) const;
  void claim(uint32_t slot);
  bool commit_entries(double now, std::vector<Eviction>& evictions);
  void admit(const Entry& e, double now);
  bool issue_evictions(const Entry& e, std::vector<Eviction>& evictions);
  // Fair-sharing admission (spec §7 runTournament): the next entry to process, recomputed on
  // the mutating snapshot; -1 when none is left.
  int next_fair_entry();
  int tournament(NodeId node);
  bool fair_before(const Entry& x, const Entry& y, NodeId at) const;
  bool heap_less(uint32_t a, uint32_t b) const;  // true if a is served after b
  void push_heap(uint32_t key);
  uint32_t pop_heap(NodeId cq, double now);
  void to_inadmissible(uint32_t key);
  void retry_inadmissible(NodeId root);
  Preemptor preemptor_of(uint32_t key) const;

  Model m_;
  CoreSettings s_;
  AdmittedSet adm_;
  Preemption pre_;
  FlavorAssigner fa_;
  std::vector<Info> info_;
  std::vector<uint32_t> slot_;  // by key: admitted slot
  std::vector<std::vector<uint32_t>> heap_, inadmissible_;  // by CQ node
  std::vector<uint32_t> sticky_;  // by CQ node
  std::vector<uint8_t> blocked_;  // by CQ node, for the current pass
  std::vector<uint32_t> waiting_nodes_;
  std::vector<NodeId> cq_nodes_;
  // Cycle scratch, reused.
  std::vector<Entry> entries_;
  std::vector<Target> tpool_, tbuf_;
  std::vector<Qty> saved_usage_;
  std::vector<uint8_t> claimed_;  // by admitted slot
  std::vector<uint32_t> claimed_list_;
  std::vector<uint8_t> root_assigned_;  // by node (legacy rule)
  // Exact memo of failed nominations: at the same state version, a head with the same CQ,
  // request and priority (and timestamp, where the policy reads it) gets the same NoFit /
  // NoCandidates result, so the preemption search is not repeated for a backlog of alike
  // workloads (spec §3: every quota-freeing event retries the whole inadmissible set).
  struct Memo {
    uint64_t version = ~uint64_t{0};
    Request req{};
    int32_t priority = 0;
    double ts = 0;
    Assignment a;
  };
  static constexpr int kMemoWays = 8;
  std::vector<Memo> memo_;  // kMemoWays per CQ node
  std::vector<uint8_t> memo_next_;
  uint64_t version_ = 0;
  Usage placing_;
  std::vector<int32_t> placing_counts_, cpool_;
  std::unordered_map<uint32_t, PodSets> podsets_;
  std::vector<Lq> lqs_;
  std::vector<double> lq_scores_;  // scratch for the preemption candidate order
  double now_ = 0;
};

}  // namespace floorsim::kueue
