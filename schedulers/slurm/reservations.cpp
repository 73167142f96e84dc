// Advanced reservations: windows and recurrence, who may use them (Users/Accounts/QOS, MAGNETIC),
// FLEX, PURGE_COMP, ResvOverRun kills and the idle time charged to them. Follows
// src/slurmctld/reservation.c (job_test_resv) and https://slurm.schedmd.com/reservations.html.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "schedulers/common/placement.hpp"
#include "schedulers/slurm/model.hpp"
#include "sim/core/error.hpp"
#include <map>

namespace floorsim::slurm {

void SlurmModel::build_reservations(const Workload& wl, const ClusterConfig& cluster, const std::string& file,
                                    std::span<const int32_t> busy_gpus, const std::string& busy_name) {
  std::map<std::string, NodeIdx> node_index;
  for (size_t n = 0; n < nn_; ++n) node_index[cluster.node_names[n]] = static_cast<NodeIdx>(n);
  std::vector<uint8_t> taken(nn_, 0);
  auto ids = [&](const std::vector<std::string>& names) {
    std::vector<StrId> out;
    for (const auto& x : names) {
      const StrId id = wl.strings.find(x);
      if (id != StringTable::kMissing) out.push_back(id);
    }
    return out;
  };
  for (const auto& c : cfg_.reservations) {
    ResvRt r;
    r.name = c.name;
    r.start_s = c.start_s;
    r.dur_s = c.duration_s;
    r.period_s = c.period_s();
    r.gpus.assign(nn_, 0);
    // Made at run time without IGNORE_JOBS: GPUs of running jobs that would still run in its
    // window are not available; listed nodes that are busy refuse the reservation, as
    // `scontrol create reservation` answers "Requested nodes are busy" (scontrol(1) IGNORE_JOBS).
    const bool check_busy = !busy_gpus.empty() && c.name == busy_name && !c.ignore_jobs;
    auto busy = [&](size_t n) { return check_busy ? busy_gpus[n] : 0; };
    for (const auto& n : c.nodes) {
      auto it = node_index.find(n);
      if (it == node_index.end())
        throw InputError(file, "", fmt::format("reservation {} lists node {} which the cluster lacks; expected node names of the cluster", c.name, n));
      if (busy(it->second) > 0)
        throw InputError(file, "", fmt::format("reservation {}: requested node {} is busy with running jobs; expected idle nodes or the IGNORE_JOBS flag", c.name, n));
      r.gpus[it->second] = cluster.node_gpus[it->second];
    }
    // NodeCnt: the first free nodes in node order (all are idle when the reservation is made
    // at t=0; at run time, nodes with running jobs are passed over unless IGNORE_JOBS).
    int64_t want = c.node_cnt;
    for (size_t n = 0; n < nn_ && want > 0; ++n)
      if (!taken[n] && r.gpus[n] == 0 && busy(n) == 0) r.gpus[n] = cluster.node_gpus[n], --want;
    if (want > 0) throw InputError(file, "", fmt::format("reservation {} wants NodeCnt={} but only {} nodes are free; expected at most the free nodes", c.name, c.node_cnt, c.node_cnt - want));
    // TRES=gres/gpu:N: N GPUs, packed onto nodes in order.
    int64_t g = c.gpus;
    for (size_t n = 0; n < nn_ && g > 0; ++n) {
      if (taken[n] || r.gpus[n] > 0 || busy(n) >= cluster.node_gpus[n]) continue;
      const int32_t k = static_cast<int32_t>(std::min<int64_t>(g, cluster.node_gpus[n] - busy(n)));
      r.gpus[n] = k;
      g -= k;
    }
    if (g > 0) throw InputError(file, "", fmt::format("reservation {} wants {} GPUs but the free nodes hold fewer; expected at most the free GPUs", c.name, c.gpus));
    for (size_t n = 0; n < nn_; ++n) {
      r.total_gpus += r.gpus[n];
      if (r.gpus[n] > 0) taken[n] = 1;
    }
    r.users = ids(c.users);
    r.accounts = ids(c.accounts);
    r.qos = ids(c.qos);
    r.classes = ids(c.request_classes);
    r.flex = c.flex;
    r.purge_s = c.purge_comp ? c.purge_comp_s : -1;
    r.magnetic = c.magnetic;
    for (const auto& a : c.accounts) r.assocs.push_back(a);
    for (const auto& u : c.users) r.assocs.push_back(u);
    if (r.assocs.empty()) r.assocs.push_back("(all)");
    resv_.push_back(std::move(r));
  }
  jresv_.assign(wl.jobs.size(), kNoIdx);
  jmag_.assign(wl.jobs.size(), 0);
  for (size_t j = 0; j < wl.jobs.size(); ++j) {
    const JobSpec& js = wl.jobs[j];
    for (size_t k = 0; k < resv_.size() && jresv_[j] == kNoIdx; ++k) {
      const ResvRt& r = resv_[k];
      auto has = [](const std::vector<StrId>& v, StrId x) { return std::find(v.begin(), v.end(), x) != v.end(); };
      const bool open = r.users.empty() && r.accounts.empty() && r.qos.empty() && cfg_.reservations[k].users.empty() &&
                        cfg_.reservations[k].accounts.empty() && cfg_.reservations[k].qos.empty();
      const bool access = open || has(r.users, js.user) || has(r.accounts, js.account) || has(r.qos, js.qos);
      if (!access) continue;
      // Asked for, or attracted by MAGNETIC. slurmctld queues a MAGNETIC job once with the
      // reservation and once without (job_scheduler.c build_job_queue): it may run outside
      // (the main loop and backfill try both), and one that no occurrence can hold is not
      // attracted at all.
      if (has(r.classes, js.klass)) {
        jresv_[j] = static_cast<uint32_t>(k);
      } else if (r.magnetic && !r.holds_never(job_limit(static_cast<JobIdx>(j), js))) {
        jresv_[j] = static_cast<uint32_t>(k);
        jmag_[j] = 1;
      }
    }
  }
  jresv_at_ = jresv_;
  resv_used_.assign(resv_.size() * nn_, 0);
  resv_failed_.assign(resv_.size(), 0);
  resv_overlap_.assign(resv_.size(), 0);
  adj_sub_.assign(nn_, 0);
  adj_cap_.assign(nn_, -1);
}

// Reservations seen by job j over [t0, t1) (reservation.c job_test_resv). Outside a reservation, a job may use its
// unused reserved GPUs only if [t0, t1) misses the window. Inside, it must fit the window in
// time and space (FLEX: neither). Returns false, with the time worth retrying at, when the job's
// own reservation does not allow it in this interval.
bool SlurmModel::resv_prepare_some(JobIdx j, SimTime t0, SimTime t1, SimTime& wait_until) {
  std::fill(adj_sub_.begin(), adj_sub_.end(), 0);
  std::fill(adj_cap_.begin(), adj_cap_.end(), -1);
  const uint32_t mine = jresv_[j];
  cur_job_ = j;
  resv_deleted_ = false;
  for (size_t k = 0; k < resv_.size(); ++k) {
    const ResvRt& r = resv_[k];
    if (std::isfinite(r.deleted_s)) {
      // Purged (PURGE_COMP): it reserves nothing; its own jobs are held (ResvDeleted), except
      // those MAGNETIC only attracted, which run as if it never was.
      if (k == mine && !r.magnetic) {
        resv_deleted_ = true;
        wait_until = kNever;
        return false;
      }
      continue;
    }
    SimTime s, e;
    r.window(t0, s, e);
    if (k == mine) {
      if (r.period_s <= 0 && t0 >= e && !r.flex) {  // a one-off that ended: held (reservations.html)
        resv_deleted_ = true;
        wait_until = kNever;
        return false;
      }
      if (!r.flex) {
        if (r.holds_never(t1 - t0)) {  // no occurrence will ever hold it: pending, no wake-up
          wait_until = kNever;
          return false;
        }
        if (t0 < s) {
          wait_until = s;
          return false;
        }
        if (t1 > e) {  // does not fit this occurrence: the next one, if any
          wait_until = r.period_s > 0 ? s + r.period_s : kNever;
          return false;
        }
      }
      for (size_t n = 0; n < nn_; ++n) {
        if (r.gpus[n] > 0) adj_cap_[n] = r.gpus[n] - resv_used_[k * nn_ + n];
        else if (!r.flex) mask_[n] = 0;
      }
      adj_on_ = true;
      continue;
    }
    resv_overlap_[k] = 0;
    if (e <= t0 || s >= t1) continue;
    resv_overlap_[k] = 1;
    resv_next_free_ = std::min(resv_next_free_, e);
    for (size_t n = 0; n < nn_; ++n)
      if (r.gpus[n] > 0) adj_sub_[n] += std::max(0, r.gpus[n] - resv_used_[k * nn_ + n]);
    adj_on_ = true;
  }
  return true;
}

// Reservation boundaries repeat with the longest recurring period (HOURLY, DAILY and WEEKLY
// divide one another). Once a whole period has gone by with nothing running, no job event or
// policy change and the same GPUs up, and every one-off window is over, each boundary ahead
// repeats one already passed without effect: none can start a job. slurmctld would keep such
// jobs pending for ever; the model stops waking for the boundaries, so the run ends (jobs
// PENDING, Reason=Reservation) instead of waking for ever. The next event starts a new stretch.
// (Fair-share decay can still reorder the queue in such a stretch; with nothing running and
// nothing started over a whole period, no order has let a job start.)
bool SlurmModel::resv_boundaries_spent(const Snapshot& v) {
  if (!v.running.empty() || events_ != quiet_events_ || v.cluster.total_up_gpus != quiet_up_) {
    quiet_events_ = events_;
    quiet_up_ = v.cluster.total_up_gpus;
    quiet_since_s_ = v.now;
    return false;
  }
  SimTime cycle = 0, from = quiet_since_s_;
  for (const auto& r : resv_) {
    if (std::isfinite(r.deleted_s)) continue;
    if (r.period_s > 0) {
      cycle = std::max(cycle, r.period_s);
      continue;
    }
    SimTime s, e;
    r.window(v.now, s, e);
    if (e > v.now) return false;  // a one-off window still ahead changes what follows
    from = std::max(from, e);
  }
  return cycle > 0 && v.now - from >= cycle;
}

void SlurmModel::resv_account(const Snapshot& v) {
  for (auto& r : resv_) {
    const SimTime b = std::min(v.now, r.deleted_s);  // a purged reservation stops counting
    if (b > r.acc_s)
      r.idle_gpu_s += r.overlap(r.acc_s, b) * static_cast<double>(std::max<int64_t>(0, r.total_gpus - r.used_gpus));
    r.acc_s = std::max(r.acc_s, b);
  }
}

// PURGE_COMP[=t] (scontrol(1)): a reservation idle (none of its jobs running) for t
// within an occurrence is deleted. Idle runs from the occurrence's start or its last job's end.
void SlurmModel::resv_purge(const Snapshot& v, Decisions& out) {
  for (size_t k = 0; k < resv_.size(); ++k) {
    ResvRt& r = resv_[k];
    if (r.purge_s < 0 || std::isfinite(r.deleted_s)) continue;
    SimTime s, e;
    r.window(v.now, s, e);
    if (v.now < s || v.now >= e) continue;  // not active now
    bool busy = false;
    for (size_t n = 0; n < nn_ && !busy; ++n) busy = resv_used_[k * nn_ + n] > 0;
    if (busy) continue;
    const SimTime idle_from = std::max(s, r.last_end_s);
    const SimTime at = idle_from + r.purge_s;
    if (at >= e) continue;  // the occurrence ends first
    if (v.now >= at) r.deleted_s = at;
    else wake_special(out, at);
  }
}

// At the end of its occurrence (+ ResvOverRun), a job running in a reservation is killed,
// except under FLEX (slurm.conf(5) ResvOverRun).
void SlurmModel::resv_end_kills(const Snapshot& v, Decisions& out) {
  for (JobIdx j : v.running) {
    const uint32_t k = jresv_[j];
    if (k == kNoIdx || resv_[k].flex || v.runs[j].stop_s >= 0) continue;
    SimTime s, e;
    resv_[k].window(v.runs[j].start_s, s, e);
    const SimTime kill = e + cfg_.resv_over_run_s;
    if (v.now >= kill) {
      out.preempt(j, floorsim::PreemptMode::Cancel, kNoJob);
      charge(j, v.jobs[j], -1);
      stopping_[j] = 1;
      stopped_now_.push_back(j);
      for (const auto& sh : v.allocation_of(j)) {
        free_[sh.node] += sh.gpus;
        resv_used_[k * nn_ + sh.node] -= sh.gpus;
      }
      res_add(rfree_, v.allocation_of(j), +1);
    } else if (std::isfinite(kill)) {
      wake_special(out, kill);
    }
  }
}

}  // namespace floorsim::slurm
