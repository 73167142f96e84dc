// EASY backfill (Lifka 1995; Mu'alem & Feitelson 2001): jobs start in queue order; the first
// job that does not fit gets a reservation at its shadow time (the earliest time it fits when
// running jobs end at their time limits). Later jobs may start now if they fit and either end
// (by their time limit) before the shadow time, or use only GPUs the head job will not need
// at the shadow time ("extra" GPUs, per node).
#include <algorithm>

#include "schedulers/baseline/baseline.hpp"
#include "schedulers/common/placement.hpp"

namespace floorsim::baseline {
namespace {

class EasyBackfill final : public Scheduler {
 public:
  bool wants_job_events() const override { return false; }  // no accounting
  std::string_view name() const override { return "easy_backfill"; }

  void schedule(const Snapshot& v, Decisions& out) override {
    const size_t nn = v.cluster.nodes();
    free_.assign(v.cluster.free_gpus.begin(), v.cluster.free_gpus.end());
    int64_t free_total = v.cluster.total_free_gpus;
    ends_.clear();
    local_.clear();
    size_t i = 0;
    // Phase 1: in order, until the head blocks.
    JobIdx head = kNoJob;
    for (; i < v.pending.size(); ++i) {
      const JobIdx j = v.pending[i];
      if (!v.eligible(j)) continue;
      const JobSpec& job = v.jobs[j];
      if (job.gpus <= free_total && placement::first_fit(job, free_, shares_, v.cluster.max_node_gpus)) {
        start(v, j, out, free_total);
        continue;
      }
      head = j;
      ++i;
      break;
    }
    if (head == kNoJob) return;

    // Shadow time: release running jobs (and those started above) in planned-end order.
    for (JobIdx r : v.running) ends_.push_back({planned_end(v, r), r, 0, 0});
    std::sort(ends_.begin(), ends_.end(), [&](const End& a, const End& b) {
      if (a.t != b.t) return a.t < b.t;
      return a.job < b.job;
    });
    proj_.assign(free_.begin(), free_.end());
    int64_t proj_total = free_total;
    SimTime shadow = kNever;
    const JobSpec& hj = v.jobs[head];
    res_.assign(nn, 0);
    for (size_t k = 0; k < ends_.size(); ++k) {
      const End& e = ends_[k];
      for (const auto& s : alloc_of(v, e)) {
        if (v.cluster.node_up[s.node]) proj_[s.node] += s.gpus, proj_total += s.gpus;
      }
      if (k + 1 < ends_.size() && ends_[k + 1].t == e.t) continue;  // release a whole instant
      if (hj.gpus <= proj_total && placement::first_fit(hj, proj_, shares_, v.cluster.max_node_gpus)) {
        shadow = e.t;
        for (const auto& s : shares_) res_[s.node] += s.gpus;
        break;
      }
    }

    // Phase 2: backfill behind the head. cap_ = GPUs per node that a job running past the
    // shadow time may take: free now and not needed by the head then.
    if (shadow != kNever) {
      cap_.resize(nn);
      cap_total_ = 0;
      for (size_t n = 0; n < nn; ++n) cap_total_ += cap_[n] = cap_at(n);
    }
    for (; i < v.pending.size() && free_total > 0; ++i) {
      const JobIdx j = v.pending[i];
      if (!v.eligible(j)) continue;
      const JobSpec& job = v.jobs[j];
      if (job.gpus > free_total) continue;
      const bool short_job = v.now + job.time_limit_s <= shadow;
      if (short_job || shadow == kNever) {  // no reservation to protect (or it ends in time)
        if (!placement::first_fit(job, free_, shares_, v.cluster.max_node_gpus)) continue;
      } else {
        if (job.gpus > cap_total_ || !placement::first_fit(job, cap_, shares_, v.cluster.max_node_gpus)) continue;
        placement::take(proj_, shares_);
      }
      start(v, j, out, free_total);
      if (shadow != kNever)
        for (const auto& s : shares_) {
          const int32_t c = cap_at(s.node);
          cap_total_ += c - cap_[s.node];
          cap_[s.node] = c;
        }
    }
  }

 private:
  int32_t cap_at(size_t n) const { return std::max(0, std::min(free_[n], proj_[n] - res_[n])); }

  struct End {
    SimTime t;
    JobIdx job;
    uint32_t off, cnt;  // cnt > 0: started in this pass, placement in local_
  };
  std::span<const NodeShare> alloc_of(const Snapshot& v, const End& e) const {
    if (e.cnt == 0) return v.allocation_of(e.job);
    return std::span<const NodeShare>(local_).subspan(e.off, e.cnt);
  }
  void start(const Snapshot& v, JobIdx j, Decisions& out, int64_t& free_total) {
    placement::take(free_, shares_);
    free_total -= v.jobs[j].gpus;
    out.start(j, shares_);
    // Jobs started in this pass are also released at their planned end for the shadow time.
    ends_.push_back({v.now + v.jobs[j].time_limit_s, j, static_cast<uint32_t>(local_.size()),
                     static_cast<uint32_t>(shares_.size())});
    local_.insert(local_.end(), shares_.begin(), shares_.end());
  }

  std::vector<int32_t> free_, proj_, res_, cap_;
  int64_t cap_total_ = 0;
  std::vector<NodeShare> shares_;
  std::vector<End> ends_;
  std::vector<NodeShare> local_;  // placements of jobs started in this pass
};

}  // namespace

std::unique_ptr<Scheduler> make_easy_backfill() { return std::make_unique<EasyBackfill>(); }

}  // namespace floorsim::baseline
