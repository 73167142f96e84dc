// Strict FIFO: start jobs in queue order until the first one that does not fit; it blocks
// everything behind it.
#include "schedulers/baseline/baseline.hpp"
#include "schedulers/common/placement.hpp"

namespace floorsim::baseline {
namespace {

class Fifo final : public Scheduler {
 public:
  bool wants_job_events() const override { return false; }  // no accounting
  std::string_view name() const override { return "fifo"; }
  void schedule(const Snapshot& v, Decisions& out) override {
    int64_t free_total = v.cluster.total_free_gpus;
    bool copied = false;
    for (JobIdx j : v.pending) {
      if (!v.eligible(j)) continue;  // not yet in the queue (requeue begin time)
      const JobSpec& job = v.jobs[j];
      if (job.gpus > free_total) break;  // cheap check before placement
      if (!copied) {
        free_.assign(v.cluster.free_gpus.begin(), v.cluster.free_gpus.end());
        copied = true;
      }
      if (!placement::first_fit(job, free_, shares_, v.cluster.max_node_gpus)) break;
      placement::take(free_, shares_);
      free_total -= job.gpus;
      out.start(j, shares_);
    }
  }

 private:
  std::vector<int32_t> free_;
  std::vector<NodeShare> shares_;
};

}  // namespace

std::unique_ptr<Scheduler> make_fifo() { return std::make_unique<Fifo>(); }

}  // namespace floorsim::baseline
