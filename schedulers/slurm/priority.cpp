// Multifactor (and basic) job priority and the queue order both loops use. Follows
// src/plugins/priority/multifactor/priority_multifactor.c (_get_priority_internal) and
// src/slurmctld/job_scheduler.c (sort_job_queue2); https://slurm.schedmd.com/priority_multifactor.html.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"
#include "schedulers/slurm/model.hpp"
#include "sim/core/error.hpp"

namespace floorsim::slurm {

inline double SlurmModel::priority(const Snapshot& v, JobIdx j, SimTime at) const {
  const auto& pr = cfg_.prio;
  const JobSpec& js = v.jobs[j];
  if (pr.type == PriorityType::Basic) {
    // priority/basic: FIFO by original submission; the value is only for display (priority/basic).
    return static_cast<double>(UINT32_MAX - 1 - std::min<size_t>(j, UINT32_MAX - 2));
  }
  const JobRun& r = v.runs[j];
  const SimTime accrue = std::max(r.queued_s, begin_time(v, j));  // accrue starts at eligibility
  const double age = pr.max_age_s > 0 ? std::clamp((at - accrue) / pr.max_age_s, 0.0, 1.0) : 1.0;
  PrioTerms& c = prio_terms_[j];
  if (c.gen != prio_gen_) prio_terms(v, j, c);
  double P = js.priority /* site factor */ + pr.weight_age * age + pr.weight_fairshare * assoc_[jassoc_[j]].fs + c.size +
             c.part + c.qos + c.tres;
  // slurmctld keeps an integer priority: floor, then the range. Inside the range the floor of a
  // positive double is its truncation (exact below 2^53), which is cheaper than std::floor.
  if (P >= 1.0 && P < 4294967296.0) return static_cast<double>(static_cast<int64_t>(P));
  P = std::floor(P);
  return std::clamp(P, 1.0, 4294967295.0);
}

void SlurmModel::prio_terms(const Snapshot& v, JobIdx j, PrioTerms& c) const {
  const auto& pr = cfg_.prio;
  const JobSpec& js = v.jobs[j];
  const PartRt& p = part_[jpart_[j]];
  const double cpus_frac = js.cpus > 0 && p.cpus > 0 ? static_cast<double>(js.cpus) / static_cast<double>(p.cpus)
                                                     : static_cast<double>(js.gpus) / static_cast<double>(std::max<int64_t>(1, cluster_gpus_));
  double size = (static_cast<double>(jnodes_[j]) / static_cast<double>(std::max<size_t>(1, nn_)) + cpus_frac) / 2.0;
  if (pr.favor_small) size = 1.0 - size;
  const double part = static_cast<double>(p.job_factor) / static_cast<double>(std::max<int64_t>(1, max_job_factor_));
  const uint32_t q = jqos_[j];
  const double qos = max_qos_prio_ > 0 && q != kNoIdx ? static_cast<double>(qos_[q].q.priority) / static_cast<double>(max_qos_prio_) : 0;
  double tres = 0;
  if (p.gpus > 0) tres += pr.weight_tres_gpu * static_cast<double>(js.gpus) / static_cast<double>(p.gpus);
  if (p.nodes > 0) tres += pr.weight_tres_node * static_cast<double>(jnodes_[j]) / static_cast<double>(p.nodes);
  if (p.cpus > 0) tres += pr.weight_tres_cpu * static_cast<double>(js.cpus) / static_cast<double>(p.cpus);
  c.size = pr.weight_jobsize * size;
  c.part = pr.weight_partition * part;
  c.qos = pr.weight_qos * qos;
  c.tres = tres;
  c.gen = prio_gen_;
}

// The order is a function of the pending list (the engine's order, which the stable sort below
// keeps for ties) and the pending jobs' priorities, tiers, submit times and ids. A priority moves
// only at an epoch or a policy change (prio_epoch_, prio_gen_) or with a requeue (a new
// queued_s); a job leaves or joins only through the pending list. When none of these changed
// since the last sort, order_ is what sorting again would give: the sort is skipped.
bool SlurmModel::sort_inputs_same(const Snapshot& v) const {
  const SortKey& k = sort_key_;
  return k.valid && jgone_.empty() && k.epoch == prio_epoch_ && k.gen == prio_gen_ && k.requeues == requeues_ &&
         std::equal(v.pending.begin(), v.pending.end(), sorted_pending_.begin(), sorted_pending_.end());
}

void SlurmModel::sort_queue(const Snapshot& v) {
  if (cfg_.pass_shortcuts && sort_inputs_same(v)) {
    ++wc_.sorts_skipped;
    if (cfg_.check_pass_shortcuts) {
      const std::vector<JobIdx> kept = order_;
      const uint64_t computed = wc_.prio_computed;
      sort_queue_fresh(v);
      if (order_ != kept || wc_.prio_computed != computed) ++wc_.shortcut_differs;
    }
    return;
  }
  ++wc_.sorts;
  sort_queue_fresh(v);
  sort_key_ = {true, prio_epoch_, prio_gen_, requeues_};
  sorted_pending_.assign(v.pending.begin(), v.pending.end());
}

void SlurmModel::sort_queue_fresh(const Snapshot& v) {
  const bool multifactor = cfg_.prio.type == PriorityType::Multifactor;
  queue_stamp_ += 2;
  const uint64_t queued = queue_stamp_, kept = queue_stamp_ + 1;
  bool total = !preempt_on_ && ids_unique_;
  size_t n = 0;
  const bool gone_any = !jgone_.empty();
  // ensure_fs_of with its job-independent tests out of the loop.
  const bool fs_users = multifactor && fs_dirty_ && cfg_.prio.fair_tree;
  const bool fs_all = multifactor && fs_dirty_ && !cfg_.prio.fair_tree;
  uint64_t* mark = queue_mark_.data();
  double* prio = prio_.data();
  for (JobIdx j : v.pending) {
    if (gone_any && jgone_[j]) continue;  // association deleted: cancelled in this pass
    mark[j] = queued;
    ++n;
    // The stored priority stands until the next epoch (see prio_epoch); a requeued job is a new
    // submission.
    const SimTime qs = v.runs[j].queued_s;
    if (prio_at_[j] == prio_epoch_ && prio_queued_[j] == qs) {
      if (prio[j] != prio[j]) total = false;
      continue;
    }
    prio_at_[j] = prio_epoch_;
    prio_queued_[j] = qs;
    if (fs_users) {
      const uint32_t a = jassoc_[j];
      if (fs_at_[a] != fs_epoch_) {
        fair_tree_user(a);
        fs_at_[a] = fs_epoch_;
      }
    } else if (fs_all) {
      ensure_fs();
    }
    const double P = priority(v, j, std::max(qs, prio_epoch_t_));
    ++wc_.prio_computed;
    prio[j] = P;
    if (P != P) total = false;  // NaN: not a total order
  }
  if (total) {
    // The last order's jobs still queued, in that order, then the new ones.
    size_t w = 0;
    for (JobIdx j : order_)
      if (queue_mark_[j] == queued) queue_mark_[j] = kept, order_[w++] = j;
    order_.resize(w);
    if (w != n)
      for (JobIdx j : v.pending)
        if (queue_mark_[j] == queued) order_.push_back(j);
  } else {
    order_.clear();
    for (JobIdx j : v.pending)
      if (queue_mark_[j] == queued) order_.push_back(j);
  }
  // job_scheduler.c sort_job_queue2: preemptor before preemptee (pairwise, only with preemption),
  // higher partition PriorityTier, higher priority, earlier submit, lower id. stable_sort is a
  // merge sort, so a comparator that is not a total order still gives a deterministic result.
  auto before = [&](JobIdx a, JobIdx b) {
    if (preempt_on_) {
      const uint32_t qa = jqos_[a], qb = jqos_[b];
      if (qa != kNoIdx && qb != kNoIdx && qa != qb) {
        if (qos_[qa].preempts[qb]) return true;
        if (qos_[qb].preempts[qa]) return false;
      }
    }
    const int64_t ta = part_[jpart_[a]].tier, tb = part_[jpart_[b]].tier;
    if (ta != tb) return ta > tb;
    if (prio_[a] != prio_[b]) return prio_[a] > prio_[b];
    const SimTime sa = v.runs[a].queued_s, sb = v.runs[b].queued_s;
    if (sa != sb) return sa < sb;
    return v.jobs[a].id < v.jobs[b].id;
  };
  if (total) {
    // Insertion sort, mostly a check; a queue that moved a lot is sorted from scratch (any
    // sort gives the one order). x_before(x) gives "x goes before y" for the inserted job x.
    auto insertion = [&](auto&& x_before) {
      JobIdx* o = order_.data();
      const size_t no = order_.size();
      size_t moves = 0;
      const size_t budget = 8 * no + 64;
      for (size_t i = 1; i < no && moves <= budget; ++i) {
        const JobIdx x = o[i];
        auto xb = x_before(x);
        if (!xb(o[i - 1])) continue;
        size_t k = i;
        for (; k > 0 && xb(o[k - 1]); --k) o[k] = o[k - 1];
        o[k] = x;
        moves += i - k;
      }
      if (moves > budget) std::sort(order_.begin(), order_.end(), before);
    };
    if (one_tier_) {
      // before() without preemption and with one PriorityTier, the inserted job's keys loaded once.
      const JobRun* runs = v.runs.data();
      const JobSpec* jobs = v.jobs.data();
      insertion([&](JobIdx x) {
        return [&, px = prio[x], qx = runs[x].queued_s, idx = jobs[x].id](JobIdx y) {
          if (px != prio[y]) return px > prio[y];
          if (qx != runs[y].queued_s) return qx < runs[y].queued_s;
          return idx < jobs[y].id;
        };
      });
    } else {
      insertion([&](JobIdx x) { return [&, x](JobIdx y) { return before(x, y); }; });
    }
    return;
  }
  // Without preemption the order is a strict weak ordering, so any stable sort gives
  // stable_sort's result; a short queue is sorted in place (no buffer).
  if (!preempt_on_ && order_.size() <= 24) {
    for (size_t i = 1; i < order_.size(); ++i) {
      const JobIdx x = order_[i];
      size_t k = i;
      for (; k > 0 && before(x, order_[k - 1]); --k) order_[k] = order_[k - 1];
      order_[k] = x;
    }
  } else {
    std::stable_sort(order_.begin(), order_.end(), before);
  }
}

}  // namespace floorsim::slurm
