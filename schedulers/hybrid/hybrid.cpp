#include "schedulers/hybrid/hybrid.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace floorsim::hybrid {
namespace {

constexpr uint16_t kSideBit = 0x4000;  // Kubernetes-side pending-reason codes carry this bit

// What one side's model sees: the engine's snapshot with the nodes it does not hold marked
// down (no free GPUs, CPUs or memory), and only its own pending and running jobs.
struct SideView {
  std::vector<int32_t> free_gpus, free_cpus, free_mem;
  std::vector<uint8_t> up;
  std::vector<JobIdx> pending, running;
  Snapshot view;
};

class Hybrid final : public Scheduler {
 public:
  Hybrid(std::unique_ptr<Scheduler> a, std::unique_ptr<Scheduler> b, Layout l) : child_{std::move(a), std::move(b)}, l_(std::move(l)) {
    nodes_.resize(l_.node_home.size());
    for (size_t n = 0; n < nodes_.size(); ++n) nodes_[n].home = nodes_[n].holder = l_.node_home[n];
  }

  std::string_view name() const override { return "hybrid"; }
  void schedule(const Snapshot& view, Decisions& out) override;
  void on_job_event(const JobEvent& ev, const Snapshot& view) override {
    Scheduler& c = *child_[side(ev.job)];
    if (!c.wants_job_events()) return;
    restrict(view, l_.job_side[ev.job], sv_[side(ev.job)]);
    c.on_job_event(ev, sv_[side(ev.job)].view);
  }
  bool wants_job_events() const override { return child_[0]->wants_job_events() || child_[1]->wants_job_events(); }
  std::string_view reason_name(uint16_t code) const override {
    if (code == 0) return "None";
    return child_[(code & kSideBit) ? 1 : 0]->reason_name(code & ~kSideBit);
  }
  std::vector<std::string> extra_columns() const override;
  void extra_values(JobIdx job, std::vector<std::string>& out) const override;
  nlohmann::json report(const Snapshot& final_view) const override;

 private:
  int side(JobIdx j) const { return static_cast<int>(l_.job_side[j]); }
  void restrict(const Snapshot& v, Side s, SideView& sv) const;
  std::array<Demand, 2> demand(const Snapshot& v) const;
  void account(SimTime now);  // integrates lent node-seconds up to now
  void recount();

  std::array<std::unique_ptr<Scheduler>, 2> child_;
  Layout l_;
  std::vector<NodeState> nodes_;
  std::array<SideView, 2> sv_;
  std::array<Decisions, 2> buf_;
  std::vector<uint8_t> idle_, reclaim_preempted_;
  std::vector<JobIdx> preempted_now_;  // by a reclaim, in this pass
  // Accounting: lent node-seconds integrate the number of nodes away from home over time.
  SimTime last_now_ = 0;
  size_t away_now_ = 0;
  double lent_node_s_ = 0;
  uint64_t lends_ = 0, returns_ = 0, reclaims_ = 0, reclaim_preemptions_ = 0;
};

void Hybrid::restrict(const Snapshot& v, Side s, SideView& sv) const {
  const auto& c = v.cluster;
  const size_t nn = c.nodes();
  sv.view = v;
  sv.free_gpus.assign(c.free_gpus.begin(), c.free_gpus.end());
  sv.up.assign(c.node_up.begin(), c.node_up.end());
  sv.free_cpus.assign(c.free_cpus.begin(), c.free_cpus.end());
  sv.free_mem.assign(c.free_mem_mib.begin(), c.free_mem_mib.end());
  int64_t free_total = 0, up_total = 0;
  for (size_t n = 0; n < nn; ++n) {
    if (!usable_by(nodes_[n], s)) {
      sv.free_gpus[n] = 0;
      sv.up[n] = 0;
      if (!sv.free_cpus.empty()) sv.free_cpus[n] = 0;
      if (!sv.free_mem.empty()) sv.free_mem[n] = 0;
    }
    if (sv.up[n]) {
      free_total += sv.free_gpus[n];
      up_total += c.capacity_gpus[n];
    }
  }
  sv.pending.clear();
  for (JobIdx j : v.pending)
    if (l_.job_side[j] == s) sv.pending.push_back(j);
  sv.running.clear();
  for (JobIdx j : v.running)
    if (l_.job_side[j] == s) sv.running.push_back(j);
  sv.view.cluster.free_gpus = sv.free_gpus;
  sv.view.cluster.node_up = sv.up;
  sv.view.cluster.free_cpus = sv.free_cpus;
  sv.view.cluster.free_mem_mib = sv.free_mem;
  sv.view.cluster.total_free_gpus = free_total;
  sv.view.cluster.total_up_gpus = up_total;
  sv.view.pending = sv.pending;
  sv.view.running = sv.running;
}

// Each side's eligible pending GPUs beyond the free GPUs on the nodes it may start work on.
std::array<Demand, 2> Hybrid::demand(const Snapshot& v) const {
  std::array<Demand, 2> d;
  for (JobIdx j : v.pending)
    if (v.eligible(j) && !v.runs[j].suspended) {
      d[side(j)].pending = true;
      d[side(j)].unmet_gpus += v.jobs[j].gpus;
    }
  for (size_t n = 0; n < nodes_.size(); ++n)
    if (!nodes_[n].reclaiming && v.cluster.node_up[n]) d[static_cast<int>(nodes_[n].holder)].unmet_gpus -= v.cluster.free_gpus[n];
  for (auto& x : d) x.unmet_gpus = std::max<int64_t>(0, x.unmet_gpus);
  return d;
}

void Hybrid::account(SimTime now) {
  lent_node_s_ += (now - last_now_) * static_cast<double>(away_now_);
  last_now_ = now;
}

void Hybrid::recount() {
  away_now_ = 0;
  for (const auto& n : nodes_) away_now_ += n.holder != n.home || n.reclaiming;
}

void Hybrid::schedule(const Snapshot& v, Decisions& out) {
  const size_t nn = v.cluster.nodes();
  if (reclaim_preempted_.size() < v.jobs.size()) reclaim_preempted_.assign(v.jobs.size(), 0);
  account(v.now);
  idle_.assign(nn, 0);
  for (size_t n = 0; n < nn; ++n) idle_[n] = v.cluster.node_up[n] && v.cluster.free_gpus[n] == v.cluster.capacity_gpus[n];
  LendStep st = lend_step(l_.lending, v.now, demand(v), idle_, v.cluster.capacity_gpus, nodes_);
  nodes_ = std::move(st.nodes);
  lends_ += st.lent.size();
  returns_ += st.returned.size();
  reclaims_ += st.reclaim_started.size();
  recount();
  // Preempt-mode reclaim: the borrowed jobs on a node being taken back are requeued after the
  // grace time (the engine keeps them running until then).
  preempted_now_.clear();
  if (!st.preempt_now.empty()) {
    std::vector<uint8_t> hit(nn, 0);
    for (NodeIdx n : st.preempt_now) hit[n] = 1;
    for (JobIdx j : v.running) {
      if (reclaim_preempted_[j] || v.runs[j].stop_s >= 0) continue;
      for (const auto& s : v.allocation_of(j))
        if (hit[s.node] && l_.job_side[j] != nodes_[s.node].home) {
          // A job that may not be requeued is cancelled, as Slurm's PreemptMode=REQUEUE does.
          out.preempt(j, v.jobs[j].requeueable ? PreemptMode::Requeue : PreemptMode::Cancel, kNoJob, l_.lending.reclaim_grace_s);
          reclaim_preempted_[j] = 1;
          preempted_now_.push_back(j);
          ++reclaim_preemptions_;
          break;
        }
    }
  }
  for (JobIdx j : v.pending) reclaim_preempted_[j] = 0;  // requeued: may be preempted again on a later run
  // The two models, each on its own view; their decisions are copied in order (preemptions
  // first, as the engine applies them, then starts).
  for (int s = 0; s < 2; ++s) {
    restrict(v, static_cast<Side>(s), sv_[s]);
    buf_[s].clear();
    child_[s]->schedule(sv_[s].view, buf_[s]);
  }
  for (int s = 0; s < 2; ++s)
    for (const auto& it : buf_[s].items())
      // A job the reclaim already preempts in this pass is not preempted twice.
      if (it.kind == Decisions::Kind::Preempt && std::find(preempted_now_.begin(), preempted_now_.end(), it.job) == preempted_now_.end())
        out.preempt(it.job, it.mode, it.by, it.grace_s);
  for (int s = 0; s < 2; ++s) {
    for (const auto& it : buf_[s].items()) {
      if (it.kind != Decisions::Kind::Start) continue;
      const auto shares = buf_[s].shares(it);
      // A model only sees its own nodes up; a start elsewhere is a bug in the restriction.
      for (const auto& sh : shares)
        if (!usable_by(nodes_[sh.node], static_cast<Side>(s)))
          throw std::logic_error(fmt::format("hybrid: the {} side started job {} on a node it does not hold",
                                             s == 0 ? "Slurm" : "Kubernetes", v.jobs[it.job].id));
      out.start(it.job, shares);
      // Decisions has no setter for a start's time-limit override (Slurm's NoReserve test start);
      // the item is ours, just written.
      if (it.limit_override_s >= 0) const_cast<Decisions::Item&>(out.items().back()).limit_override_s = it.limit_override_s;
    }
    for (const auto& r : buf_[s].reasons()) out.set_reason(r.job, r.code == 0 ? 0 : static_cast<uint16_t>(r.code | (s ? kSideBit : 0)));
    if (buf_[s].wake_s() < kNever) out.wake_at(buf_[s].wake_s());
  }
  if (st.wake_s < kNever) out.wake_at(st.wake_s);
}

std::vector<std::string> Hybrid::extra_columns() const {
  std::vector<std::string> cols = {"side"};
  for (const auto& c : child_[0]->extra_columns()) cols.push_back("slurm_" + c);
  for (const auto& c : child_[1]->extra_columns()) cols.push_back("kubernetes_" + c);
  return cols;
}

void Hybrid::extra_values(JobIdx job, std::vector<std::string>& out) const {
  const size_t n0 = child_[0]->extra_columns().size(), n1 = child_[1]->extra_columns().size();
  out.push_back(side(job) == 0 ? "slurm" : "kubernetes");
  if (side(job) == 0) child_[0]->extra_values(job, out);
  else out.insert(out.end(), n0, "");
  if (side(job) == 1) child_[1]->extra_values(job, out);
  else out.insert(out.end(), n1, "");
}

nlohmann::json Hybrid::report(const Snapshot& fv) const {
  const double lent = lent_node_s_ + (fv.now - last_now_) * static_cast<double>(away_now_);
  nlohmann::json sides = nlohmann::json::object();
  for (int s = 0; s < 2; ++s) {
    std::vector<double> waits;
    size_t jobs = 0;
    size_t nodes = 0;
    for (const auto& n : nodes_) nodes += static_cast<int>(n.home) == s;
    for (size_t j = 0; j < fv.jobs.size(); ++j) {
      if (side(static_cast<JobIdx>(j)) != s) continue;
      ++jobs;
      if (fv.runs[j].first_start_s >= 0) waits.push_back(fv.runs[j].first_start_s - fv.jobs[j].submit_s);
    }
    std::sort(waits.begin(), waits.end());
    double sum = 0;
    for (double w : waits) sum += w;
    auto q = [&](double f) { return waits.empty() ? nlohmann::json(nullptr) : nlohmann::json(waits[static_cast<size_t>(f * static_cast<double>(waits.size() - 1))]); };
    sides[s == 0 ? "slurm" : "kubernetes"] = {
        {"model", std::string(child_[s]->name())}, {"home_nodes", nodes}, {"jobs", jobs}, {"started", waits.size()},
        {"mean_wait_s", waits.empty() ? nlohmann::json(nullptr) : nlohmann::json(sum / static_cast<double>(waits.size()))},
        {"p95_wait_s", q(0.95)}, {"max_wait_s", q(1.0)}, {"model_report", child_[s]->report(fv)}};
  }
  nlohmann::json r;
  r["hybrid"] = {{"lending", l_.lending.enabled}, {"lent_node_s", lent}, {"lends", lends_}, {"returns", returns_},
                 {"reclaims", reclaims_}, {"reclaim_preemptions", reclaim_preemptions_}, {"sides", sides}};
  return r;
}

}  // namespace

std::unique_ptr<Scheduler> make_hybrid(std::unique_ptr<Scheduler> a, std::unique_ptr<Scheduler> b, Layout l) {
  return std::make_unique<Hybrid>(std::move(a), std::move(b), std::move(l));
}

}  // namespace floorsim::hybrid
