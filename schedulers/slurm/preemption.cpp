// preempt/qos: eligible victims, PreemptMode, PreemptExemptTime, GraceTime and victim order. Follows
// src/plugins/preempt/qos/preempt_qos.c and src/slurmctld/preempt.c; https://slurm.schedmd.com/preempt.html.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"
#include "schedulers/slurm/model.hpp"
#include "sim/core/error.hpp"

namespace floorsim::slurm {

// preempt/qos (preempt.html): victims from the preemptor's Preempt list, not exempt, sharing the
// preemptor's nodes; lowest QOS priority then fewest nodes first (or youngest first); removed
// until the job fits, then recomputed from the last victim to preempt fewer.
bool SlurmModel::try_preempt(const Snapshot& v, JobIdx j, Decisions& out, bool& waiting) {
  waiting = false;
  const uint32_t q = jqos_[j];
  if (!preempt_on_ || q == kNoIdx) return false;
  const JobSpec& js = v.jobs[j];
  // GPUs already on their way back (grace time running) count first: wait for them.
  proj_.assign(free_.begin(), free_.end());
  rproj_ = rfree_;
  bool any_stopping = false;
  for (JobIdx r : v.running)
    if (v.runs[r].stop_s >= 0 || stopping_[r] == 2) {
      any_stopping = true;
      for (const auto& s : v.allocation_of(r)) proj_[s.node] += s.gpus;
      res_add(rproj_, v.allocation_of(r), +1);
    }
  if (any_stopping && place(js, proj_, rproj_)) {
    waiting = true;
    return false;
  }
  cand_.clear();
  for (JobIdx r : v.running) {
    SimTime exempt_until;
    if (!preemptable(v, q, r, exempt_until)) {
      if (exempt_until >= 0) unskip_s_ = std::min(unskip_s_, exempt_until);
      continue;
    }
    bool on_nodes = false;
    for (const auto& s : v.allocation_of(r)) on_nodes |= mask_[s.node] != 0;
    if (on_nodes) cand_.push_back(r);
  }
  if (cand_.empty()) return false;
  if (cfg_.preempt_youngest_first) {
    std::stable_sort(cand_.begin(), cand_.end(), [&](JobIdx a, JobIdx b) { return v.runs[a].start_s > v.runs[b].start_s; });
  } else {
    std::stable_sort(cand_.begin(), cand_.end(), [&](JobIdx a, JobIdx b) {
      const int64_t ka = (qos_[jqos_[a]].q.priority << 16) + v.runs[a].alloc_count;
      const int64_t kb = (qos_[jqos_[b]].q.priority << 16) + v.runs[b].alloc_count;
      return ka < kb;
    });
  }
  proj_.assign(free_.begin(), free_.end());
  rproj_ = rfree_;
  size_t k = 0;
  bool fits = false;
  for (; k < cand_.size() && !fits; ++k) {
    for (const auto& s : v.allocation_of(cand_[k])) proj_[s.node] += s.gpus;
    res_add(rproj_, v.allocation_of(cand_[k]), +1);
    fits = place(js, proj_, rproj_);
  }
  if (!fits) return false;
  // Reorder: the last victim first, then the others in order; take until the job fits.
  victims_.clear();
  victims_.push_back(cand_[k - 1]);
  for (size_t i = 0; i + 1 < k; ++i) victims_.push_back(cand_[i]);
  proj_.assign(free_.begin(), free_.end());
  rproj_ = rfree_;
  size_t used = 0;
  for (; used < victims_.size(); ++used) {
    for (const auto& s : v.allocation_of(victims_[used])) proj_[s.node] += s.gpus;
    res_add(rproj_, v.allocation_of(victims_[used]), +1);
    if (place(js, proj_, rproj_)) {
      ++used;
      break;
    }
  }
  victims_.resize(used);
  bool grace = false;
  for (JobIdx r : victims_) {
    const Qos& RQ = qos_[jqos_[r]].q;
    PreemptMode m = RQ.preempt_mode != PreemptMode::Unset ? RQ.preempt_mode : cfg_.preempt_mode;
    floorsim::PreemptMode em = floorsim::PreemptMode::Cancel;
    if (m == PreemptMode::Requeue && v.jobs[r].requeueable) em = floorsim::PreemptMode::Requeue;
    else if (m == PreemptMode::Suspend) em = floorsim::PreemptMode::Suspend;
    const SimTime g = RQ.grace_time_s;
    out.preempt(r, em, j, g);
    ++preempts_;
    stopping_[r] = g > 0 ? 2 : 1;
    stopped_now_.push_back(r);
    charge(r, v.jobs[r], -1);
    if (g > 0) {
      grace = true;
      wake_special(out, v.now + g);
    } else {
      for (const auto& s : v.allocation_of(r)) free_[s.node] += s.gpus;
      res_add(rfree_, v.allocation_of(r), +1);
    }
  }
  if (grace) {
    waiting = true;  // the preemptor waits for the grace time to end (pr:_job_check_grace_internal)
    return false;
  }
  return place(js, free_);
}

}  // namespace floorsim::slurm
