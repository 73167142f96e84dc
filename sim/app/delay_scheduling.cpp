#include "sim/app/delay_scheduling.hpp"

#include <algorithm>
#include <numeric>

#include "sim/app/forwarding_scheduler.hpp"

namespace floorsim::app::delay {

using namespace cfg;

std::shared_ptr<const ObjectSpec> spec() {
  return obj("delay_scheduling", "delay scheduling (Dally): consolidation levels with a wait timer each, around the scheduler model",
             {choice("mode", {"none", "strict", "fixed", "auto"}, nullptr,
                     "none: start where the model places; strict: wait for the tightest level; fixed: timers; auto: timers from recent waits")
                  .must(),  // required, so a scenario without the block resolves it to null (off)
              number("machine_timer_s", 600.0, "wait for one machine before accepting one leaf (fixed; auto: the first value)").at_least(0).in_unit("s"),
              number("leaf_timer_s", 1200.0, "then wait for one leaf before accepting the network (fixed; auto: the first value)").at_least(0).in_unit("s"),
              integer("window", 20, "auto: recent multi-GPU starts per level whose mean wait is the timer").at_least(1).at_most(100000),
              number("machine_slowdown", 1.0, "runtime stretch of a multi-GPU job on one machine").at_least(1),
              number("leaf_slowdown", 1.1, "runtime stretch of a multi-GPU job spread under one leaf switch").at_least(1),
              number("network_slowdown", 1.5, "runtime stretch of a multi-GPU job spread over leaves").at_least(1)});
}

Params params_from(const json& r) {
  Params p;
  const std::string m = r["mode"];
  p.mode = m == "none" ? Mode::None : m == "strict" ? Mode::Strict : m == "auto" ? Mode::Auto : Mode::Fixed;
  p.timer_s = {r["machine_timer_s"].get<double>(), r["leaf_timer_s"].get<double>()};
  p.window = r["window"];
  p.slowdown = {r["machine_slowdown"].get<double>(), r["leaf_slowdown"].get<double>(), r["network_slowdown"].get<double>()};
  return p;
}

Level placement_level(std::span<const NodeShare> placement, std::span<const uint32_t> node_leaf) {
  if (placement.size() <= 1) return Level::Machine;
  for (const auto& s : placement)
    if (node_leaf[s.node] != node_leaf[placement.front().node]) return Level::Network;
  return Level::Leaf;
}

Level best_level(int32_t gpus, int32_t nodes, int32_t max_node_gpus, int64_t max_leaf_gpus) {
  if (nodes <= 1 && gpus <= max_node_gpus) return Level::Machine;
  if (gpus <= max_leaf_gpus) return Level::Leaf;
  return Level::Network;
}

Level allowed_level(Level best, SimTime submit_s, SimTime now_s, const std::array<double, 2>& timer_s) {
  double until = 0;
  int l = static_cast<int>(best);
  while (l < 2) {
    until += timer_s[l];
    if (until >= kNever || now_s < submit_s + until) break;
    ++l;
  }
  return static_cast<Level>(l);
}

SimTime next_relax_at(Level best, SimTime submit_s, SimTime now_s, const std::array<double, 2>& timer_s) {
  double until = 0;
  for (int l = static_cast<int>(best); l < 2; ++l) {
    until += timer_s[l];
    if (until >= kNever) return kNever;
    if (now_s < submit_s + until) return submit_s + until;
  }
  return kNever;
}

void AutoTimers::observe(Level started_at, double waited_s) {
  if (started_at == Level::Network) return;
  auto& q = recent_[static_cast<int>(started_at)];
  q.push_back(waited_s);
  if (q.size() > window_) q.pop_front();
  timer_s_[static_cast<int>(started_at)] = std::accumulate(q.begin(), q.end(), 0.0) / static_cast<double>(q.size());
}

namespace {

// Free GPUs per node, minus what this pass's kept starts take.
struct FreeGpus {
  std::vector<int32_t> free;
  void take(std::span<const NodeShare> p) {
    for (const auto& s : p) free[s.node] -= s.gpus;
  }
};

// A placement of `gpus` whole GPUs at `level` from `f` (one node; or one leaf, fullest nodes
// first so the others stay whole), or empty.
std::vector<NodeShare> place_at(int32_t gpus, Level level, const FreeGpus& f, std::span<const uint32_t> node_leaf) {
  std::vector<NodeShare> out;
  const size_t n = f.free.size();
  // One machine: the node with the fewest free GPUs that fits (best fit).
  int best = -1;
  for (size_t i = 0; i < n; ++i)
    if (f.free[i] >= gpus && (best < 0 || f.free[i] < f.free[best])) best = static_cast<int>(i);
  if (best >= 0) return {{static_cast<NodeIdx>(best), gpus}};
  if (level == Level::Machine) return out;
  // One leaf: the leaf with the fewest free GPUs that fits.
  std::vector<int64_t> leaf_free;
  for (size_t i = 0; i < n; ++i) {
    if (node_leaf[i] >= leaf_free.size()) leaf_free.resize(node_leaf[i] + 1, 0);
    leaf_free[node_leaf[i]] += std::max(0, f.free[i]);
  }
  int64_t leaf = -1;
  for (size_t l = 0; l < leaf_free.size(); ++l)
    if (leaf_free[l] >= gpus && (leaf < 0 || leaf_free[l] < leaf_free[leaf])) leaf = static_cast<int64_t>(l);
  if (leaf < 0) return out;  // the network level keeps the model's own placement
  std::vector<size_t> nodes;
  for (size_t i = 0; i < n; ++i)
    if (node_leaf[i] == static_cast<uint32_t>(leaf) && f.free[i] > 0) nodes.push_back(i);
  std::stable_sort(nodes.begin(), nodes.end(), [&](size_t a, size_t b) { return f.free[a] > f.free[b]; });
  int32_t left = gpus;
  for (size_t i : nodes) {
    if (left == 0) break;
    const int32_t g = std::min(left, f.free[i]);
    out.push_back({static_cast<NodeIdx>(i), g});
    left -= g;
  }
  return out;
}

class DelayScheduler final : public ForwardingScheduler {
 public:
  DelayScheduler(std::unique_ptr<Scheduler> inner, const Params& p)
      : ForwardingScheduler(std::move(inner)), p_(p), auto_(p.window, p.timer_s) {}

  void schedule(const Snapshot& view, Decisions& out) override;
  void on_job_event(const JobEvent& ev, const Snapshot& view) override;
  bool wants_job_events() const override { return true; }
  nlohmann::json report(const Snapshot& final_view) const override;

 private:
  std::array<double, 2> timers() const {
    if (p_.mode == Mode::Strict) return {kNever, kNever};
    if (p_.mode == Mode::Auto) return auto_.timers();
    return p_.timer_s;
  }
  Params p_;
  AutoTimers auto_;
  Decisions inner_out_;
  uint64_t held_ = 0, replaced_ = 0;
};

void DelayScheduler::schedule(const Snapshot& view, Decisions& out) {
  inner_out_.clear();
  inner().schedule(view, inner_out_);
  const auto& c = view.cluster;
  int64_t max_leaf = 0;
  {
    std::vector<int64_t> cap;
    for (size_t i = 0; i < c.nodes(); ++i) {
      if (c.node_leaf[i] >= cap.size()) cap.resize(c.node_leaf[i] + 1, 0);
      cap[c.node_leaf[i]] += c.capacity_gpus[i];
    }
    for (auto v : cap) max_leaf = std::max(max_leaf, v);
  }
  // Resources beyond GPUs (CPUs, memory) are the model's to place: then only hold, never re-place.
  const bool may_replace = c.free_cpus.empty() && c.free_mem_mib.empty();
  FreeGpus f{std::vector<int32_t>(c.free_gpus.begin(), c.free_gpus.end())};
  std::vector<const Decisions::Item*> later;
  for (const auto& it : inner_out_.items())
    if (it.kind == Decisions::Kind::Preempt) out.preempt(it.job, it.mode, it.by, it.grace_s);
  for (const auto& it : inner_out_.items()) {
    if (it.kind != Decisions::Kind::Start) continue;
    const JobSpec& j = view.jobs[it.job];
    const auto shares = inner_out_.shares(it);
    const bool judged = p_.mode != Mode::None && it.gpu < 0 && j.gpus > 1 && it.limit_override_s < 0;
    const Level best = best_level(j.gpus, j.nodes, c.max_node_gpus, max_leaf);
    if (!judged || placement_level(shares, c.node_leaf) <= allowed_level(best, j.submit_s, view.now, timers())) {
      if (it.gpu >= 0) out.start_packed(it.job, shares.front().node, it.gpu);
      else out.start(it.job, shares);
      // Decisions has no setter for a start's time-limit override (Slurm's NoReserve test start);
      // the item is ours, just written.
      if (it.limit_override_s >= 0) const_cast<Decisions::Item&>(out.items().back()).limit_override_s = it.limit_override_s;
      f.take(shares);
      continue;
    }
    later.push_back(&it);
  }
  // Starts the model placed looser than allowed: re-placed at the allowed level from what is
  // left, or held back until the next relaxation.
  for (const Decisions::Item* it : later) {
    const JobSpec& j = view.jobs[it->job];
    const Level best = best_level(j.gpus, j.nodes, c.max_node_gpus, max_leaf);
    const Level allowed = allowed_level(best, j.submit_s, view.now, timers());
    std::vector<NodeShare> p;
    if (may_replace && j.nodes == 0) p = place_at(j.gpus, allowed, f, c.node_leaf);
    if (!p.empty() && placement_level(p, c.node_leaf) <= allowed) {
      out.start(it->job, p);
      f.take(p);
      ++replaced_;
    } else {
      ++held_;
      const SimTime relax = next_relax_at(best, j.submit_s, view.now, timers());
      if (relax < kNever) out.wake_at(relax);
    }
  }
  for (const auto& r : inner_out_.reasons()) out.set_reason(r.job, r.code);
  if (inner_out_.wake_s() < kNever) out.wake_at(inner_out_.wake_s());
}

void DelayScheduler::on_job_event(const JobEvent& ev, const Snapshot& view) {
  if (inner().wants_job_events()) inner().on_job_event(ev, view);
  if (ev.kind != JobEvent::Kind::Started || view.jobs[ev.job].gpus <= 1) return;
  auto_.observe(placement_level(view.allocation_of(ev.job), view.cluster.node_leaf), ev.time_s - view.jobs[ev.job].submit_s);
}

nlohmann::json DelayScheduler::report(const Snapshot& final_view) const {
  nlohmann::json r = ForwardingScheduler::report(final_view);
  const auto t = timers();
  // Mean job completion time (end - submit) of the jobs that ended: Dally's second figure.
  double jct = 0;
  size_t ended = 0;
  for (size_t j = 0; j < final_view.jobs.size(); ++j)
    if (final_view.runs[j].end_s >= 0) {
      jct += final_view.runs[j].end_s - final_view.jobs[j].submit_s;
      ++ended;
    }
  r["delay_scheduling"] = {{"held_starts", held_}, {"replaced_starts", replaced_},
                           {"mean_jct_s", ended ? nlohmann::json(jct / static_cast<double>(ended)) : nlohmann::json(nullptr)},
                           {"machine_timer_s", t[0] >= kNever ? nlohmann::json(nullptr) : nlohmann::json(t[0])},
                           {"leaf_timer_s", t[1] >= kNever ? nlohmann::json(nullptr) : nlohmann::json(t[1])}};
  return r;
}

}  // namespace

std::unique_ptr<Scheduler> wrap(std::unique_ptr<Scheduler> inner, const Params& p) {
  return std::make_unique<DelayScheduler>(std::move(inner), p);
}

double ConsolidationRuntime::stretch(JobIdx j, std::span<const NodeShare> placement, const Snapshot& view) {
  if (view.jobs[j].gpus <= 1) return 1.0;
  const Level l = placement_level(placement, view.cluster.node_leaf);
  ++starts_[static_cast<int>(l)];
  return slowdown_[static_cast<int>(l)];
}

nlohmann::json ConsolidationRuntime::report() const {
  return {{"consolidation", {{"machine_starts", starts_[0]}, {"leaf_starts", starts_[1]}, {"network_starts", starts_[2]}}}};
}

}  // namespace floorsim::app::delay
