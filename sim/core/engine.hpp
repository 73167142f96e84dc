#pragma once
// The discrete-event engine: owns time, the job lifecycle and GPU allocation; asks a Scheduler
// for decisions and applies them. It holds no policy.
//
// Ordering of simultaneous events (documented, stable): at one timestamp the engine handles
//   1. job ends (completion or time-limit kill), in the order they were scheduled,
//   2. delayed preemptions (grace time expired),
//   3. node failures and recoveries, in scenario order,
//   4. policy changes, in scenario order (issue 9): each goes through the ChangeGate (governance
//      review), then to Scheduler::on_policy_change; jobs it cancels are cancelled at once, so
//      the pass below already sees the new policy, and so do jobs submitted at the same time,
//   5. submissions, in (submit_s, job id) order,
//   6. scheduler wake-ups,
// then runs ONE scheduler pass, applies its decisions in order, and records metrics. If the
// decisions created events at the same timestamp (zero-length jobs), or the model asked for a
// wake-up at the current time, the loop repeats at it.
//
// No hang, ever: every pass goes through the progress watchdog (watchdog.hpp). More than
// 10,000 consecutive passes at one instant with no state change (no submission, start, end,
// preemption, requeue, node event or applied policy change), or, once nothing but wake-ups is
// left to happen, more than 1,000,000 passes or a decade of simulated time with no state
// change, end the run with NoProgressError: one line naming the model and what looped.
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <set>
#include <stdexcept>
#include <vector>

#include "sim/core/alloc_archive.hpp"
#include "sim/core/cluster.hpp"
#include "sim/core/invariants.hpp"
#include "sim/core/job_state.hpp"
#include "sim/core/metrics.hpp"
#include "sim/core/runtime_model.hpp"
#include "sim/core/scheduler_api.hpp"
#include "sim/core/types.hpp"
#include "sim/core/watchdog.hpp"

namespace floorsim {

struct EngineConfig {
  bool enforce_time_limit = true;  // kill a job at its time limit (state TIMEOUT)
  SimTime horizon_s = kNever;      // stop processing events after this time
  SimTime sched_interval_s = 0;    // periodic pass while jobs are pending (0 = event-driven only)
  SimTime requeue_delay_s = 0;     // requeued jobs may start again only after this delay
  bool check_invariants = false;   // verify allocation and state invariants after every event (invariants.hpp)
  bool keep_timeline = true;       // record per-class timeline rows
  WatchdogLimits watchdog{};       // when a run that makes no progress is stopped (watchdog.hpp)
};

// The run stopped making progress (see the watchdog above): what() is one line naming the model
// and what looped. The input drove the model there, so callers report it as bad input.
class NoProgressError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NodeEvent {
  SimTime at_s;
  NodeIdx node;
  bool up;  // false = fails (jobs on it are killed), true = recovers
};

// Decides whether a policy change may reach the scheduler (the governance review, issue 9).
// Returns Applied to let it through, AppliedUnapproved to let it through although it lacks
// sign-off (a loophole the real scheduler has), Rejected to stop it (with the reason).
class ChangeGate {
 public:
  virtual ~ChangeGate() = default;
  virtual ChangeOutcome review(const PolicyChange& c, const Scheduler& sched, const Snapshot& view) = 0;
};

// What became of one policy change (index into the list given to add_policy_changes).
struct ChangeRecord {
  uint32_t index = 0;
  SimTime at_s = 0;
  ChangeOutcome outcome;
};

struct EngineStats {
  uint64_t events = 0;       // events handled (submits, ends, node events, wakes, stops)
  uint64_t passes = 0;       // scheduler passes
  uint64_t starts = 0;
  uint64_t preemptions = 0;
  uint64_t cascade_preemptions = 0;  // preemptions made by a job that had itself been preempted
  SimTime first_submit_s = 0;
  SimTime last_end_s = 0;
};

class Engine {
 public:
  // `floors` is indexed by class StrId (GPUs guaranteed to that class; used for metrics).
  Engine(const Workload& workload, const ClusterConfig& cluster, Scheduler& scheduler,
         EngineConfig config, std::vector<int32_t> floors = {});
  ~Engine();

  void add_node_events(std::vector<NodeEvent> events);  // before run()
  // Optional: stretches runtimes at start (fabric contention). Not owned; before run().
  void set_runtime_model(RuntimeModel* m);
  // Policy changes (not owned; must outlive run()), delivered at their at_s. `gate` may be null
  // (every change goes straight to the scheduler). Before run().
  void add_policy_changes(std::span<const PolicyChange> changes, ChangeGate* gate);
  void run();
  const std::vector<ChangeRecord>& change_log() const { return change_log_; }

  const std::vector<JobRun>& runs() const { return runs_; }
  // The latest placement of j (running or not): valid until the next call.
  std::span<const NodeShare> final_allocation(JobIdx j) const;
  const EngineStats& stats() const { return stats_; }
  const ClassLedger& ledger() const { return ledger_; }
  Snapshot snapshot() const;
  SimTime now() const { return now_; }

 private:
  friend class InvariantChecker;
  enum class EventKind : uint8_t { End = 0, Stop = 1, Node = 2, Change = 3, Wake = 5 };  // 4 = submit (cursor)
  struct Event {
    SimTime time_s;
    EventKind kind;
    uint64_t seq;
    uint32_t a;  // job or node event index
    uint32_t b;  // job epoch
  };
  struct EventAfter {
    bool operator()(const Event& x, const Event& y) const {
      if (x.time_s != y.time_s) return x.time_s > y.time_s;
      if (x.kind != y.kind) return x.kind > y.kind;
      return x.seq > y.seq;
    }
  };

  void push(SimTime t, EventKind k, uint32_t a, uint32_t b = 0);
  void handle(const Event& ev);
  void submit(JobIdx j);
  void pass();
  void apply(const Decisions& d);
  void start_job(JobIdx j, std::span<const NodeShare> placement, SimTime limit_override_s, int32_t gpu = -1,
                 int32_t admitted_gpus = -1, double work_scale = 1);
  // Stops a running job: frees GPUs, accounts work; then requeues, cancels or suspends it.
  enum class StopKind { Requeue, Cancel, Suspend, NodeFail };
  void stop_job(JobIdx j, StopKind how);
  void finish_job(JobIdx j, JobState s);
  void enqueue(JobIdx j);
  void remove_pending(JobIdx j);
  void compact_pending();
  void node_event(const NodeEvent& ne);
  void policy_change(uint32_t index);
  void cancel_job(JobIdx j);  // pending or running -> Cancelled (not a preemption)
  void check_invariants() const;
  void check_res_invariants() const;
  void watch();  // after each pass: throws NoProgressError when the watchdog fires
  void notify(JobEvent::Kind kind, JobIdx j, JobState s = JobState::Pending);

  const Workload& wl_;
  const ClusterConfig& cluster_;
  Scheduler& sched_;
  EngineConfig cfg_;

  std::vector<JobRun> runs_;
  std::vector<int32_t> free_gpus_;
  std::vector<uint8_t> node_up_;
  int64_t total_free_ = 0, total_up_ = 0;
  int32_t max_node_gpus_ = 0;
  // CPUs and memory (MiB) by node, only where the cluster gives them (empty otherwise); a node
  // whose capacity is 0 does not track it. take_res moves a share's CPUs and memory.
  std::vector<int32_t> cap_cpus_, free_cpus_, cap_mem_, free_mem_;
  void take_res(const NodeShare& s, int sign) {
    if (!cap_cpus_.empty() && cap_cpus_[s.node] > 0) free_cpus_[s.node] -= sign * s.cpus;
    if (!cap_mem_.empty() && cap_mem_[s.node] > 0) free_mem_[s.node] -= sign * s.mem_mib;
  }
  void node_res(NodeIdx n, bool up) {
    if (!cap_cpus_.empty()) free_cpus_[n] = up ? cap_cpus_[n] : 0;
    if (!cap_mem_.empty()) free_mem_[n] = up ? cap_mem_[n] : 0;
  }
  // Placements of running jobs (and of jobs stopped since the last compaction), in start order:
  // pool_segments_ names each one's job and share count. When the pool is full, make_room moves
  // the placements of jobs no longer running into archive_ (a few bytes a share) and closes the
  // gaps, so the pool holds about the running jobs' shares, not every start's.
  std::vector<NodeShare> alloc_pool_;
  std::vector<std::pair<JobIdx, uint32_t>> pool_segments_;
  AllocArchive archive_;
  // By JobIdx: the job's latest placement is in archive_, at runs_[j].alloc_offset. Models read
  // placements of running jobs only (Snapshot::allocations), never an archived one.
  std::vector<bool> archived_;
  mutable std::vector<NodeShare> archived_scratch_;  // final_allocation's answer for an archived job
  std::span<const NodeShare> live_allocation(JobIdx j) const {
    return std::span<const NodeShare>(alloc_pool_).subspan(runs_[j].alloc_offset, runs_[j].alloc_count);
  }
  void make_room(size_t shares);
  std::vector<uint32_t> node_stamp_;   // duplicate-node check in start_job without a scan
  uint32_t stamp_ = 0;

  std::vector<JobIdx> pending_;   // (queued_s, id) order; [pending_head_, end) is live
  size_t pending_head_ = 0;
  std::vector<uint8_t> removed_;  // by JobIdx: started/cancelled while still in pending_
  size_t removed_count_ = 0;
  std::vector<JobIdx> running_;   // start order

  std::priority_queue<Event, std::vector<Event>, EventAfter> events_;
  std::set<SimTime> pending_wakes_;
  std::vector<NodeEvent> node_events_;
  std::span<const PolicyChange> changes_;
  ChangeGate* gate_ = nullptr;
  std::vector<ChangeRecord> change_log_;
  uint64_t seq_ = 0;
  size_t next_submit_ = 0;
  SimTime now_ = 0;
  bool need_pass_ = false;
  bool notify_ = true;  // scheduler wants on_job_event
  uint64_t progress_ = 0;     // state changes so far (the watchdog's measure of progress)
  uint64_t queued_other_ = 0; // events in events_ that are not wake-ups (ends, stops, node events, changes)
  ProgressWatchdog watchdog_;

  Decisions decisions_;
  RuntimeModel* runtime_model_ = nullptr;
  std::vector<double> stretch_;  // by JobIdx, only with a runtime model: wall s per work s
  double stretch(JobIdx j) const { return stretch_.empty() ? 1.0 : stretch_[j]; }
  ClassLedger ledger_;
  EngineStats stats_;

  // GPU sharing, only when the model packs fractions and some job has gpu_milli (packing_);
  // whole-GPU workloads never touch these. See ClusterView::gpu_used_milli.
  bool packing_ = false;
  std::vector<uint32_t> gpu_first_;        // by node
  std::vector<int32_t> gpu_used_milli_;    // by GPU slot
  std::vector<int64_t> frac_alloc_milli_, frac_demand_milli_;  // by class: packed jobs' milli
  // Inline fast path: whole-GPU jobs cost what add_alloc/add_demand always cost.
  void ledger_alloc(JobIdx j, int sign) {
    const JobSpec& js = wl_.jobs[j];
    if (!packing_ || js.gpu_milli <= 0) ledger_.add_alloc(js.klass, sign * held_gpus(j));
    else ledger_share(js, sign, true);
  }
  void ledger_demand(const JobSpec& js, int sign) {
    if (!packing_ || js.gpu_milli <= 0) ledger_.add_demand(js.klass, sign * js.gpus);
    else ledger_share(js, sign, false);
  }
  void ledger_share(const JobSpec& js, int sign, bool alloc);
  void release_slot(JobIdx j);
  // GPUs a running job is charged for in GPU-seconds: its share when packed.
  double gpu_weight(JobIdx j) const {
    return runs_[j].gpu_slot >= 0 ? wl_.jobs[j].gpu_milli / 1000.0 : held_gpus(j);
  }
  // Partial starts (Decisions::start_partial), by JobIdx: the GPUs of the latest start (0 = all
  // the job asked for). Empty until the first partial start, so other runs never pay for it.
  std::vector<int32_t> admitted_gpus_;
  void record_admitted(JobIdx j, int32_t admitted_gpus, double work_scale);
 public:
  // Whole GPUs a started job holds: its request, or fewer after a partial start.
  int32_t held_gpus(JobIdx j) const {
    return admitted_gpus_.empty() || admitted_gpus_[j] == 0 ? wl_.jobs[j].gpus : admitted_gpus_[j];
  }
 private:
  std::unique_ptr<InvariantChecker> inv_;  // only with check_invariants (null: hooks cost a branch)
};

}  // namespace floorsim
