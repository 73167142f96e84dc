#pragma once
// The one interface between the engine and every scheduler model.
//
// A scheduler sees a read-only Snapshot and writes Decisions; it never mutates engine state.
// Decisions are applied in the order written: preemptions free GPUs at once (or after their
// grace time), then each start is checked against the free GPUs (the engine owns allocation).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/job_state.hpp"
#include "sim/core/policy_change.hpp"
#include "sim/core/types.hpp"

namespace floorsim {

struct ClusterView {
  std::span<const int32_t> capacity_gpus;  // per node
  std::span<const int32_t> free_gpus;      // per node; 0 on a node that is down
  std::span<const uint8_t> node_up;        // 1 = up
  std::span<const uint32_t> node_leaf;     // leaf switch (or block) of each node
  int64_t total_free_gpus = 0;             // over up nodes
  int64_t total_up_gpus = 0;
  int32_t max_node_gpus = 0;               // largest node capacity (placement hint)
  // GPU sharing (only when the model packs fractions, Scheduler::packs_gpu_fractions, and some
  // job has gpu_milli; empty otherwise): milli-GPUs held by packed jobs per GPU slot, slots
  // numbered node-major from gpu_first[node]. A slot with any share counts as one used GPU.
  std::span<const int32_t> gpu_used_milli;
  std::span<const uint32_t> gpu_first;
  // CPUs and memory (MiB) per node, only where the cluster gives them (empty otherwise; a 0
  // capacity on one node: not given there, never binds). Free counts are 0 on a node that is down.
  std::span<const int32_t> capacity_cpus, free_cpus;
  std::span<const int32_t> capacity_mem_mib, free_mem_mib;
  size_t nodes() const { return capacity_gpus.size(); }
};

struct Snapshot {
  SimTime now = 0;
  std::span<const JobSpec> jobs;           // every job of the workload, by JobIdx
  std::span<const JobRun> runs;            // engine state, by JobIdx
  std::span<const JobIdx> pending;         // queued jobs in (queued_s, id) order; check eligible_s
  std::span<const JobIdx> running;         // running jobs in start order
  std::span<const NodeShare> allocations;  // runs[j].alloc_offset/alloc_count index this
  ClusterView cluster;
  const StringTable* strings = nullptr;

  std::span<const NodeShare> allocation_of(JobIdx j) const {
    return allocations.subspan(runs[j].alloc_offset, runs[j].alloc_count);
  }
  bool eligible(JobIdx j) const { return runs[j].eligible_s <= now; }
  // CPUs allocated to a running job (0 where the cluster gives no CPUs): for CPU billing.
  int64_t alloc_cpus(JobIdx j) const {
    int64_t c = 0;
    for (const auto& s : allocation_of(j)) c += s.cpus;
    return c;
  }
};

enum class PreemptMode : uint8_t {
  Requeue,  // back to the queue with the same id (Slurm REQUEUE, Kueue eviction)
  Cancel,   // ends as Cancelled
  Suspend,  // keeps its place, frees GPUs, resumes when started again (Slurm SUSPEND,GANG)
};

// A reusable buffer of decisions: cleared by the engine before each pass, so no pass allocates
// once it has warmed up.
class Decisions {
 public:
  enum class Kind : uint8_t { Start, Preempt };
  struct Item {
    Kind kind;
    PreemptMode mode = PreemptMode::Requeue;
    JobIdx job = kNoJob;
    JobIdx by = kNoJob;          // preemptor, for accounting (cascades)
    uint32_t share_offset = 0;   // into shares() for starts
    uint32_t share_count = 0;
    SimTime grace_s = 0;         // preemption takes effect after this delay
    SimTime limit_override_s = -1;  // start with another time limit (Slurm NoReserve 1-min test)
    int32_t gpu = -1;            // packed start: GPU index on the node (-1 = whole GPUs)
    int32_t admitted_gpus = -1;  // partial start: GPUs the job runs on, fewer than it asked (-1 = all)
    double work_scale = 1;       // partial start: wall seconds per second of the job's work
  };

  void start(JobIdx job, std::span<const NodeShare> placement) {
    Item it{Kind::Start};
    it.job = job;
    it.share_offset = static_cast<uint32_t>(shares_.size());
    it.share_count = static_cast<uint32_t>(placement.size());
    shares_.insert(shares_.end(), placement.begin(), placement.end());
    items_.push_back(it);
  }
  // A job started on fewer GPUs than it asked for (Kueue partial admission): `placement` holds
  // `admitted_gpus` (1 .. the job's gpus) and the job runs `work_scale` wall seconds per second
  // of its work (1: runtime unchanged). The model decides both; the engine only applies them.
  void start_partial(JobIdx job, std::span<const NodeShare> placement, int32_t admitted_gpus, double work_scale) {
    start(job, placement);
    items_.back().admitted_gpus = admitted_gpus;
    items_.back().work_scale = work_scale;
  }
  // A fractional job (gpu_milli > 0) packed onto GPU `gpu` of `node`, shared with other packed
  // jobs up to 1000 milli (only for models whose packs_gpu_fractions() is true).
  void start_packed(JobIdx job, NodeIdx node, int32_t gpu) {
    const NodeShare one{node, 1};
    start(job, std::span<const NodeShare>(&one, 1));
    items_.back().gpu = gpu;
  }
  void preempt(JobIdx victim, PreemptMode mode, JobIdx by, SimTime grace_s = 0) {
    Item it{Kind::Preempt, mode, victim, by};
    it.grace_s = grace_s;
    items_.push_back(it);
  }
  // Records why a job is still pending (scheduler-specific code, named by reason_name()).
  void set_reason(JobIdx job, uint16_t code) { reasons_.push_back({job, code}); }
  // Ask for another pass at time t (an interval timer, a reservation boundary, a begin time).
  void wake_at(SimTime t) {
    if (t < wake_s_) wake_s_ = t;
  }

  void clear() {
    items_.clear();
    shares_.clear();
    reasons_.clear();
    wake_s_ = kNever;
  }
  std::span<const Item> items() const { return items_; }
  std::span<const NodeShare> shares(const Item& it) const {
    return std::span<const NodeShare>(shares_).subspan(it.share_offset, it.share_count);
  }
  struct Reason {
    JobIdx job;
    uint16_t code;
  };
  std::span<const Reason> reasons() const { return reasons_; }
  SimTime wake_s() const { return wake_s_; }

 private:
  std::vector<Item> items_;
  std::vector<NodeShare> shares_;
  std::vector<Reason> reasons_;
  SimTime wake_s_ = kNever;
};

// What happened to a job, told to the scheduler for its own accounting (fair-share usage,
// quota, reservations). Delivered before the next pass.
struct JobEvent {
  enum class Kind : uint8_t { Submitted, Started, Ended, Requeued, Preempted, Suspended };
  Kind kind;
  JobIdx job;
  SimTime time_s;
  JobState state;  // for Ended: the final state
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string_view name() const = 0;
  // One scheduling pass. `out` is empty on entry.
  virtual void schedule(const Snapshot& view, Decisions& out) = 0;
  virtual void on_job_event(const JobEvent& ev, const Snapshot& view) {}
  // Models that keep no accounting return false, and the engine skips on_job_event entirely.
  virtual bool wants_job_events() const { return true; }
  // Models that pack fractional jobs (gpu_milli) onto shared GPUs return true; then every such
  // job must be started with Decisions::start_packed and is charged by its share. Otherwise a
  // fractional job holds a whole GPU, as before.
  virtual bool packs_gpu_fractions() const { return false; }
  // Name of a pending-reason code given through Decisions::set_reason (0 = "None").
  virtual std::string_view reason_name(uint16_t code) const { return code == 0 ? "None" : "Other"; }
  // Model-specific jobs.csv columns, written after the standard ones.
  virtual std::vector<std::string> extra_columns() const { return {}; }
  virtual void extra_values(JobIdx job, std::vector<std::string>& out) const {}
  // Model-specific figures, written to metrics.json under "scheduler".
  virtual nlohmann::json report(const Snapshot& final_view) const { return nlohmann::json::object(); }
  // Policy change (issue 9), delivered at its time before the next pass: apply it with its real
  // effect at once (the next pass sees it) or reject it with a reason. It may write
  // Preempt(..., Cancel) items into `out` (association deletion cancels running and pending
  // jobs); the engine applies them at once. A model that does not support a kind must reject it
  // with a reason: never ignore a change silently. The default rejects every change.
  virtual ChangeOutcome on_policy_change(const PolicyChange& c, const Snapshot& view, Decisions& out) {
    return ChangeOutcome::rejected(std::string("model ") + std::string(name()) + " does not support " +
                                   std::string(to_string(c.kind)) + " changes");
  }
  // The job classes a change could affect (governance scope); unknown by default.
  virtual ChangeScope change_scope(const PolicyChange& c, const Snapshot& view) const { return {}; }
};

}  // namespace floorsim
