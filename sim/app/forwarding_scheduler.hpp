#pragma once
// A scheduler that forwards every call to the one it wraps: the base of the run's observers
// (attempt recording, progress), which override only what they watch, so the run is the same.
#include <memory>

#include "sim/core/scheduler_api.hpp"

namespace floorsim::app {

class ForwardingScheduler : public Scheduler {
 public:
  explicit ForwardingScheduler(std::unique_ptr<Scheduler> inner) : inner_(std::move(inner)) {}

  std::string_view name() const override { return inner_->name(); }
  void schedule(const Snapshot& view, Decisions& out) override { inner_->schedule(view, out); }
  void on_job_event(const JobEvent& ev, const Snapshot& view) override { inner_->on_job_event(ev, view); }
  bool wants_job_events() const override { return inner_->wants_job_events(); }
  bool packs_gpu_fractions() const override { return inner_->packs_gpu_fractions(); }
  std::string_view reason_name(uint16_t code) const override { return inner_->reason_name(code); }
  std::vector<std::string> extra_columns() const override { return inner_->extra_columns(); }
  void extra_values(JobIdx job, std::vector<std::string>& out) const override { inner_->extra_values(job, out); }
  nlohmann::json report(const Snapshot& final_view) const override { return inner_->report(final_view); }
  ChangeOutcome on_policy_change(const PolicyChange& c, const Snapshot& view, Decisions& out) override {
    return inner_->on_policy_change(c, view, out);
  }
  ChangeScope change_scope(const PolicyChange& c, const Snapshot& view) const override { return inner_->change_scope(c, view); }

 protected:
  Scheduler& inner() { return *inner_; }

 private:
  std::unique_ptr<Scheduler> inner_;
};

}  // namespace floorsim::app
