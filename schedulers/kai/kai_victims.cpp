// KAI's victim actions (adapter.hpp): consolidation moves preemptible single-node jobs to make
// room; reclaim takes over-share jobs of other queues and preempt lower-priority jobs of the
// same queue, with the minruntime plugin's protection and the cpu / memory victim tests.
#include <fmt/format.h>

#include "schedulers/kai/adapter.hpp"

namespace floorsim::kai::adapter {

int64_t KaiScheduler::reclaimable_gpus_bound(int leaf) const {
  Milli sum = 0;
  for (int q = leaf; q != kNoQueue; q = t_[q].parent) {
    const auto& sibs = t_[q].parent == kNoQueue ? t_.roots() : t_.children(t_[q].parent);
    for (int v : sibs) {
      if (v == q) continue;
      const QueueSpec& s = t_[v];
      Milli keep = std::max(s.quota == kUnlimited ? fair_[v] : s.quota, fair_[v]);
      if (s.limit != kUnlimited) keep = std::min(keep, s.limit);
      const Milli floor = s.quota == kUnlimited ? keep : std::min(keep, s.quota);
      if (alloc_[v] > floor) sum += alloc_[v] - np_alloc_[v];
    }
  }
  return sum / 1000 + 1;  // whole GPUs, rounded up generously for packed victims
}

void KaiScheduler::release_victims(std::span<const uint32_t> victims) {
  for (uint32_t k : victims) {
    give(k, free_, slot_, res_);
    add_job(k, -1);
  }
  free_total_ = placement::sum(free_);
  if (any_fractional_) update_best_room();
}

void KaiScheduler::consolidate(const Snapshot& v, Decisions& out) {
  const size_t nodes = free_.size();
  for (JobIdx j : unplaced_) {
    const JobSpec& js = v.jobs[j];
    if (started_now(j) || packed(j) || pipelined_[j] || js.nodes > 1 || js.gpus > v.cluster.max_node_gpus || js.gpus > free_total_) continue;
    if (quota_block(j)) continue;
    for (size_t nd = 0; nd < nodes; ++nd) {
      if (!v.cluster.node_up[nd] || v.cluster.capacity_gpus[nd] < js.gpus) continue;
      movers_.clear();
      for (const auto& r : running_)
        if (r.preemptible && !moved_once_[r.key] && v.runs[r.key].gpu_slot < 0 && v.runs[r.key].alloc_count == 1 &&
            v.allocation_of(r.key)[0].node == nd && !moved_this_pass(r.key))
          movers_.push_back(r.key);
      std::stable_sort(movers_.begin(), movers_.end(), [&](JobIdx a, JobIdx b) { return v.jobs[a].gpus < v.jobs[b].gpus; });
      int32_t have = free_[nd];
      size_t take_n = 0;
      while (have < js.gpus && take_n < movers_.size() && static_cast<int>(take_n) < max_preemptees_) have += v.jobs[movers_[take_n++]].gpus;
      if (have < js.gpus || take_n == 0) continue;
      movers_.resize(take_n);
      // What-if: free the movers, put j on nd, then re-place every mover off nd.
      scratch_free_ = free_;
      for (JobIdx m : movers_) scratch_free_[nd] += v.jobs[m].gpus;
      scratch_free_[nd] -= js.gpus;
      const int32_t keep_nd = scratch_free_[nd];
      scratch_free_[nd] = 0;
      bool ok = true;
      for (JobIdx m : movers_) {
        if (!placement::first_fit(v.jobs[m], scratch_free_, shares_, v.cluster.max_node_gpus)) {
          ok = false;
          break;
        }
        placement::take(scratch_free_, shares_);
      }
      if (!ok) continue;
      for (JobIdx m : movers_) {
        out.preempt(m, PreemptMode::Requeue, j, 0);
        pipelined_[m] = 1;
        moved_once_[m] = 1;
        moved_.push_back(m);
        add_job(m, -1);
        free_[nd] += v.jobs[m].gpus;
        free_total_ += v.jobs[m].gpus;
        ++consolidation_moves_;
      }
      // j starts now on nd; the movers' new room stays free for their restart, which comes
      // after the relocation delay (pod re-creation), first in their queues (pipelined).
      shares_.assign(1, NodeShare{static_cast<NodeIdx>(nd), js.gpus});
      start(j);
      out.wake_at(v.now + kRelocationDelay_s);
      (void)keep_nd;
      break;
    }
  }
  // Movers are gone from running_ for the victim actions of this pass.
  if (!moved_.empty()) {
    std::erase_if(running_, [&](const RunningJob& r) { return moved_this_pass(r.key); });
    moved_.clear();
  }
}

void KaiScheduler::victims_pass(const Snapshot& v, Decisions& out, bool reclaim) {
  claimants_.clear();
  for (JobIdx j : unplaced_)
    if (!pipelined_[j] && !started_now(j) &&
        std::none_of(claimants_.begin(), claimants_.end(), [&](JobIdx c) { return queue_[c] == queue_[j]; }))
      claimants_.push_back(j);
  std::stable_sort(claimants_.begin(), claimants_.end(), [&](JobIdx a, JobIdx b) {
    return queue_before(state(queue_[a], a), req_[a], state(queue_[b], b), req_[b]);
  });
  for (JobIdx j : claimants_) {
    if (pipelined_[j]) continue;
    const Claimant c{queue_[j], prio_[j], preemptible_[j] != 0, req_[j]};
    if (reclaim) {
      if (!may_reclaim(t_, alloc_, fair_, np_alloc_, c) || !extra_within_fair(j) || quota_block(j)) continue;
      if (!packed(j) && free_total_ + reclaimable_gpus_bound(c.queue) < v.jobs[j].gpus) continue;
      reclaim_candidates(t_, alloc_, fair_, running_, c, cands_);
    } else {
      preempt_candidates(running_, c, cands_);
    }
    drop_min_runtime_protected(v, out, c.queue, reclaim);
    if (cands_.empty()) continue;
    for (int r = 0; r < 2; ++r)
      if (uses_[r]) xremoved_[r].assign(static_cast<size_t>(t_.size()), 0);
    const AdmissibleFn admissible = [&](const RunningJob& cand, std::span<const Milli> removed) {
      if (!reclaim) return true;
      if (!uses_extra()) return reclaim_victim_ok(t_, alloc_, fair_, removed, c, cand.queue, cand.req, rcfg_);
      return reclaim_victim_ok_extra(j, c, cand, removed);
    };
    const FitsFn fits = [&](std::span<const uint32_t> chosen) {
      if (!packed(j)) {  // cheap count test before a placement
        int64_t could = free_total_;
        for (uint32_t k : chosen) could += v.runs[k].gpu_slot < 0 ? v.jobs[k].gpus : 1;
        if (could < v.jobs[j].gpus) return false;
      }
      if (!reclaim) {  // same queue: the victims' quota comes back on the job's own path
        Milli back[kResources] = {0, 0, 0};
        for (uint32_t k : chosen) {
          back[kGpu] += req_[k];
          for (int r = 0; r < 2; ++r)
            if (uses_[r]) back[r + 1] += xreq_[r][k];
        }
        if (quota_block(j, back)) return false;
      }
      scratch_free_ = free_;
      scratch_slot_ = slot_;
      scratch_res_ = res_;
      for (uint32_t k : chosen) give(k, scratch_free_, scratch_slot_, scratch_res_);
      return place(j, scratch_free_, scratch_slot_, scratch_res_);
    };
    if (!select_victims(t_, cands_, admissible, fits, chosen_)) continue;
    for (uint32_t k : chosen_) {
      out.preempt(k, PreemptMode::Requeue, j, grace_s_);
      (reclaim ? reclaim_victims_ : preempt_victims_)++;
    }
    std::erase_if(running_, [&](const RunningJob& r) {
      return std::find(chosen_.begin(), chosen_.end(), r.key) != chosen_.end();
    });
    if (grace_s_ > 0) {  // victims keep GPUs and quota until they stop; j waits for them
      for (uint32_t k : chosen_) victim_of_[k] = j;
      pipelined_[j] = 1;
      out.set_reason(j, reclaim ? kPendingReclaim : kPendingPreemption);
      continue;
    }
    release_victims(chosen_);
    if (place(j, free_, slot_, res_)) start(j);
  }
}

bool KaiScheduler::extra_within_fair(JobIdx j) const {
  if (!preemptible_[j]) return true;
  for (int r = 0; r < 2; ++r)
    if (uses_[r])
      for (int q = queue_[j]; q != kNoQueue; q = t_[q].parent)
        if (xalloc_[r][q] + xreq_[r][j] > xfair_[r][q]) return false;
  return true;
}

bool KaiScheduler::reclaim_victim_ok_extra(JobIdx j, const Claimant& c, const RunningJob& cand, std::span<const Milli> removed) {
  for (int r = 0; r < 2; ++r)
    if (uses_[r])
      for (int q = cand.queue; q != kNoQueue; q = t_[q].parent) xremoved_[r][q] += xreq_[r][cand.key];
  ResState res[kResources];
  Milli in_req[kResources] = {req_[j], 0, 0}, v_req[kResources] = {cand.req, 0, 0};
  res[kGpu] = {alloc_, fair_, removed};
  for (int r = 0; r < 2; ++r)
    if (uses_[r]) {
      res[r + 1] = {xalloc_[r], xfair_[r], xremoved_[r]};
      in_req[r + 1] = xreq_[r][j];
      v_req[r + 1] = xreq_[r][cand.key];
    }
  const bool ok = reclaim_victim_ok_res(t_, res, c, in_req, cand.queue, v_req, rcfg_);
  if (!ok)
    for (int r = 0; r < 2; ++r)
      if (uses_[r])
        for (int q = cand.queue; q != kNoQueue; q = t_[q].parent) xremoved_[r][q] -= xreq_[r][cand.key];
  return ok;
}

void KaiScheduler::drop_min_runtime_protected(const Snapshot& v, Decisions& out, int claimant_queue, bool reclaim) {
  std::erase_if(cands_, [&](const RunningJob& r) {
    const double min_s = reclaim ? reclaim_min_runtime(t_, claimant_queue, r.queue, reclaim_min_s_, reclaim_lca_)
                                 : preempt_min_runtime(t_, r.queue, preempt_min_s_);
    const double until = v.runs[r.key].start_s + min_s;
    if (min_s <= 0 || v.runs[r.key].start_s < 0 || v.now >= until) return false;
    out.wake_at(until);
    ++min_runtime_protected_;
    return true;
  });
}
}  // namespace floorsim::kai::adapter
