// The scheduling pass: which loops run when (sched_interval, bf_interval, batch_sched_delay,
// default_queue_depth) and the main loop's strict priority order per partition. Follows
// src/slurmctld/job_scheduler.c (_schedule) and src/slurmctld/controller.c (_slurmctld_background).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"
#include "schedulers/slurm/model.hpp"
#include "sim/core/error.hpp"

namespace floorsim::slurm {

void SlurmModel::start(const Snapshot& v, JobIdx j, Decisions& out, SimTime limit) {
  const JobSpec& js = v.jobs[j];
  placement::take(free_, shares_);
  cpus_take(j, shares_, cfree_, +1);
  res_add(rfree_, shares_, -1);
  out.start(j, shares_);
  charge(j, js, +1);
  if (jresv_[j] != kNoIdx)
    for (const auto& sh : shares_) resv_used_[jresv_[j] * nn_ + sh.node] += sh.gpus;
  // cons_common _will_run_test sorts the running jobs by end time at every test, so a job
  // started in this pass takes its place in the release order, not the last one.
  const EndRec e{v.now + limit, j, static_cast<uint32_t>(local_.size()), static_cast<uint32_t>(shares_.size())};
  ends_.insert(std::upper_bound(ends_.begin(), ends_.end(), e, end_before), e);
  local_.insert(local_.end(), shares_.begin(), shares_.end());
}

// One main-loop test of job j bound to reservation rv (kNoIdx: none): its nodes (the pass's
// available ones, or with a reservation every up node), the reservation's rules, then a fit or
// preemption. On Started the placement is in shares_.
SlurmModel::Attempt SlurmModel::main_attempt(const Snapshot& v, JobIdx j, uint32_t rv, SimTime limit, Decisions& out) {
  const JobSpec& js = v.jobs[j];
  const PartRt& P = part_[jpart_[j]];
  const size_t nn = nn_;
  mask_.resize(nn);
  {
    uint8_t* __restrict mk = mask_.data();
    const uint8_t* __restrict src = rv == kNoIdx ? avail_.data() : v.cluster.node_up.data();
    const uint8_t* __restrict pm = P.mask.data();
    for (size_t n = 0; n < nn; ++n) mk[n] = src[n] & pm[n];
  }
  const uint32_t bound = jresv_[j];
  jresv_[j] = rv;  // resv_prepare reads the job's reservation
  SimTime wait = kNever;
  const bool ok = resv_prepare(j, v.now, v.now + limit, wait);
  jresv_[j] = bound;
  if (!ok) {
    refused_wait_ = wait;
    return Attempt::Refused;
  }
  bool waiting = false;
  if (fit(js, free_) || try_preempt(v, j, out, waiting)) return Attempt::Started;
  return Attempt::NoFit;
}

void SlurmModel::main_started(const Snapshot& v, JobIdx j, SimTime limit, Decisions& out) {
  start(v, j, out, limit);
  considered_[j] = 2;
  started_by_[j] = StartedBy::Main;
  ++main_starts_;
}

// NODES_BUSY: the partition is failed for the rest of the pass and its nodes leave avail.
void SlurmModel::fail_partition(uint32_t p) {
  part_failed_[p] = 1;
  uint8_t* __restrict av = avail_.data();
  const uint8_t* __restrict keep = part_[p].keep.data();
  const size_t nn = nn_;
  for (size_t n = 0; n < nn; ++n) av[n] &= keep[n];
}

void SlurmModel::main_pass(const Snapshot& v, Decisions& out, size_t depth) {
  ++main_passes_;
  const size_t nn = nn_;  // a local: the byte loops below would reload nn_ at every step (uint8_t aliases it)
  std::fill(part_failed_.begin(), part_failed_.end(), 0);
  std::fill(resv_failed_.begin(), resv_failed_.end(), 0);
  avail_.assign(v.cluster.node_up.begin(), v.cluster.node_up.end());
  size_t tested = 0;
  // A placement takes job.gpus GPUs from nodes with free GPUs, so a job asking for more than
  // all free GPUs together cannot fit whatever its mask. Then fit() is not asked, where asking
  // has no side effect and nothing else in the step needs mask_: no topology (--switches
  // waits), no reservations (adjusted free GPUs), no preemption (try_preempt).
  const bool quick = topo_mode_ == 0 && resv_.empty() && !preempt_on_;
  int64_t free_sum = 0;
  if (quick)
    for (size_t n = 0; n < nn; ++n) free_sum += std::max(0, free_[n]);
  for (JobIdx j : order_) {
    if (v.runs[j].state != JobState::Pending || considered_[j] == 2) continue;  // started in this pass
    const JobSpec& js = v.jobs[j];
    const SimTime begin = begin_time(v, j);
    if (begin > v.now) {
      out.set_reason(j, kBeginTime);
      wake_special(out, begin);
      unskip_s_ = std::min(unskip_s_, begin);
      continue;
    }
    if (tested >= depth) break;
    ++tested;
    ++wc_.main_tests;
    const uint32_t p = jpart_[j];
    const uint32_t rv = jresv_[j];
    // MAGNETIC: slurmctld queues an attracted job twice, with the reservation and without it
    // (job_scheduler.c build_job_queue, reservation.c job_resv_append_magnetic); the record in
    // the reservation is tried first, the other one under the partition's rules.
    const bool in_rec = rv != kNoIdx && resv_failed_[rv] == 0;
    const bool out_rec = (rv == kNoIdx || jmag_[j]) && part_failed_[p] == 0;
    // A job in a reservation is held back only by its reservation, not by its partition.
    if (!in_rec && !out_rec) {
      out.set_reason(j, kPriority);
      continue;
    }
    if (uint16_t r = static_reason(v, j)) {
      out.set_reason(j, r);
      continue;
    }
    const SimTime limit = job_limit(j, js);
    if (denied(v, j, limit)) {
      out.preempt(j, floorsim::PreemptMode::Cancel, kNoJob);  // rejected as at submission
      considered_[j] = 2;
      continue;
    }
    if (uint16_t r = limit_reason(v, j, limit)) {
      out.set_reason(j, r);
      if ((r == kQOSGrpGRESMinutes || r == kQOSGrpNodeMinutes || r == kQOSGrpCpuMinutesLimit) &&
          !qos_[jqos_[j]].q.flags.no_decay)
        mins_blocked_ = true;
      // A limit blocks nothing unless assoc_limit_stop (job_scheduler.c _schedule).
      if (cfg_.sched.assoc_limit_stop) part_failed_[p] = 1;
      continue;
    }
    if (quick && js.gpus > free_sum) {
      adj_on_ = false;  // as resv_prepare with no reservations
      resv_next_free_ = kNever;
      out.set_reason(j, kResources);
      fail_partition(p);
      continue;
    }
    if (in_rec) {
      const Attempt a = main_attempt(v, j, rv, limit, out);
      if (a == Attempt::Started) {
        main_started(v, j, limit, out);
        free_sum -= js.gpus;
        continue;
      }
      if (a == Attempt::Refused) {
        out.set_reason(j, resv_deleted_ ? kResvDeleted : kReservation);
        if (std::isfinite(refused_wait_) && !resv_spent_) wake_special(out, refused_wait_);
      } else {
        out.set_reason(j, kResources);
        if (adj_on_ && !resv_blocked_ && place(js, free_)) resv_blocked_ = true;
        resv_failed_[rv] = 1;  // a job in a reservation blocks only that reservation (job_scheduler.c _schedule)
      }
    }
    if (!out_rec) continue;
    if (main_attempt(v, j, kNoIdx, limit, out) == Attempt::Started) {
      jresv_[j] = kNoIdx;  // runs outside the reservation, as if it were not there
      main_started(v, j, limit, out);
      free_sum -= js.gpus;
      continue;
    }
    out.set_reason(j, kResources);
    if (adj_on_ && !resv_blocked_ && place(js, free_)) resv_blocked_ = true;
    fail_partition(p);
  }
}

void SlurmModel::schedule(const Snapshot& v, Decisions& out) {
  const auto& sp = cfg_.sched;
  ++wc_.schedules;
  bool special = false;
  {
    size_t w = 0;
    for (SimTime t : specials_) {
      if (t <= v.now) special = true;  // due: conditions still pending ask again in this pass
      else specials_[w++] = t;
    }
    specials_.resize(w);
    for (SimTime t : specials_) out.wake_at(t);
  }
  // A node returning to service queues a scheduling pass, as a job event does (slurmctld's
  // update_node / node registration call queue_job_scheduler() when a node becomes available).
  if (v.cluster.node_up.size() != up_seen_.size()) {
    up_seen_.assign(v.cluster.node_up.begin(), v.cluster.node_up.end());
  } else if (std::memcmp(up_seen_.data(), v.cluster.node_up.data(), up_seen_.size()) != 0) {
    for (size_t n = 0; n < up_seen_.size(); ++n)
      if (v.cluster.node_up[n] && !up_seen_[n]) {
        ++events_;
        break;
      }
    std::copy(v.cluster.node_up.begin(), v.cluster.node_up.end(), up_seen_.begin());
  }
  if (!jgone_.empty()) cancel_gone(v, out);
  if (cfg_.prio.type == PriorityType::Multifactor || cfg_.enforce_limits) recalc_usage(v);
  resv_account(v);
  for (JobIdx r : stopped_now_) stopping_[r] = 0;
  stopped_now_.clear();
  free_.assign(v.cluster.free_gpus.begin(), v.cluster.free_gpus.end());
  if (!holds_.empty()) holds_apply(v, out);
  // The free CPUs and resources are read only by the passes (and, with holds, reservations or a
  // topology, by the steps before them): without those they are set once a pass is known to run.
  // Half of the calls on KTH run none (an end with nothing queued behind it, a batch_sched_delay).
  const bool setup_late = holds_.empty() && resv_.empty() && topo_mode_ == 0;
  if (!setup_late) {
    cpus_begin(v);
    res_from(rfree_, v);
  }
  if (topo_mode_ != 0) topo_begin(v);
  ends_.clear();
  local_.clear();
  count_running(v);
  resv_blocked_ = false;
  mins_blocked_ = false;
  resv_spent_ = !resv_.empty() && resv_boundaries_spent(v);
  if (!resv_.empty()) {
    resv_purge(v, out);
    resv_end_kills(v, out);
  }
  if (v.pending.empty()) {
    resv_note_used();
    return;
  }
  // Which passes run now: a full main pass every sched_interval, backfill every bf_interval,
  // and an event-triggered main pass limited to default_queue_depth otherwise (job_scheduler.c _schedule).
  const bool full = v.now >= next_main_s_;
  const bool bf = sp.backfill && v.now >= next_bf_s_;
  if (full) next_main_s_ = (std::floor(v.now / sp.sched_interval_s) + 1) * sp.sched_interval_s;
  if (bf) next_bf_s_ = (std::floor(v.now / sp.bf_interval_s) + 1) * sp.bf_interval_s;
  bool event_pass = events_ != ev_last_ || special;
  // controller.c _slurmctld_background: a pass queued by a submit or an end runs only once
  // batch_sched_delay has passed since the previous main pass; until then the events wait
  // (seen live on 22.05: submits at 10, 11, 12 s start at 10, 13, 13 s).
  if (event_pass && !special && !full && v.now < last_main_s_ + sp.batch_sched_delay_s) {
    event_pass = false;
    out.wake_at(last_main_s_ + sp.batch_sched_delay_s);
  } else {
    ev_last_ = events_;
  }
  // A periodic pass decides the same as the previous one of its kind when nothing happened in
  // between, no time-dependent condition expired and the order is unchanged (priority/basic
  // cannot reorder without events). Such passes are skipped: same result, less work.
  const bool time_ok = v.now < unskip_s_ && resv_.empty() && !mins_blocked_prev_;
  const bool basic = cfg_.prio.type == PriorityType::Basic;
  const bool quiet_main = !event_pass && time_ok && events_ == ev_main_ && v.cluster.total_up_gpus == up_main_;
  const bool quiet_bf = !event_pass && time_ok && events_ == ev_bf_ && v.cluster.total_up_gpus == up_bf_;
  // Without events the queue holds the same jobs, and priorities move only at an epoch (a decay
  // pass or a policy change, see prio_epoch): the order is the last one, no need to sort.
  bool run_main = event_pass || (full && !(quiet_main && (basic || prio_epoch_ == ep_main_)));
  bool run_bf = bf && !(quiet_bf && (basic || prio_epoch_ == ep_bf_));
  if (run_main || run_bf) {
    sort_queue(v);
    if (run_main && !event_pass && quiet_main && order_ == order_main_) run_main = false;
    if (run_bf && quiet_bf && order_ == order_bf_) run_bf = false;
  }
  if (run_main || run_bf) {
    if (setup_late) {
      cpus_begin(v);
      res_from(rfree_, v);
    }
    if (run_main) unskip_s_ = kNever;  // the main loop records the conditions again
    for (JobIdx j : order_) considered_[j] = 0;
    if (run_main) {
      main_pass(v, out, full ? SIZE_MAX : static_cast<size_t>(std::max<int64_t>(1, sp.default_queue_depth)));
      last_main_s_ = v.now;
    }
    if (run_bf) {
      const size_t before = out.items().size();
      backfill_pass(v, out);
      if (out.items().size() == before) ++wc_.bf_idle;
    }
    // Passes that started nothing are the reference for skipping the next periodic one.
    const bool acted = !out.items().empty();
    if (run_main && full) {
      ev_main_ = acted ? UINT64_MAX : events_;
      up_main_ = v.cluster.total_up_gpus;
      if (!basic) order_main_ = order_, ep_main_ = prio_epoch_;
    }
    if (run_bf) {
      ev_bf_ = acted ? UINT64_MAX : events_;
      up_bf_ = v.cluster.total_up_gpus;
      if (!basic) order_bf_ = order_, ep_bf_ = prio_epoch_;
    }
  }
  mins_blocked_prev_ = mins_blocked_;

  // Periodic passes matter only while something runs (resources change by events otherwise;
  // the engine runs a pass at every submit, end and node event). Without this a job that can
  // never start would keep the simulation alive forever.
  // Once a main and a backfill pass found nothing to do and nothing happened since, the next
  // periodic passes would be skipped anyway: only an event, a per-job wake-up or a priority
  // change (usage recalculation) can change the outcome, so the timers rest until then.
  const bool settled = !event_pass && ev_main_ == events_ && (!sp.backfill || ev_bf_ == events_) && out.items().empty();
  if ((!v.running.empty() || !out.items().empty()) && !settled) {
    out.wake_at(next_main_s_);
    if (sp.backfill) out.wake_at(next_bf_s_);
  } else if (settled && !v.running.empty() && cfg_.prio.type == PriorityType::Multifactor) {
    const SimTime calc = std::max(last_calc_s_ + cfg_.prio.calc_period_s, v.now + 1);
    out.wake_at(std::max(calc, std::min(next_main_s_, next_bf_s_)));
  }
  // A time-dependent condition (PreemptExemptTime) expires: the first periodic main pass after
  // it must run, as in slurmctld.
  if (settled && std::isfinite(unskip_s_))
    out.wake_at(std::max(next_main_s_, std::ceil(unskip_s_ / sp.sched_interval_s) * sp.sched_interval_s));
  // Usage decays: a job held by GrpTRESMins may pass at the next usage calculation.
  if (mins_blocked_ && cfg_.prio.decay_half_life_s > 0) wake_special(out, std::max(v.now + 1, last_calc_s_ + cfg_.prio.calc_period_s));
  // A job kept out only by a reservation may start at the window's next boundary (one still
  // ahead: a one-off window that ends now has no boundary left).
  if (resv_blocked_ && !resv_spent_)
    for (const auto& r : resv_) {
      if (std::isfinite(r.deleted_s)) continue;
      SimTime s0, e0;
      r.window(v.now, s0, e0);
      if (s0 > v.now) wake_special(out, s0);
      else if (e0 > v.now && std::isfinite(e0)) wake_special(out, e0);
    }
  resv_note_used();
  if (topo_mode_ != 0) topo_end(v, out);
}

}  // namespace floorsim::slurm
