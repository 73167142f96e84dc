#include "schedulers/idle_pool/idle_pool.hpp"

#include <cmath>
#include <vector>

#include "schedulers/common/placement.hpp"

namespace floorsim::idle_pool {
namespace {

class IdlePool final : public Scheduler {
 public:
  IdlePool(std::unique_ptr<Scheduler> inner, Params p) : inner_(std::move(inner)), p_(p) {}

  std::string_view name() const override { return "idle_pool"; }

  void schedule(const Snapshot& view, Decisions& out) override {
    const size_t nn = view.cluster.nodes();
    held_idle_gpu_s_ += (view.now - last_now_) * static_cast<double>(last_held_gpus_);
    last_now_ = view.now;
    if (started_.size() < view.jobs.size()) started_.assign(view.jobs.size(), 0);
    if (chosen_.size() < view.jobs.size()) chosen_.assign(view.jobs.size(), 0);
    ++stamp_;

    // 1. The pool: the first `nodes` whole idle nodes (index order), hidden from the inner model.
    pool_.assign(nn, 0);
    masked_.assign(view.cluster.free_gpus.begin(), view.cluster.free_gpus.end());
    int64_t held = 0, masked_total = view.cluster.total_free_gpus;
    if (p_.mode == Mode::Hold) {
      int32_t count = 0;
      for (size_t n = 0; n < nn && count < p_.nodes; ++n)
        if (view.cluster.node_up[n] && view.cluster.free_gpus[n] == view.cluster.capacity_gpus[n]) {
          pool_[n] = 1;
          ++count;
          held += masked_[n];
          masked_total -= masked_[n];
          masked_[n] = 0;
        }
    }
    last_held_gpus_ = held;
    Snapshot inner_view = view;
    inner_view.cluster.free_gpus = masked_;
    inner_view.cluster.total_free_gpus = masked_total;

    // 0. Reduced-set fallbacks due now: cancel what has not started; the inner model does not
    // see those jobs in this pass.
    bool dropped = false;
    while (next_fallback_ < p_.fallbacks.size() && p_.fallbacks[next_fallback_].at_s <= view.now) {
      for (JobIdx j : p_.fallbacks[next_fallback_].jobs)
        if (view.runs[j].state == JobState::Pending && view.jobs[j].submit_s <= view.now && chosen_[j] != stamp_) {
          out.preempt(j, PreemptMode::Cancel, kNoJob);
          chosen_mark(j);
          ++fallback_drops_;
          dropped = true;
        }
      ++next_fallback_;
    }
    // The interactive class is placed by the controller only: the inner model never sees those
    // jobs (nor their events), so a stateful model (kueue) cannot start one twice.
    (void)dropped;
    filtered_.clear();
    for (JobIdx j : view.pending)
      if (chosen_[j] != stamp_ && view.jobs[j].klass != p_.for_class) filtered_.push_back(j);
    inner_view.pending = filtered_;
    if (next_fallback_ < p_.fallbacks.size() && (!view.running.empty() || !view.pending.empty()))
      out.wake_at(p_.fallbacks[next_fallback_].at_s);
    inner_->schedule(inner_view, out);

    // 2. What is really free after the inner model's starts.
    work_.assign(view.cluster.free_gpus.begin(), view.cluster.free_gpus.end());
    for (const auto& it : out.items())
      if (it.kind == Decisions::Kind::Start) {
        placement::take(work_, out.shares(it));
        started_[it.job] = stamp_;
      } else if (it.kind == Decisions::Kind::Preempt) {
        chosen_mark(it.job);
      }

    // 3. Interactive jobs the inner model left pending: first fit anywhere, the pool included;
    // in on_demand mode, requeue preemptible jobs LIFO to make room.
    for (JobIdx j : view.pending) {
      const JobSpec& js = view.jobs[j];
      if (js.klass != p_.for_class || started_[j] == stamp_ || chosen_[j] == stamp_ || !view.eligible(j) ||
          view.runs[j].state != JobState::Pending)
        continue;
      if (placement::first_fit(js, work_, place_)) {
        out.start(j, place_);
        placement::take(work_, place_);
        started_[j] = stamp_;
        ++interactive_starts_;
        continue;
      }
      if (p_.mode != Mode::OnDemand) continue;
      sim_ = work_;
      victims_.clear();
      bool fits = false;
      for (auto it = view.running.rbegin(); it != view.running.rend() && !fits; ++it) {
        if (!victim_ok(view, *it)) continue;
        victims_.push_back(*it);
        placement::give(sim_, view.allocation_of(*it));
        fits = placement::first_fit(js, sim_, place_);
      }
      if (!fits) continue;
      for (JobIdx v : victims_) {
        out.preempt(v, PreemptMode::Requeue, j);
        chosen_mark(v);
        ++controller_preemptions_;
      }
      work_ = sim_;
      out.start(j, place_);
      placement::take(work_, place_);
      started_[j] = stamp_;
      ++interactive_starts_;
    }

    // 4. The controller tick (hold): requeue preemptible jobs LIFO until `nodes` nodes are idle.
    if (p_.mode == Mode::Hold && p_.nodes > 0 && view.now >= next_tick_) {
      ++ticks_;
      next_tick_ = (std::floor(view.now / p_.interval_s) + 1) * p_.interval_s;
      int32_t idle = count_idle(view, work_);
      for (auto it = view.running.rbegin(); it != view.running.rend() && idle < p_.nodes; ++it) {
        if (!victim_ok(view, *it)) continue;
        out.preempt(*it, PreemptMode::Requeue, kNoJob);
        chosen_mark(*it);
        ++controller_preemptions_;
        placement::give(work_, view.allocation_of(*it));
        idle = count_idle(view, work_);
      }
    }
    // Ticks continue while anything runs (nothing to protect the pool from otherwise).
    if (p_.mode == Mode::Hold && p_.nodes > 0 && !view.running.empty()) {
      if (next_tick_ <= view.now) next_tick_ = (std::floor(view.now / p_.interval_s) + 1) * p_.interval_s;
      out.wake_at(next_tick_);
    }
  }

  void on_job_event(const JobEvent& ev, const Snapshot& view) override {
    // Of the interactive jobs only their ends are told: capacity came back, which event-driven
    // models (kueue's jobs waiting for nodes) need to retry; they never knew the job itself.
    if (view.jobs[ev.job].klass != p_.for_class || ev.kind == JobEvent::Kind::Ended) inner_->on_job_event(ev, view);
  }
  bool wants_job_events() const override { return inner_->wants_job_events(); }
  ChangeOutcome on_policy_change(const PolicyChange& c, const Snapshot& v, Decisions& out) override {
    return inner_->on_policy_change(c, v, out);
  }
  ChangeScope change_scope(const PolicyChange& c, const Snapshot& v) const override { return inner_->change_scope(c, v); }
  std::string_view reason_name(uint16_t code) const override { return inner_->reason_name(code); }
  std::vector<std::string> extra_columns() const override { return inner_->extra_columns(); }
  void extra_values(JobIdx job, std::vector<std::string>& out) const override { inner_->extra_values(job, out); }
  nlohmann::json report(const Snapshot& final_view) const override {
    nlohmann::json r = inner_->report(final_view);
    if (!r.is_object()) r = nlohmann::json::object();
    r["idle_pool"] = {{"mode", p_.mode == Mode::Hold ? "hold" : "on_demand"},
                      {"nodes", p_.nodes},
                      {"ticks", ticks_},
                      {"controller_preemptions", controller_preemptions_},
                      {"interactive_starts_outside_model", interactive_starts_},
                      {"held_idle_gpu_s", held_idle_gpu_s_},
                      {"fallback_dropped_jobs", fallback_drops_}};
    return r;
  }

 private:
  bool victim_ok(const Snapshot& view, JobIdx j) const {
    const JobSpec& js = view.jobs[j];
    const JobRun& r = view.runs[j];
    return js.preemptible && js.klass != p_.for_class && r.state == JobState::Running && r.stop_s < 0 &&
           chosen_[j] != stamp_ && view.now - r.start_s >= p_.preempt_exempt_s;
  }
  void chosen_mark(JobIdx j) { chosen_[j] = stamp_; }
  static int32_t count_idle(const Snapshot& view, const std::vector<int32_t>& free) {
    int32_t idle = 0;
    for (size_t n = 0; n < free.size(); ++n)
      idle += view.cluster.node_up[n] && free[n] == view.cluster.capacity_gpus[n];
    return idle;
  }

  std::unique_ptr<Scheduler> inner_;
  Params p_;
  std::vector<int32_t> masked_, work_, sim_;
  std::vector<uint8_t> pool_;
  std::vector<uint32_t> started_, chosen_;  // pass stamps by JobIdx (no clearing per pass)
  std::vector<NodeShare> place_;
  std::vector<JobIdx> victims_, filtered_;
  size_t next_fallback_ = 0;
  uint64_t fallback_drops_ = 0;
  uint32_t stamp_ = 0;
  SimTime next_tick_ = 0, last_now_ = 0;
  int64_t last_held_gpus_ = 0;
  double held_idle_gpu_s_ = 0;
  uint64_t ticks_ = 0, controller_preemptions_ = 0, interactive_starts_ = 0;
};

}  // namespace

std::unique_ptr<Scheduler> wrap(std::unique_ptr<Scheduler> inner, Params p) {
  return std::make_unique<IdlePool>(std::move(inner), p);
}

}  // namespace floorsim::idle_pool
