#pragma once
// The held-back idle pool (issue 7): a controller composed around ANY scheduler model.
//
// mode "hold": every interval_s (a cron-like controller tick, through Decisions::wake_at) it
//   makes sure `nodes` whole nodes are idle by requeueing preemptible jobs last-in first-out
//   (latest started first; jobs that have run less than preempt_exempt_s are exempt, like Slurm's
//   PreemptExemptTime). Between ticks the inner model sees those idle nodes as busy (its snapshot's
//   free GPUs hide them), which is how the controller's per-user cap adjustment is modelled: the
//   requeued batch jobs cannot take the held nodes back.
// The interactive class is placed by the controller alone (first fit on any free GPUs, the pool
// included, after the inner model's starts); the inner model never sees those jobs or their
// events (except their ends, so that event-driven models such as kueue retry jobs waiting for
// nodes), so a stateful model cannot admit one a second time. Tested around every model
// (baselines, slurm, kueue). kueue parks nothing under its default placement (admit_then_place: admitted workloads
// retry placement at every pass); under place_at_admission it retries its parked workloads
// whenever the free capacity it sees grows, so masked capacity coming back is noticed.
// mode "on_demand": scheduler-driven preemption for comparison: nothing is held; when an
//   interactive job does not fit, preemptible jobs are requeued LIFO at once to make room (the
//   interactive job is the preemptor, so cascades are counted by the engine).
// Controller preemptions are made with by = none (the controller), so they never count as
// cascading preemptions.
#include <memory>
#include <vector>

#include "sim/core/scheduler_api.hpp"

namespace floorsim::idle_pool {

enum class Mode : uint8_t { Hold, OnDemand };

struct Params {
  Mode mode = Mode::Hold;
  int32_t nodes = 0;             // whole nodes kept idle (hold)
  SimTime interval_s = 60;       // controller tick (hold)
  StrId for_class = 0;           // the interactive class
  SimTime preempt_exempt_s = 0;  // minimum run time before a job may be requeued
  // Reduced-set fallbacks (sorted by at_s): at at_s the listed jobs that have been submitted
  // but not started are cancelled (a VaR stress grid dropped when its window is missed).
  struct Fallback {
    SimTime at_s;
    std::vector<JobIdx> jobs;
  };
  std::vector<Fallback> fallbacks;
};

std::unique_ptr<Scheduler> wrap(std::unique_ptr<Scheduler> inner, Params p);

}  // namespace floorsim::idle_pool
