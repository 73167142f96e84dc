#include "sim/core/engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

namespace floorsim {

Engine::Engine(const Workload& workload, const ClusterConfig& cluster, Scheduler& scheduler,
               EngineConfig config, std::vector<int32_t> floors)
    : wl_(workload), cluster_(cluster), sched_(scheduler), cfg_(config) {
  runs_.resize(wl_.jobs.size());
  removed_.resize(wl_.jobs.size(), 0);
  archived_.resize(wl_.jobs.size(), false);
  free_gpus_ = cluster_.node_gpus;
  node_up_.assign(cluster_.nodes(), 1);
  node_stamp_.assign(cluster_.nodes(), 0);
  for (auto g : free_gpus_) total_free_ += g;
  total_up_ = total_free_;
  if (cluster_.gives_cpus()) cap_cpus_ = free_cpus_ = cluster_.node_cpus;
  if (cluster_.gives_mem()) {
    for (auto b : cluster_.node_mem_bytes) {
      // Shares count memory in 32-bit MiB: up to 2 PiB a node.
      if ((b >> 20) > INT32_MAX) throw std::invalid_argument(fmt::format("a node gives {} bytes of memory; at most 2 PiB is modelled", b));
      cap_mem_.push_back(static_cast<int32_t>(b >> 20));
    }
    free_mem_ = cap_mem_;
  }
  floors.resize(std::max(floors.size(), wl_.strings.size()), 0);
  ledger_.init(std::move(floors), cfg_.keep_timeline);
  // Generous reservations so that steady-state passes never reallocate.
  pending_.reserve(1024);
  running_.reserve(1024);
  alloc_pool_.reserve(2 * cluster_.nodes() + 1024);
  if (!wl_.jobs.empty()) stats_.first_submit_s = wl_.jobs.front().submit_s;
  notify_ = sched_.wants_job_events();
  max_node_gpus_ = cluster_.max_node_gpus();
  if (sched_.packs_gpu_fractions())
    for (const auto& j : wl_.jobs) packing_ = packing_ || j.gpu_milli > 0;
  if (packing_) {
    uint32_t slot = 0;
    for (auto g : cluster_.node_gpus) {
      gpu_first_.push_back(slot);
      slot += static_cast<uint32_t>(g);
    }
    gpu_used_milli_.assign(slot, 0);
    frac_alloc_milli_.assign(wl_.strings.size(), 0);
    frac_demand_milli_.assign(wl_.strings.size(), 0);
  }
  if (cfg_.check_invariants) inv_ = std::make_unique<InvariantChecker>(*this);
  watchdog_ = ProgressWatchdog(cfg_.watchdog);
}

// A class's packed jobs are charged to the ledger as the ceiling of their summed share (four
// 0.25-GPU jobs = one GPU), so floors in GPUs compare like with like.
void Engine::ledger_share(const JobSpec& js, int sign, bool alloc) {
  int64_t& milli = (alloc ? frac_alloc_milli_ : frac_demand_milli_)[js.klass];
  const int64_t before = (milli + 999) / 1000;
  milli += sign * js.gpu_milli;
  const int64_t d = (milli + 999) / 1000 - before;
  if (d == 0) return;
  if (alloc) ledger_.add_alloc(js.klass, d);
  else ledger_.add_demand(js.klass, d);
}

void Engine::release_slot(JobIdx j) {
  JobRun& r = runs_[j];
  const NodeIdx n = alloc_pool_[r.alloc_offset].node;
  gpu_used_milli_[r.gpu_slot] -= wl_.jobs[j].gpu_milli;
  if (gpu_used_milli_[r.gpu_slot] == 0 && node_up_[n]) {  // the last share leaves: the GPU is free
    ++free_gpus_[n];
    ++total_free_;
  }
  r.gpu_slot = -1;
}

Engine::~Engine() = default;

std::span<const NodeShare> Engine::final_allocation(JobIdx j) const {
  const JobRun& r = runs_[j];
  if (!archived_[j]) return live_allocation(j);
  archive_.read(r.alloc_offset, r.alloc_count, archived_scratch_);
  return archived_scratch_;
}

// Called before a start appends `shares` to the pool. Never during a scheduler's pass (starts
// are applied after it), and a stopped job's placement stays in the pool until here, so models
// read it in the job's end event as before.
void Engine::make_room(size_t shares) {
  if (alloc_pool_.size() + shares <= alloc_pool_.capacity()) return;
  size_t w = 0, read = 0;
  size_t seg_w = 0;
  for (const auto& [j, count] : pool_segments_) {
    JobRun& r = runs_[j];
    const bool latest = !archived_[j] && r.alloc_offset == read && r.alloc_count == count;
    if (latest && r.state == JobState::Running) {
      std::copy(alloc_pool_.begin() + static_cast<std::ptrdiff_t>(read), alloc_pool_.begin() + static_cast<std::ptrdiff_t>(read + count),
                alloc_pool_.begin() + static_cast<std::ptrdiff_t>(w));
      r.alloc_offset = static_cast<uint32_t>(w);
      w += count;
      pool_segments_[seg_w++] = {j, count};
    } else if (latest) {
      const uint64_t at = archive_.add(std::span<const NodeShare>(alloc_pool_).subspan(read, count));
      if (at > UINT32_MAX) throw std::length_error("more than 4 GiB of finished jobs' placements");
      r.alloc_offset = static_cast<uint32_t>(at);
      archived_[j] = true;
    }  // else an earlier run's placement of a job started again since: dropped
    read += count;
  }
  alloc_pool_.resize(w);
  pool_segments_.resize(seg_w);
  // Keep the pool at most half full after compacting, so compactions stay rare.
  if (alloc_pool_.size() + shares > alloc_pool_.capacity() / 2)
    alloc_pool_.reserve(2 * (alloc_pool_.size() + shares));
}

void Engine::add_node_events(std::vector<NodeEvent> events) {
  for (auto& e : events) {
    if (e.node >= cluster_.nodes()) throw std::out_of_range("node event for unknown node");
    node_events_.push_back(e);
    push(e.at_s, EventKind::Node, static_cast<uint32_t>(node_events_.size() - 1));
  }
}

void Engine::set_runtime_model(RuntimeModel* m) {
  runtime_model_ = m;
  stretch_.assign(m ? wl_.jobs.size() : 0, 1.0);
}

void Engine::add_policy_changes(std::span<const PolicyChange> changes, ChangeGate* gate) {
  changes_ = changes;
  gate_ = gate;
  for (size_t i = 0; i < changes.size(); ++i) push(changes[i].at_s, EventKind::Change, static_cast<uint32_t>(i));
}

void Engine::push(SimTime t, EventKind k, uint32_t a, uint32_t b) {
  if (inv_) inv_->on_push(t);
  if (k != EventKind::Wake) ++queued_other_;
  events_.push({t, k, seq_++, a, b});
}

Snapshot Engine::snapshot() const {
  Snapshot s;
  s.now = now_;
  s.jobs = wl_.jobs;
  s.runs = runs_;
  s.pending = std::span<const JobIdx>(pending_).subspan(pending_head_);
  s.running = running_;
  s.allocations = alloc_pool_;
  s.cluster.capacity_gpus = cluster_.node_gpus;
  s.cluster.free_gpus = free_gpus_;
  s.cluster.node_up = node_up_;
  s.cluster.node_leaf = cluster_.node_leaf;
  s.cluster.total_free_gpus = total_free_;
  s.cluster.total_up_gpus = total_up_;
  s.cluster.max_node_gpus = max_node_gpus_;
  s.cluster.gpu_used_milli = gpu_used_milli_;
  s.cluster.gpu_first = gpu_first_;
  s.cluster.capacity_cpus = cap_cpus_;
  s.cluster.free_cpus = free_cpus_;
  s.cluster.capacity_mem_mib = cap_mem_;
  s.cluster.free_mem_mib = free_mem_;
  s.strings = &wl_.strings;
  return s;
}

void Engine::notify(JobEvent::Kind kind, JobIdx j, JobState s) {
  if (notify_) sched_.on_job_event(JobEvent{kind, j, now_, s}, snapshot());
}

void Engine::run() {
  const auto& jobs = wl_.jobs;
  for (;;) {
    // Next timestamp: the earlier of the event heap and the submission cursor.
    SimTime t = kNever;
    if (!events_.empty()) t = events_.top().time_s;
    if (next_submit_ < jobs.size()) t = std::min(t, jobs[next_submit_].submit_s);
    if (t == kNever || t > cfg_.horizon_s) break;
    if (t < now_) throw std::logic_error("event in the past");
    if (inv_) inv_->advance(t);
    ledger_.advance(t);
    now_ = t;

    // 1-4: ends, stops, node events, policy changes (heap order: kind, then sequence).
    while (!events_.empty() && events_.top().time_s == t &&
           static_cast<int>(events_.top().kind) < 4) {
      Event ev = events_.top();
      events_.pop();
      handle(ev);
      if (inv_) inv_->after_event("an event");
    }
    // 5: submissions at t.
    while (next_submit_ < jobs.size() && jobs[next_submit_].submit_s == t) {
      submit(static_cast<JobIdx>(next_submit_++));
      if (inv_) inv_->after_event("a submission");
    }
    // 6: wake-ups.
    while (!events_.empty() && events_.top().time_s == t) {
      Event ev = events_.top();
      events_.pop();
      handle(ev);
      if (inv_) inv_->after_event("an event");
    }
    if (need_pass_) pass();
    ledger_.record(now_);
  }
  if (inv_) check_invariants();  // the full sweep, once: the incremental checks' bookkeeping agrees
  // Whatever never started is reported as such.
  for (size_t i = pending_head_; i < pending_.size(); ++i) {
    const JobIdx j = pending_[i];
    if (!removed_[j]) runs_[j].state = JobState::Unstarted;
  }
}

void Engine::handle(const Event& ev) {
  ++stats_.events;
  if (ev.kind != EventKind::Wake) --queued_other_;
  switch (ev.kind) {
    case EventKind::End: {
      JobRun& r = runs_[ev.a];
      if (r.state != JobState::Running || r.epoch != ev.b) return;  // stale: preempted or killed
      // Decided at start, not recomputed here: end - start can round below the runtime.
      finish_job(ev.a, r.ends_by_limit ? JobState::TimedOut : JobState::Completed);
      break;
    }
    case EventKind::Stop: {
      JobRun& r = runs_[ev.a];
      if (r.state != JobState::Running || r.epoch != ev.b) return;
      stop_job(ev.a, static_cast<StopKind>(r.stop_how));
      break;
    }
    case EventKind::Node:
      node_event(node_events_[ev.a]);
      break;
    case EventKind::Change:
      policy_change(ev.a);
      break;
    case EventKind::Wake:
      pending_wakes_.erase(ev.time_s);
      need_pass_ = true;
      break;
  }
}

void Engine::submit(JobIdx j) {
  ++stats_.events;
  ++progress_;
  JobRun& r = runs_[j];
  r.eligible_s = now_;
  r.queued_s = now_;
  if (inv_) inv_->touch(j);
  enqueue(j);
  ledger_demand(wl_.jobs[j], +1);
  notify(JobEvent::Kind::Submitted, j);
  need_pass_ = true;
}

void Engine::enqueue(JobIdx j) {
  if (inv_) inv_->touch(j);
  runs_[j].state = JobState::Pending;
  // Started and stopped within one batch of decisions: its old entry is still in pending_,
  // marked removed. Drop it first, or clearing the mark would bring it back (queued twice).
  if (removed_[j]) compact_pending();
  removed_[j] = 0;
  // Keep (queued_s, id) order. New submissions and requeues arrive with queued_s = now, which
  // is never earlier than anything queued, so this is an append except for resumed suspensions.
  auto key_less = [&](JobIdx a, JobIdx b) {
    const auto &ra = runs_[a], &rb = runs_[b];
    if (ra.queued_s != rb.queued_s) return ra.queued_s < rb.queued_s;
    return wl_.jobs[a].id != wl_.jobs[b].id ? wl_.jobs[a].id < wl_.jobs[b].id : a < b;
  };
  if (pending_.size() == pending_head_ || !key_less(j, pending_.back())) {
    pending_.push_back(j);
  } else {
    compact_pending();
    auto pos = std::upper_bound(pending_.begin() + static_cast<std::ptrdiff_t>(pending_head_), pending_.end(), j, key_less);
    pending_.insert(pos, j);
  }
}

void Engine::remove_pending(JobIdx j) {
  removed_[j] = 1;
  ++removed_count_;
}

void Engine::compact_pending() {
  if (removed_count_ == 0) return;
  // Fast path: removals form a prefix of the queue (FIFO-like starts).
  while (pending_head_ < pending_.size() && removed_[pending_[pending_head_]]) {
    removed_[pending_[pending_head_]] = 0;
    ++pending_head_;
    --removed_count_;
  }
  if (removed_count_ > 0) {
    size_t w = pending_head_;
    for (size_t i = pending_head_; i < pending_.size(); ++i) {
      const JobIdx j = pending_[i];
      if (removed_[j]) {
        removed_[j] = 0;
        continue;
      }
      pending_[w++] = j;
    }
    pending_.resize(w);
    removed_count_ = 0;
  }
  if (pending_head_ > 4096 && pending_head_ * 2 > pending_.size()) {
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(pending_head_));
    pending_head_ = 0;
  }
}

void Engine::pass() {
  need_pass_ = false;
  ++stats_.passes;
  decisions_.clear();
  sched_.schedule(snapshot(), decisions_);
  apply(decisions_);
  for (const auto& rs : decisions_.reasons()) {
    JobRun& r = runs_[rs.job];
    // A job this pass cancelled keeps the reason given with it (a model's refusal at submission).
    if (r.state == JobState::Pending || (r.state == JobState::Cancelled && r.end_s == now_)) r.reason = rs.code;
  }
  SimTime wake = decisions_.wake_s();
  if (cfg_.sched_interval_s > 0 && pending_.size() > pending_head_)
    wake = std::min(wake, now_ + cfg_.sched_interval_s);
  if (wake != kNever) {
    // A wake-up at the current time is another pass at it (the watchdog bounds how many).
    if (wake < now_) throw std::logic_error(fmt::format("{} asked for a pass at {} (now {})", sched_.name(), wake, now_));
    if (pending_wakes_.insert(wake).second) push(wake, EventKind::Wake, 0);
  }
  watch();
}

void Engine::watch() {
  const bool only_wakeups = queued_other_ == 0 && next_submit_ == wl_.jobs.size();
  const auto stall = watchdog_.after_pass(now_, progress_, only_wakeups);
  if (stall == ProgressWatchdog::Stall::None) return;
  const size_t pending = pending_.size() - pending_head_ - removed_count_;
  if (stall == ProgressWatchdog::Stall::AtInstant)
    throw NoProgressError(fmt::format(
        "{}: {} scheduler passes at t={} s with no job submitted, started, ended or preempted; the model "
        "keeps asking for another pass at the same instant, so simulated time cannot advance",
        sched_.name(), watchdog_.passes_at_instant(), now_));
  throw NoProgressError(fmt::format(
      "{}: {} scheduler passes from t={} s to t={} s with no job started, ended or preempted, and nothing "
      "left to happen but its wake-ups ({} jobs pending and {} running); the model would wake up for ever",
      sched_.name(), watchdog_.idle_wakeups(), watchdog_.idle_since_s(), now_, pending, running_.size()));
}

void Engine::apply(const Decisions& d) {
  for (const auto& it : d.items()) {
    if (it.job >= runs_.size()) throw std::logic_error(fmt::format("{}: decision for unknown job index {}", sched_.name(), it.job));
    JobRun& r = runs_[it.job];
    if (it.kind == Decisions::Kind::Start) {
      start_job(it.job, d.shares(it), it.limit_override_s, it.gpu, it.admitted_gpus, it.work_scale);
      if (inv_) inv_->after_event("a start decision");
      continue;
    }
    // Preemption (or cancellation of a pending job).
    if (r.state == JobState::Pending && it.mode == PreemptMode::Cancel) {
      remove_pending(it.job);
      ledger_demand(wl_.jobs[it.job], -1);
      finish_job(it.job, JobState::Cancelled);
      if (inv_) inv_->after_event("a cancel decision");
      continue;
    }
    if (r.state != JobState::Running)
      throw std::logic_error(fmt::format("{}: preempts job {} which is not running", sched_.name(), wl_.jobs[it.job].id));
    ++stats_.preemptions;
    ++r.preemptions;
    if (it.by != kNoJob && runs_[it.by].preemptions > 0) {
      ++stats_.cascade_preemptions;
      ++r.cascade_preemptions;
    }
    const StopKind how = it.mode == PreemptMode::Requeue ? StopKind::Requeue
                         : it.mode == PreemptMode::Cancel ? StopKind::Cancel : StopKind::Suspend;
    notify(JobEvent::Kind::Preempted, it.job, r.state);
    if (it.grace_s > 0) {
      if (r.stop_s >= 0) continue;  // already stopping
      r.stop_s = now_ + it.grace_s;
      r.stop_how = static_cast<uint8_t>(how);
      push(r.stop_s, EventKind::Stop, it.job, r.epoch);
    } else {
      stop_job(it.job, how);
    }
    if (inv_) inv_->after_event("a preempt decision");
  }
  compact_pending();
}

void Engine::start_job(JobIdx j, std::span<const NodeShare> placement, SimTime limit_override_s, int32_t gpu,
                       int32_t admitted_gpus, double work_scale) {
  const JobSpec& js = wl_.jobs[j];
  JobRun& r = runs_[j];
  auto bad = [&](const std::string& why) {
    throw std::logic_error(fmt::format("{}: invalid start of job {}: {}", sched_.name(), js.id, why));
  };
  if (r.state != JobState::Pending || removed_[j]) bad("not pending");
  if (r.eligible_s > now_) bad("not yet eligible");
  const bool packed = packing_ && js.gpu_milli > 0;
  if (packed != (gpu >= 0)) bad(packed ? "a fractional job must be started packed on one GPU" : "packed start of a job that is not fractional");
  const bool partial = admitted_gpus >= 0;
  if (partial && (packed || admitted_gpus < 1 || admitted_gpus > js.gpus || !(work_scale > 0)))
    bad(fmt::format("a partial start holds 1 to {} whole GPUs at a work scale > 0, got {} GPUs at {}", js.gpus, admitted_gpus, work_scale));
  int64_t slot = -1;
  if (packed) {
    if (placement.size() != 1 || placement[0].node >= free_gpus_.size() || !node_up_[placement[0].node] ||
        gpu >= cluster_.node_gpus[placement[0].node])
      bad("a packed start names one up node and a GPU index on it");
    slot = gpu_first_[placement[0].node] + gpu;
    if (gpu_used_milli_[slot] + js.gpu_milli > 1000) bad(fmt::format("GPU {} of node {} has {} milli used, asked {}", gpu, cluster_.node_names[placement[0].node], gpu_used_milli_[slot], js.gpu_milli));
    if (gpu_used_milli_[slot] == 0 && free_gpus_[placement[0].node] < 1) bad("no free GPU for a new shared GPU");
  }
  int64_t sum = 0;
  ++stamp_;
  for (const auto& s : packed ? std::span<const NodeShare>() : placement) {
    if (s.node >= free_gpus_.size() || !node_up_[s.node]) bad("node down or unknown");
    // A job of 0 GPUs (CPU-only) holds shares of 0 GPUs; a GPU job none.
    if (s.gpus < 0 || (s.gpus == 0 && js.gpus > 0) || s.gpus > free_gpus_[s.node]) bad(fmt::format("node {} has {} free GPUs, asked {}", cluster_.node_names[s.node], free_gpus_[s.node], s.gpus));
    if (s.cpus < 0 || (!cap_cpus_.empty() && cap_cpus_[s.node] > 0 && s.cpus > free_cpus_[s.node]))
      bad(fmt::format("node {} has {} free CPUs, asked {}", cluster_.node_names[s.node], free_cpus_.empty() ? 0 : free_cpus_[s.node], s.cpus));
    if (s.mem_mib < 0 || (!cap_mem_.empty() && cap_mem_[s.node] > 0 && s.mem_mib > free_mem_[s.node]))
      bad(fmt::format("node {} has {} MiB of memory free, asked {}", cluster_.node_names[s.node], free_mem_.empty() ? 0 : free_mem_[s.node], s.mem_mib));
    if (node_stamp_[s.node] == stamp_) bad("node listed twice");
    node_stamp_[s.node] = stamp_;
    sum += s.gpus;
  }
  if (!packed && placement.empty()) bad("empty placement");
  const int64_t want = partial ? admitted_gpus : js.gpus;
  if (!packed && sum != want) bad(fmt::format("placement has {} GPUs, job wants {}", sum, want));
  // A partial start runs fewer pods: at most the job's node count.
  if (js.nodes > 0 && (partial ? placement.size() > static_cast<size_t>(js.nodes) : placement.size() != static_cast<size_t>(js.nodes)))
    bad(fmt::format("placement spans {} nodes, job wants {}", placement.size(), js.nodes));
  record_admitted(j, partial ? admitted_gpus : 0, partial ? work_scale : 1);

  make_room(placement.size());
  r.alloc_offset = static_cast<uint32_t>(alloc_pool_.size());
  r.alloc_count = static_cast<uint32_t>(placement.size());
  archived_[j] = false;
  pool_segments_.emplace_back(j, r.alloc_count);
  if (packed) {  // recorded as one GPU on the node; only the first share takes it from the free count
    alloc_pool_.push_back(placement[0]);
    if (gpu_used_milli_[slot] == 0) {
      --free_gpus_[placement[0].node];
      --total_free_;
    }
    gpu_used_milli_[slot] += js.gpu_milli;
    r.gpu_slot = static_cast<int32_t>(slot);
  } else {
    for (const auto& s : placement) {
      free_gpus_[s.node] -= s.gpus;
      total_free_ -= s.gpus;
      take_res(s, +1);
      alloc_pool_.push_back(s);
    }
  }
  remove_pending(j);
  ++progress_;
  r.state = JobState::Running;
  r.start_s = now_;
  if (r.first_start_s < 0) r.first_start_s = now_;
  r.stop_s = -1;
  ++r.epoch;
  r.suspended = false;
  const SimTime limit = limit_override_s > 0 ? std::max(js.time_limit_s, limit_override_s) : js.time_limit_s;
  r.limit_end_s = now_ + js.time_limit_s;
  running_.push_back(j);
  if (runtime_model_) stretch_[j] = std::max(1e-9, runtime_model_->stretch(j, placement, snapshot()));
  if (partial && work_scale != 1) stretch_[j] *= work_scale;
  const SimTime remaining = std::max<SimTime>(0, js.runtime_s - r.work_done_s) * stretch(j);
  r.ends_by_limit = cfg_.enforce_time_limit && limit < remaining;
  r.planned_end_s = now_ + (r.ends_by_limit ? limit : remaining);
  ++stats_.starts;
  ledger_alloc(j, +1);
  push(r.planned_end_s, EventKind::End, j, r.epoch);
  if (inv_) inv_->on_start(j);
  notify(JobEvent::Kind::Started, j, JobState::Running);
}

// A partial start's GPUs and work scale (the stretch, 1 without a runtime model); both tables
// are only allocated once some start is partial.
void Engine::record_admitted(JobIdx j, int32_t admitted_gpus, double work_scale) {
  if (admitted_gpus > 0 && admitted_gpus_.empty()) admitted_gpus_.assign(wl_.jobs.size(), 0);
  if (!admitted_gpus_.empty()) admitted_gpus_[j] = admitted_gpus;
  if (work_scale != 1 && stretch_.empty()) stretch_.assign(wl_.jobs.size(), 1.0);
  if (!stretch_.empty() && !runtime_model_) stretch_[j] = 1.0;
}

void Engine::stop_job(JobIdx j, StopKind how) {
  const JobSpec& js = wl_.jobs[j];
  JobRun& r = runs_[j];
  const double weight = gpu_weight(j);
  ++progress_;
  if (inv_) inv_->on_release(j);
  if (r.gpu_slot >= 0) {
    release_slot(j);
  } else {
    for (const auto& s : live_allocation(j)) {
      free_gpus_[s.node] += node_up_[s.node] ? s.gpus : 0;
      if (node_up_[s.node]) total_free_ += s.gpus, take_res(s, -1);
    }
  }
  running_.erase(std::find(running_.begin(), running_.end(), j));
  ledger_alloc(j, -1);
  const SimTime elapsed = now_ - r.start_s;
  r.alloc_gpu_s += elapsed * weight;
  const SimTime progress = r.work_done_s + elapsed / stretch(j);  // work, not wall time
  r.stop_s = -1;
  if (how == StopKind::Suspend) {
    r.work_done_s = progress;  // suspended jobs keep their memory state: nothing is lost
    r.suspended = true;
    enqueue(j);
    notify(JobEvent::Kind::Suspended, j);
    need_pass_ = true;
    return;
  }
  // Work since the last checkpoint is lost (all of it without checkpoints).
  const SimTime saved = js.checkpoint_interval_s > 0
                            ? std::floor(progress / js.checkpoint_interval_s) * js.checkpoint_interval_s
                            : 0;
  r.lost_gpu_s += (progress - saved) * stretch(j) * weight;  // wall GPU-seconds
  r.work_done_s = saved;
  if (how == StopKind::Cancel || (how == StopKind::NodeFail && !js.requeueable)) {
    ledger_demand(js, -1);
    r.end_s = now_;
    r.state = how == StopKind::Cancel ? JobState::Cancelled : JobState::NodeFail;
    stats_.last_end_s = std::max(stats_.last_end_s, now_);
    notify(JobEvent::Kind::Ended, j, r.state);
    need_pass_ = true;
    return;
  }
  // Requeue keeps the id; the job re-enters the queue now (Slurm resets its age, spec slurm §8).
  ++r.requeues;
  r.queued_s = now_;
  r.eligible_s = now_ + cfg_.requeue_delay_s;
  enqueue(j);
  if (cfg_.requeue_delay_s > 0 && pending_wakes_.insert(r.eligible_s).second) push(r.eligible_s, EventKind::Wake, 0);
  notify(JobEvent::Kind::Requeued, j);
  need_pass_ = true;
}

void Engine::finish_job(JobIdx j, JobState s) {
  const JobSpec& js = wl_.jobs[j];
  JobRun& r = runs_[j];
  ++progress_;
  if (inv_) inv_->touch(j);
  if (r.state == JobState::Running) {
    r.alloc_gpu_s += (now_ - r.start_s) * gpu_weight(j);
    if (inv_) inv_->on_release(j);
    if (r.gpu_slot >= 0) {
      release_slot(j);
    } else {
      for (const auto& sh : live_allocation(j)) {
        free_gpus_[sh.node] += sh.gpus;
        total_free_ += sh.gpus;
        take_res(sh, -1);
      }
    }
    running_.erase(std::find(running_.begin(), running_.end(), j));
    ledger_alloc(j, -1);
    ledger_demand(js, -1);
  }
  r.state = s;
  r.end_s = now_;
  r.stop_s = -1;
  stats_.last_end_s = std::max(stats_.last_end_s, now_);
  notify(JobEvent::Kind::Ended, j, s);
  need_pass_ = true;
}

void Engine::node_event(const NodeEvent& ne) {
  const NodeIdx n = ne.node;
  if (inv_) inv_->touch_node(n);
  if (ne.up) {
    if (node_up_[n]) return;
    node_up_[n] = 1;
    // Nothing runs on a node that was down, so it comes back empty.
    free_gpus_[n] = cluster_.node_gpus[n];
    node_res(n, true);
    total_free_ += free_gpus_[n];
    total_up_ += cluster_.node_gpus[n];
  } else {
    if (!node_up_[n]) return;
    // Kill every job with a share on n (a gang job loses all its nodes), in start order.
    std::vector<JobIdx> victims;
    for (JobIdx j : running_)
      for (const auto& s : live_allocation(j))
        if (s.node == n) victims.push_back(j);
    for (JobIdx j : victims) stop_job(j, StopKind::NodeFail);
    node_up_[n] = 0;
    total_free_ -= free_gpus_[n];
    total_up_ -= cluster_.node_gpus[n];
    free_gpus_[n] = 0;
    node_res(n, false);
  }
  ++progress_;
  need_pass_ = true;
}

void Engine::policy_change(uint32_t index) {
  const PolicyChange& c = changes_[index];
  ChangeRecord rec{index, now_, {}};
  if (gate_) rec.outcome = gate_->review(c, sched_, snapshot());
  else rec.outcome.status = ChangeOutcome::Status::Applied;
  if (rec.outcome.applied()) {
    const ChangeOutcome gate_said = rec.outcome;
    decisions_.clear();
    rec.outcome = sched_.on_policy_change(c, snapshot(), decisions_);
    if (rec.outcome.applied()) {
      // A loophole the gate let through stays marked as such; the model's reason is kept too.
      // The gate's words come first (why it was allowed), the model's note after.
      if (gate_said.status == ChangeOutcome::Status::AppliedUnapproved) rec.outcome.status = gate_said.status;
      if (!gate_said.reason.empty())
        rec.outcome.reason = gate_said.reason + (rec.outcome.reason.empty() ? "" : "; " + rec.outcome.reason);
      for (const auto& it : decisions_.items()) {
        if (it.kind != Decisions::Kind::Preempt || it.mode != PreemptMode::Cancel)
          throw std::logic_error(fmt::format("{}: a policy change may only cancel jobs", sched_.name()));
        if (it.job >= next_submit_) continue;  // not submitted yet: the model cancels it at its submission
        const JobState st = runs_[it.job].state;
        if (st != JobState::Pending && st != JobState::Running) continue;  // already gone
        rec.outcome.cancelled_job_ids.push_back(wl_.jobs[it.job].id);
        cancel_job(it.job);
      }
      compact_pending();
      ++progress_;
      need_pass_ = true;
    }
    decisions_.clear();
  }
  ++stats_.events;
  change_log_.push_back(std::move(rec));
}

void Engine::cancel_job(JobIdx j) {
  JobRun& r = runs_[j];
  if (r.state == JobState::Pending) {
    remove_pending(j);
    ledger_.add_demand(wl_.jobs[j].klass, -wl_.jobs[j].gpus);
    finish_job(j, JobState::Cancelled);
  } else if (r.state == JobState::Running) {
    stop_job(j, StopKind::Cancel);
  }
}

// CPUs and memory where the cluster gives them: used by running placements + free = capacity
// (0 while down), never negative.
void Engine::check_res_invariants() const {
  if (cap_cpus_.empty() && cap_mem_.empty()) return;
  std::vector<int64_t> cpus(cluster_.nodes(), 0), mem(cluster_.nodes(), 0);
  for (JobIdx j : running_)
    for (const auto& s : live_allocation(j)) cpus[s.node] += s.cpus, mem[s.node] += s.mem_mib;
  auto check = [&](const std::vector<int32_t>& cap, const std::vector<int32_t>& fr, const std::vector<int64_t>& used, const char* what) {
    for (size_t n = 0; n < cap.size(); ++n) {
      if (cap[n] <= 0) continue;
      const int64_t c = node_up_[n] ? cap[n] : 0;
      if (fr[n] < 0 || (node_up_[n] && used[n] + fr[n] != c) || (!node_up_[n] && fr[n] != 0))
        throw std::logic_error(fmt::format("invariant: node {} {} used {} + free {} != capacity {}", cluster_.node_names[n], what, used[n], fr[n], c));
    }
  };
  check(cap_cpus_, free_cpus_, cpus, "CPUs");
  check(cap_mem_, free_mem_, mem, "memory MiB");
}

void Engine::check_invariants() const {
  std::vector<int64_t> used(cluster_.nodes(), 0);
  std::vector<int32_t> slot_milli(gpu_used_milli_.size(), 0);
  for (JobIdx j : running_) {
    if (runs_[j].state != JobState::Running) throw std::logic_error("invariant: running list holds a job not running");
    if (runs_[j].gpu_slot >= 0) {
      slot_milli[runs_[j].gpu_slot] += wl_.jobs[j].gpu_milli;
      continue;
    }
    for (const auto& s : live_allocation(j)) used[s.node] += s.gpus;
  }
  for (size_t n = 0; n < gpu_first_.size(); ++n)
    for (int32_t g = 0; g < cluster_.node_gpus[n]; ++g) {
      const int32_t m = slot_milli[gpu_first_[n] + g];
      if (m != gpu_used_milli_[gpu_first_[n] + g] || m > 1000)
        throw std::logic_error(fmt::format("invariant: GPU {} of node {} holds {} milli, engine counts {}", g, cluster_.node_names[n], m, gpu_used_milli_[gpu_first_[n] + g]));
      used[n] += m > 0;
    }
  int64_t free_sum = 0;
  for (size_t n = 0; n < cluster_.nodes(); ++n) {
    if (free_gpus_[n] < 0) throw std::logic_error("invariant: negative free GPUs");
    const int64_t cap = node_up_[n] ? cluster_.node_gpus[n] : 0;
    if (used[n] + free_gpus_[n] != cap)
      throw std::logic_error(fmt::format("invariant: node {} used {} + free {} != capacity {}", cluster_.node_names[n], used[n], free_gpus_[n], cap));
    free_sum += free_gpus_[n];
  }
  if (free_sum != total_free_) throw std::logic_error("invariant: total free GPUs drifted");
  check_res_invariants();
  size_t npending = 0;
  for (size_t i = pending_head_; i < pending_.size(); ++i)
    if (!removed_[pending_[i]]) {
      if (runs_[pending_[i]].state != JobState::Pending) throw std::logic_error("invariant: queue holds a job not pending");
      ++npending;
    }
  size_t counted_pending = 0, counted_running = 0;
  for (size_t j = 0; j < runs_.size(); ++j) {
    if (runs_[j].state == JobState::Pending && (j < next_submit_)) ++counted_pending;
    if (runs_[j].state == JobState::Running) ++counted_running;
  }
  if (counted_running != running_.size()) throw std::logic_error("invariant: running count mismatch");
  if (counted_pending != npending) throw std::logic_error("invariant: a job is pending but not queued (or twice)");
}

}  // namespace floorsim
