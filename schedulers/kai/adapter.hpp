#pragma once
// The KAI adapter's class, internal to schedulers/kai: its per-pass state and small helpers.
// Its mechanisms are defined one per file: kai_scheduler.cpp (the session: queue state,
// allocate, placement, the report), kai_victims.cpp (consolidation, reclaim, preempt) and
// kai_resources.cpp (cpu and memory per job, time-aware usage history). The model's notes
// (time model, eviction, GPU sharing, cpu and memory) head kai_scheduler.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "schedulers/common/node_resources.hpp"
#include "schedulers/common/placement.hpp"
#include "schedulers/kai/job_ask.hpp"
#include "schedulers/kai/kai_scheduler.hpp"
#include "schedulers/kai/usage.hpp"

namespace floorsim::kai::adapter {

// Consolidation: a moved job is re-created and placed again this long after its eviction.
inline constexpr SimTime kRelocationDelay_s = 1.0;

enum Code : uint16_t { kNone = 0, kWhyNoQueue, kOverLimit, kOverQuota, kNoNodes, kPendingReclaim, kPendingPreemption, kCodes };
inline constexpr const char* kCodeNames[kCodes] = {"None", "NoQueue", "OverQueueLimit", "NonPreemptibleOverQuota",
                                                   "NoNodes", "PendingReclaim", "PendingPreemption"};

class KaiScheduler final : public Scheduler {
 public:
  KaiScheduler(const cfg::json& p, const SchedulerContext& ctx, QueueTree tree, std::vector<std::string> warnings);

  // cpu (millicores) and memory (MB) per job from the scheduler block's requests_per_job /
  // requests_per_gpu, and the warnings that say where they bind and where they cannot.
  void job_cpu_memory(const cfg::json& p, const SchedulerContext& ctx);
  bool uses_extra() const { return uses_[0] || uses_[1]; }

  // Time-aware fairness: one block of channels (each queue, then the cluster's capacity) for
  // GPUs, and one for cpu and for memory where jobs request them and the nodes give them, as
  // KAI's usage database reports each of nvidia.com/gpu, cpu and memory over its own capacity
  // (pkg/scheduler/cache/usagedb/prometheus/prometheus.go GetResourceUsage).
  void usage_history(const cfg::json& u, const ClusterConfig& cluster);

  std::string_view name() const override { return "kai"; }
  bool wants_job_events() const override { return false; }
  bool packs_gpu_fractions() const override { return sharing_; }

  void schedule(const Snapshot& v, Decisions& out) override;

  std::string_view reason_name(uint16_t code) const override { return code < kCodes ? kCodeNames[code] : "Other"; }
  std::vector<std::string> extra_columns() const override { return {"kai_queue", "kai_priority", "gpu_fraction", "gpu_slot"}; }
  void extra_values(JobIdx j, std::vector<std::string>& out) const override {
    out.push_back(queue_[j] == kNoQueue ? "" : t_[queue_[j]].name);
    out.push_back(std::to_string(prio_[j]));
    out.push_back(req_[j] % 1000 ? fmt::format("{}", static_cast<double>(req_[j]) / 1000.0) : "");
    out.push_back(last_slot_[j] < 0 ? "" : fmt::format("{}:{}", slot_node_[last_slot_[j]], last_slot_[j] - static_cast<int32_t>(gpu_first_[slot_node_[last_slot_[j]]])));
  }

  nlohmann::json report(const Snapshot& end) const override;

  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  // --- per-pass state ---
  // Charges (sign 1) or returns (-1) job j's GPUs, cpu and memory up its queue's path.
  void add_job(JobIdx j, int sign) {
    const bool np = !preemptible_[j];
    for (int q = queue_[j]; q != kNoQueue; q = t_[q].parent) {
      alloc_[q] += sign * req_[j];
      if (np) np_alloc_[q] += sign * req_[j];
      for (int r = 0; r < 2; ++r)
        if (uses_[r]) {
          xalloc_[r][q] += sign * xreq_[r][j];
          if (np) xnp_alloc_[r][q] += sign * xreq_[r][j];
        }
    }
  }

  void build_state(const Snapshot& v);

  // Time-aware fairness: each queue's usage over the window, over the cluster's capacity over
  // the same window (each block's last channel), per resource, as KAI's usage database reports
  // it; each resource's division weighs its own usage (resource_division.go calcShareWeights).
  void historical_usage(double now);
  // The allocation this pass leaves holds until the next pass (every start and end is a pass):
  // GPUs; cpu in cores and memory in MB against the up nodes' capacity.
  void record_usage(const Snapshot& v);

  Milli limit_milli(JobIdx j) const {
    const JobSpec& js = view_->jobs[j];
    return js.gpu_milli_limit > js.gpu_milli ? js.gpu_milli_limit : js.gpu_milli;
  }
  bool packed(JobIdx j) const { return sharing_ && view_->jobs[j].gpu_milli > 0; }

  // Placement of job j against `free`/`slot` (the pass's copies or a scratch what-if).
  // Whole GPUs: first fit. Fractional: the fullest shared GPU with room, else a fresh GPU on
  // the first node with one free. Writes shares_ / pack_node_, pack_gpu_.
  bool place(JobIdx j, std::span<const int32_t> free, std::span<const int32_t> slot, const placement::NodeResources& res);
  // What j's pods ask of nodes besides GPUs (0 where no job requests cpu / memory).
  placement::NodeAsk node_ask(JobIdx j) const {
    placement::NodeAsk a;
    if (uses_[0]) a.cpu_milli = xreq_[0][j];
    if (uses_[1]) a.mem_mib = mem_mib_[j];
    return a;
  }
  // Applies the last place() of j to `free`/`slot`.
  void take(JobIdx j, std::span<int32_t> free, std::span<int32_t> slot) {
    if (!packed(j)) {
      res_.take(shares_);
      return placement::take(free, shares_);
    }
    if (slot[pack_slot_] == 0) --free[slot_node_[pack_slot_]];
    slot[pack_slot_] += view_->jobs[j].gpu_milli;
  }
  // Returns a running job's GPUs to `free`/`slot`.
  void give(JobIdx j, std::span<int32_t> free, std::span<int32_t> slot, placement::NodeResources& res) {
    const int32_t s = view_->runs[j].gpu_slot;
    if (s < 0) {
      res.give(view_->allocation_of(j));
      return placement::give(free, view_->allocation_of(j));
    }
    slot[s] -= view_->jobs[j].gpu_milli;
    if (slot[s] == 0) ++free[slot_node_[s]];
  }
  // Emits the start of j at the last place(), updating the pass state.
  void start(JobIdx j);
  bool started_now(JobIdx j) const { return started_pass_[j] == pass_no_; }
  void reason(JobIdx j, uint16_t code) {
    if (view_->runs[j].reason != code) out_->set_reason(j, code);
  }
  // Upper bound on the GPUs reclaim could free for a job of `leaf` (a cheap pre-test, no
  // candidate list): the preemptible allocation of every queue beside the leaf's path that is
  // over min(its fair-share floor, its deserved quota), i.e. that either victim test could pass.
  int64_t reclaimable_gpus_bound(int leaf) const;
  // Gives victims' GPUs back to the pass state (grace 0: they stop before the next start).
  void release_victims(std::span<const uint32_t> victims);

  // Quota checks for starting j now (allocate and the victim actions).
  // `removed` (gpu, cpu, memory) is what same-queue victims give back on the job's path.
  uint16_t quota_block(JobIdx j, const Milli (&removed)[kResources] = kNothing) {
    const int q = queue_[j];
    if (!within_limits_minus(q, req_[j], removed[kGpu], alloc_, kGpu)) return kOverLimit;
    for (int r = 0; r < 2; ++r)
      if (uses_[r] && !within_limits_minus(q, xreq_[r][j], removed[r + 1], xalloc_[r], r + 1)) return kOverLimit;
    if (preemptible_[j]) return kNone;
    if (!nonpreemptible_within_quota(t_, np_alloc_, q, req_[j])) return kOverQuota;
    for (int r = 0; r < 2; ++r)
      if (uses_[r] && !nonpreemptible_within_quota(t_, xnp_alloc_[r], q, xreq_[r][j], r + 1)) return kOverQuota;
    return kNone;
  }
  static constexpr Milli kNothing[kResources] = {0, 0, 0};
  bool within_limits_minus(int leaf, Milli req, Milli removed, std::span<const Milli> alloc, int resource) const {
    if (removed == 0) return within_limits(t_, alloc, leaf, req, resource);
    for (int q = leaf; q != kNoQueue; q = t_[q].parent) {
      const Milli limit = res_quota(t_[q], resource).limit;
      if (limit != kUnlimited && alloc[q] - removed + req > limit) return false;
    }
    return true;
  }
  // Exact for whole-GPU jobs that may spread (nodes 0); a necessary test otherwise.
  bool could_fit_whole(JobIdx j) const {
    if (packed(j)) return free_total_ > 0 || view_->jobs[j].gpu_milli <= best_room_;
    return view_->jobs[j].gpus <= free_total_;
  }
  // Largest room left on a shared GPU (0 when none), for the quick test above.
  void update_best_room() {
    best_room_ = 0;
    for (auto m : slot_)
      if (m > 0 && 1000 - m > best_room_) best_room_ = 1000 - m;
  }

  // Picks the leaf to serve next: descend from the roots, at each level the child whose best
  // leaf's head job comes first by queue order (PP/queue_order).
  int pick(int q) {
    if (t_.leaf(q)) return cursor_[q] < lists_[q].size() ? q : kNoQueue;
    return pick_among(t_.children(q));
  }
  int pick_among(const std::vector<int>& kids) {
    int best_child = kNoQueue, best_leaf = kNoQueue;
    for (int c : kids) {
      const int l = pick(c);
      if (l == kNoQueue) continue;
      if (best_leaf == kNoQueue ||
          queue_before(state(c, head(l)), req_[head(l)], state(best_child, head(best_leaf)), req_[head(best_leaf)])) {
        best_child = c;
        best_leaf = l;
      }
    }
    return best_leaf;
  }
  JobIdx head(int leaf) const { return lists_[leaf][cursor_[leaf]]; }
  QueueState state(int q, JobIdx head_job) const {
    QueueState s{alloc_[q], fair_[q], t_[q].quota == kUnlimited ? fair_[q] : t_[q].quota, t_[q].priority, q};
    for (int r = 0; r < 2; ++r)
      if (uses_[r]) s.extra[r] = {xalloc_[r][q], xfair_[r][q], xreq_[r][head_job]};
    return s;
  }

  void allocate(const Snapshot& v, Decisions& out);

  // Consolidation (actions/consolidation): for an unplaced whole-GPU job that fits on one node
  // and for which enough GPUs are free in total, move preemptible single-node jobs off one node
  // if every one of them can be placed elsewhere now. A job is moved at most once, so that two
  // pending jobs cannot make consolidation move the same jobs back and forth. The moved jobs
  // are requeued (they restart, as relocated pods do) and pipelined so that the next pass
  // re-places them first.
  void consolidate(const Snapshot& v, Decisions& out);
  bool moved_this_pass(JobIdx j) const { return std::find(moved_.begin(), moved_.end(), j) != moved_.end(); }

  // Reclaim (other queues' over-share jobs) or preempt (same queue, lower priority): one
  // claimant per leaf queue per pass, its first job left unplaced, queues in queue order.
  void victims_pass(const Snapshot& v, Decisions& out, bool reclaim);

  // CanReclaimResources over cpu and memory: the reclaimer's queue path stays within its fair
  // share of each with the job (a non-preemptible one: quota_block holds it to deserved).
  bool extra_within_fair(JobIdx j) const;
  // The victim test over gpu, cpu and memory (reclaim_victim_ok_res): the cpu and memory taken
  // so far follow the GPUs select_victims counts; a refused candidate's are given back.
  bool reclaim_victim_ok_extra(JobIdx j, const Claimant& c, const RunningJob& cand, std::span<const Milli> removed);

  // The minruntime plugin's victim filters: a candidate that started less than its minimum
  // runtime ago is protected; the pass that follows its protection's end may take it.
  void drop_min_runtime_protected(const Snapshot& v, Decisions& out, int claimant_queue, bool reclaim);

  QueueTree t_;
  std::vector<std::string> warnings_;
  bool sharing_;
  double grace_s_;
  double preempt_min_s_, reclaim_min_s_;  // the minruntime plugin's defaults
  bool reclaim_lca_;
  uint64_t min_runtime_protected_ = 0;
  int max_preemptees_;
  ReclaimConfig rcfg_;
  bool time_aware_;
  double k_value_;
  double session_period_s_;  // 0: a session at engine events only
  std::optional<UsageHistory> history_;  // time-aware fairness only
  std::vector<double> usage_, sums_, rates_;  // by queue: normalised historical usage (empty = off)
  std::vector<double> xusage_[2];             // the same for cpu and memory (empty = not counted)
  int ublock_[2] = {-1, -1};                  // their channel block in history_ (-1 = none)
  // cpu (index 0, millicores) and memory (1, MB), only where some job requests them (uses_)
  bool uses_[2] = {false, false};
  Milli cap_x_[2] = {0, 0};                    // the nodes' total; 0 = not given
  std::vector<Milli> xreq_[2];                 // by JobIdx
  std::vector<int64_t> mem_mib_;               // by JobIdx: the memory its pods ask of nodes (JobAsk::node_mem_mib)
  std::vector<Milli> xalloc_[2], xnp_alloc_[2], xrequest_[2], xfair_[2];  // by queue
  std::vector<Milli> xremoved_[2];  // by queue: cpu / memory of the victims chosen so far (reclaim)
  bool do_allocate_ = false, do_consolidation_ = false, do_reclaim_ = false, do_preempt_ = false;
  bool any_fractional_ = false;
  // by JobIdx
  std::vector<int> queue_;
  std::vector<int32_t> prio_;
  std::vector<uint8_t> preemptible_, pipelined_;
  std::vector<uint8_t> moved_once_;  // consolidation moves a job at most once (no ping-pong)
  std::vector<Milli> req_;
  std::vector<int32_t> last_slot_;
  // by queue
  std::vector<Milli> alloc_, np_alloc_, request_, fair_, subtree_req_;
  DivideScratch div_scratch_;
  std::vector<std::vector<JobIdx>> lists_;
  std::vector<size_t> cursor_;
  std::vector<double> fair_s_, alloc_s_;
  double span_s_ = 0, last_pass_s_ = 0;
  // GPU slots
  std::vector<NodeIdx> slot_node_;
  std::vector<uint32_t> gpu_first_;
  std::vector<Milli> slot_limit_;
  std::vector<uint32_t> slot_jobs_;
  // pass scratch
  const Snapshot* view_ = nullptr;
  Decisions* out_ = nullptr;
  std::vector<RunningJob> running_, cands_;
  std::vector<int32_t> free_, slot_, scratch_free_, scratch_slot_;
  placement::NodeResources res_, scratch_res_;  // the pass's free CPUs and memory; a what-if copy
  bool asks_nodes_ = false;    // some job asks CPUs or memory the nodes give: placement checks them
  bool any_cpu_only_ = false;  // some job asks no GPUs
  int64_t free_total_ = 0;
  Milli best_room_ = 0;
  // by leaf, per allocate: smallest request blocked by a limit / by the non-preemptible quota
  std::vector<Milli> blocked_limit_req_, blocked_np_req_;
  std::vector<NodeShare> shares_;
  int32_t pack_slot_ = -1;
  std::vector<JobIdx> unplaced_, movers_, moved_, claimants_;
  std::vector<JobIdx> victim_of_;           // by JobIdx: whom a terminating victim was evicted for
  std::vector<uint32_t> waiting_, started_pass_;  // by JobIdx: pass stamps
  uint32_t pass_no_ = 0;
  std::vector<uint32_t> chosen_;
  // report
  uint64_t allocated_ = 0, consolidation_moves_ = 0, reclaim_victims_ = 0, preempt_victims_ = 0;
  uint64_t packed_starts_ = 0, burst_oversubscribed_ = 0, max_on_gpu_ = 0;
  int64_t shared_now_ = 0, shared_gpus_peak_ = 0;
};

}  // namespace floorsim::kai::adapter
