#pragma once
// The release groups of cons_tres _will_run_test (src/plugins/select/cons_tres/job_test.c, shared
// as cons_common in 22.05): in which groups running jobs are released when a pending job is tested.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "sim/core/types.hpp"

namespace floorsim::slurm {

// The next multiple of `step` strictly after t (t >= 0): t + (step - fmod(t, step)), as
// _will_run_test aligns its groups; whole seconds (the common case) in integers, exactly.
inline double next_barrier(double t, double step) {
  if (t >= 0 && t < 9.0e15) {
    const auto ti = static_cast<int64_t>(t);
    const auto si = static_cast<int64_t>(step);
    if (static_cast<double>(ti) == t && static_cast<double>(si) == step && si > 0) return static_cast<double>(ti + (si - ti % si));
  }
  return t + (step - std::fmod(t, step));
}

// cons_common _will_run_test (22.05, and master alike) releases running jobs in end-time order,
// in groups aligned on a barrier: the first released job's end rounded up to the next multiple
// of 30 s (a multiple itself goes up by a whole 30 s), so that running jobs do not shift them
// between passes. A group takes every next job ending by barrier + window; the window then
// doubles until the next job is within it. A group of over 200 jobs (rm_job_cnt) is not tested
// and runs on into the next. Checked against a live slurmctld 22.05
// (tests/oracle/recorded/backfill.tsv); time 0 is taken as a whole minute of the epoch, which
// slurmctld's barrier counts from. Jobs on none of the tested job's nodes are not fed in.
class ReleaseGroups {
 public:
  enum class Step { More, Test, Skip };  // the group goes on / is complete: test it / is not tested
  // After releasing a job ending at t; next_t is the next end (kNever if none).
  Step released(SimTime t, SimTime next_t) {
    if (barrier_ < 0) barrier_ = next_barrier(t, window_);
    if (next_t > barrier_ + window_) {
      removed_ = 0;
      do window_ *= 2;
      while (next_t != kNever && next_t > barrier_ + window_);
      return Step::Test;
    }
    if (removed_++ > 200) {
      removed_ = 0;
      return Step::Skip;
    }
    return Step::More;
  }

 private:
  SimTime window_ = 30, barrier_ = -1;
  size_t removed_ = 0;
};

}  // namespace floorsim::slurm
