#include "sim/core/invariants.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "sim/core/engine.hpp"

namespace floorsim {

namespace {
constexpr uint8_t kUnsubmitted = 7;
}

InvariantChecker::InvariantChecker(const Engine& e) : e_(e) {
  used_.assign(e.cluster_.nodes(), 0);
  node_dirty_.assign(e.cluster_.nodes(), 0);
  const size_t n = e.wl_.jobs.size();
  state_.assign(n, kUnsubmitted);
  job_dirty_.assign(n, 0);
  seen_alloc_gpu_s_.assign(n, 0.0);
  count_[kUnsubmitted] = static_cast<int64_t>(n);
}

void InvariantChecker::fail(const char* what, const std::string& msg) const {
  throw std::logic_error(fmt::format("invariant violated at t={} after {}: {}", e_.now_, what, msg));
}

void InvariantChecker::on_push(SimTime t) const {
  if (t < e_.now_) fail("scheduling an event", fmt::format("event at {} is in the past", t));
}

void InvariantChecker::advance(SimTime t) {
  if (t < e_.now_) fail("advancing time", fmt::format("time goes back to {}", t));
  integral_gpu_s_ += static_cast<double>(e_.total_up_ - e_.total_free_) * (t - e_.now_);
}

void InvariantChecker::dirty(JobIdx j) {
  if (!job_dirty_[j]) {
    job_dirty_[j] = 1;
    dirty_jobs_.push_back(j);
  }
}

void InvariantChecker::dirty_node(NodeIdx n) {
  if (!node_dirty_[n]) {
    node_dirty_[n] = 1;
    dirty_nodes_.push_back(n);
  }
}

void InvariantChecker::on_start(JobIdx j) {
  const JobRun& r = e_.runs_[j];
  const int32_t gpus = e_.held_gpus(j);
  if (state_[j] != static_cast<uint8_t>(JobState::Pending))
    fail("a start", fmt::format("job {} started from state {}", e_.wl_.jobs[j].id, state_[j]));
  if (r.gpu_slot >= 0) {  // a packed GPU share: its GPU is checked through the slot's usage
    for (const auto& s : e_.final_allocation(j)) dirty_node(s.node);
    dirty(j);
    return;
  }
  int64_t placed = 0;
  for (const auto& s : e_.final_allocation(j)) {
    used_[s.node] += s.gpus;
    placed += s.gpus;
    dirty_node(s.node);
  }
  // GPU-seconds are counted by the job's gpus: its placement must hold exactly that many.
  if (placed != gpus)
    fail("a start", fmt::format("job {} holds {} GPUs on its nodes but accounts for {}", e_.wl_.jobs[j].id, placed, gpus));
  running_gpus_ += gpus;
  running_start_gpu_s_ += r.start_s * gpus;
  dirty(j);
}

void InvariantChecker::on_release(JobIdx j) {
  const JobRun& r = e_.runs_[j];
  const int32_t gpus = e_.held_gpus(j);
  if (r.state != JobState::Running || state_[j] != static_cast<uint8_t>(JobState::Running))
    fail("a stop", fmt::format("job {} released while not running", e_.wl_.jobs[j].id));
  if (r.gpu_slot >= 0) {
    for (const auto& s : e_.final_allocation(j)) dirty_node(s.node);
    dirty(j);
    return;
  }
  for (const auto& s : e_.final_allocation(j)) {
    used_[s.node] -= s.gpus;
    dirty_node(s.node);
  }
  running_gpus_ -= gpus;
  running_start_gpu_s_ -= r.start_s * gpus;
  dirty(j);
}

void InvariantChecker::after_event(const char* what) {
  // Nodes touched: used (from placements) + free = capacity while up, 0 + 0 while down.
  for (NodeIdx n : dirty_nodes_) {
    node_dirty_[n] = 0;
    const int64_t cap = e_.cluster_.node_gpus[n];
    const int64_t free = e_.free_gpus_[n];
    const int64_t up_cap = e_.node_up_[n] ? cap : 0;
    // GPUs holding packed shares (fractions): taken from the pool once, whatever the share count.
    int64_t packed = 0;
    if (e_.packing_)
      for (int64_t g = 0; g < cap; ++g) {
        const int32_t milli = e_.gpu_used_milli_[e_.gpu_first_[n] + g];
        if (milli < 0 || milli > 1000)
          fail(what, fmt::format("node {} GPU {}: {} thousandths in use", e_.cluster_.node_names[n], g, milli));
        packed += milli > 0 && e_.node_up_[n];
      }
    if (free < 0) fail(what, fmt::format("node {} has {} free GPUs", e_.cluster_.node_names[n], free));
    if (used_[n] + packed > cap)
      fail(what, fmt::format("node {}: {} GPUs allocated, capacity {}", e_.cluster_.node_names[n], used_[n], cap));
    if (used_[n] + packed + free != up_cap)
      fail(what, fmt::format("node {}: {} allocated + {} free != {} (GPU given twice or lost)",
                             e_.cluster_.node_names[n], used_[n] + packed, free, up_cap));
  }
  dirty_nodes_.clear();
  // Jobs touched: legal transitions, per-state counts, allocated GPU-seconds.
  for (JobIdx j : dirty_jobs_) {
    job_dirty_[j] = 0;
    const JobRun& r = e_.runs_[j];
    const uint8_t from = state_[j], to = static_cast<uint8_t>(r.state);
    if (from != to) {
      const bool from_final = from != kUnsubmitted && is_final(static_cast<JobState>(from));
      const bool legal = !from_final && (from != kUnsubmitted || to == static_cast<uint8_t>(JobState::Pending)) &&
                         to != static_cast<uint8_t>(JobState::Unstarted);
      if (!legal) fail(what, fmt::format("job {} went from state {} to {}", e_.wl_.jobs[j].id, from, to));
      --count_[from];
      ++count_[to];
      state_[j] = to;
    }
    if (r.alloc_gpu_s < seen_alloc_gpu_s_[j])
      fail(what, fmt::format("job {}: allocated GPU-seconds went down", e_.wl_.jobs[j].id));
    closed_gpu_s_ += r.alloc_gpu_s - seen_alloc_gpu_s_[j];
    seen_alloc_gpu_s_[j] = r.alloc_gpu_s;
  }
  dirty_jobs_.clear();
  const int64_t live_queue = static_cast<int64_t>(e_.pending_.size() - e_.pending_head_ - e_.removed_count_);
  if (count_[static_cast<int>(JobState::Pending)] != live_queue)
    fail(what, fmt::format("{} jobs pending but the queue holds {}", count_[static_cast<int>(JobState::Pending)], live_queue));
  if (count_[static_cast<int>(JobState::Running)] != static_cast<int64_t>(e_.running_.size()))
    fail(what, fmt::format("{} jobs running but the running list holds {}", count_[static_cast<int>(JobState::Running)],
                           e_.running_.size()));
  // With packed shares the pool and GPU-second totals include shared GPUs, which the per-node
  // check above covers; whole-GPU runs are checked exactly.
  if (e_.packing_) return;
  if (e_.total_up_ - e_.total_free_ != static_cast<int64_t>(running_gpus_))
    fail(what, fmt::format("{} GPUs allocated in the pool, {} held by running jobs", e_.total_up_ - e_.total_free_, running_gpus_));
  // Sum over jobs (closed runs + running so far) = integral of the allocation.
  const double jobs_gpu_s = closed_gpu_s_ + e_.now_ * running_gpus_ - running_start_gpu_s_;
  const double tol = 1e-7 * std::max({1.0, std::fabs(integral_gpu_s_), std::fabs(e_.now_ * running_gpus_)});
  if (std::fabs(jobs_gpu_s - integral_gpu_s_) > tol)
    fail(what, fmt::format("jobs account for {} GPU-s, the allocation integrates to {}", jobs_gpu_s, integral_gpu_s_));
}

}  // namespace floorsim
