// Conservative backfill (Mu'alem & Feitelson 2001): every queued job, in queue order, gets a
// reservation at the earliest time its whole time limit fits in the availability profile; a
// job starts now only when that earliest time is now. So no job is ever delayed by a job
// behind it (judged by time limits).
//
// The profile is a step function over time of free GPUs per node: segment k covers
// [t_k, t_{k+1}) with a row of per-node free GPUs (flat matrix, rebuilt every pass).
#include <algorithm>

#include "schedulers/baseline/baseline.hpp"
#include "schedulers/common/placement.hpp"

namespace floorsim::baseline {
namespace {

class ConservativeBackfill final : public Scheduler {
 public:
  bool wants_job_events() const override { return false; }  // no accounting
  std::string_view name() const override { return "conservative_backfill"; }

  void schedule(const Snapshot& v, Decisions& out) override {
    nn_ = v.cluster.nodes();
    max_node_ = v.cluster.max_node_gpus;
    build_profile(v);
    for (JobIdx j : v.pending) {
      if (!v.eligible(j)) continue;
      const JobSpec& job = v.jobs[j];
      size_t s = earliest(job);
      if (s == kNone) continue;  // cannot fit even on an empty profile (nodes down)
      if (s == 0) out.start(j, shares_);
      reserve(s, t_[s] + job.time_limit_s);
    }
  }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  int32_t* row(size_t k) { return free_.data() + k * nn_; }

  void build_profile(const Snapshot& v) {
    ends_.clear();
    for (JobIdx r : v.running) ends_.push_back({planned_end(v, r), r});
    std::sort(ends_.begin(), ends_.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second < b.second;
    });
    t_.assign(1, v.now);
    free_.assign(v.cluster.free_gpus.begin(), v.cluster.free_gpus.end());
    total_.assign(1, v.cluster.total_free_gpus);
    for (const auto& [t, j] : ends_) {
      if (t != t_.back()) {  // open a new segment that starts as a copy of the last
        t_.push_back(t);
        free_.resize(free_.size() + nn_);
        std::copy_n(row(t_.size() - 2), nn_, row(t_.size() - 1));
        total_.push_back(total_.back());
      }
      for (const auto& s : v.allocation_of(j))
        if (v.cluster.node_up[s.node]) row(t_.size() - 1)[s.node] += s.gpus, total_.back() += s.gpus;
    }
  }

  // Earliest segment where the job's whole limit fits; leaves the placement in shares_.
  size_t earliest(const JobSpec& job) {
    const size_t S = t_.size();
    for (size_t s = 0; s < S; ++s) {
      if (total_[s] < job.gpus) continue;
      const SimTime end = t_[s] + job.time_limit_s;
      min_.assign(row(s), row(s) + nn_);
      bool ok = true;
      for (size_t k = s + 1; k < S && t_[k] < end; ++k) {
        if (total_[k] < job.gpus) { ok = false; break; }
        const int32_t* r = row(k);
        for (size_t n = 0; n < nn_; ++n) min_[n] = std::min(min_[n], r[n]);
      }
      if (ok && placement::first_fit(job, min_, shares_, max_node_)) return s;
    }
    return kNone;
  }

  // Takes shares_ out of every segment in [t_[s], end), splitting the segment that holds end.
  void reserve(size_t s, SimTime end) {
    size_t k = s;
    for (; k < t_.size() && t_[k] < end; ++k) {}
    if (end != kNever && (k == t_.size() || t_[k] != end)) {  // split: new breakpoint at end
      t_.insert(t_.begin() + static_cast<std::ptrdiff_t>(k), end);
      free_.insert(free_.begin() + static_cast<std::ptrdiff_t>(k * nn_), row(k - 1), row(k - 1) + nn_);
      total_.insert(total_.begin() + static_cast<std::ptrdiff_t>(k), total_[k - 1]);
    }
    for (size_t q = s; q < k; ++q) {
      for (const auto& sh : shares_) row(q)[sh.node] -= sh.gpus, total_[q] -= sh.gpus;
    }
  }

  size_t nn_ = 0;
  int32_t max_node_ = 0;
  std::vector<SimTime> t_;
  std::vector<int32_t> free_;  // S x nn_
  std::vector<int64_t> total_;
  std::vector<int32_t> min_;
  std::vector<NodeShare> shares_;
  std::vector<std::pair<SimTime, JobIdx>> ends_;
};

}  // namespace

std::unique_ptr<Scheduler> make_conservative_backfill() { return std::make_unique<ConservativeBackfill>(); }

}  // namespace floorsim::baseline
