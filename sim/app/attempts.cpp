#include "sim/app/attempts.hpp"

#include "sim/app/forwarding_scheduler.hpp"

namespace floorsim::app {

namespace {

class AttemptRecorder final : public ForwardingScheduler {
 public:
  AttemptRecorder(std::unique_ptr<Scheduler> inner, const ClusterConfig& cluster, AttemptLog& log)
      : ForwardingScheduler(std::move(inner)), cluster_(cluster), log_(log), forward_(this->inner().wants_job_events()) {}

  void on_job_event(const JobEvent& ev, const Snapshot& view) override {
    record(ev, view);
    if (forward_) inner().on_job_event(ev, view);
  }
  bool wants_job_events() const override { return true; }

 private:
  void record(const JobEvent& ev, const Snapshot& view) {
    if (log_.size() < view.jobs.size()) log_.resize(view.jobs.size());
    if (open_.size() < view.jobs.size()) open_.resize(view.jobs.size());
    Attempt& a = open_[ev.job];
    switch (ev.kind) {
      case JobEvent::Kind::Started: {
        a = Attempt{ev.time_s, 0, false, {}};
        std::vector<std::string> names;
        for (const auto& s : view.allocation_of(ev.job)) names.push_back(cluster_.node_names[s.node]);
        a.node_list = hostlist(names);
        break;
      }
      case JobEvent::Kind::Preempted: a.preempted = true; break;
      case JobEvent::Kind::Requeued:  // the engine requeues only after a preemption or a node failure
        a.end_s = ev.time_s;
        log_[ev.job].push_back(a);
        break;
      default: break;
    }
  }

  const ClusterConfig& cluster_;
  AttemptLog& log_;
  bool forward_;
  std::vector<Attempt> open_;  // the running attempt of each job
};

}  // namespace

std::unique_ptr<Scheduler> record_attempts(std::unique_ptr<Scheduler> inner, const ClusterConfig& cluster, AttemptLog& log) {
  return std::make_unique<AttemptRecorder>(std::move(inner), cluster, log);
}

}  // namespace floorsim::app
