#pragma once
// Baseline models: strict FIFO, EASY backfill (a reservation for the head job only) and
// conservative backfill (a reservation for every queued job). All plan with time limits, not
// actual runtimes, as real schedulers must; placement is first fit; multi-node jobs are gangs.
#include <memory>

#include "sim/core/scheduler_api.hpp"

namespace floorsim::baseline {

std::unique_ptr<Scheduler> make_fifo();
std::unique_ptr<Scheduler> make_easy_backfill();
std::unique_ptr<Scheduler> make_conservative_backfill();

// When a running job is expected to end for planning purposes: its start + time limit. A job
// already past its limit (limits not enforced) is guessed to end KillWait (30 s, Slurm's
// default) from now, as Slurm's backfill does (spec slurm §2).
inline constexpr SimTime kOverLimitGuess_s = 30;
inline SimTime planned_end(const Snapshot& v, JobIdx j) {
  const SimTime e = v.runs[j].limit_end_s;
  return e > v.now ? e : v.now + kOverLimitGuess_s;
}

}  // namespace floorsim::baseline
