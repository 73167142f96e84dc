#pragma once
// A reservation as the model holds it: reserved GPUs by node, access lists, flags, and its windows
// (one-off or DAILY/WEEKLY/... recurrence). Follows src/slurmctld/reservation.c (_advance_resv_time)
// and https://slurm.schedmd.com/reservations.html.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/core/types.hpp"

namespace floorsim::slurm {

// A reservation as reserved GPUs per node: whole-node ones (Nodes=, NodeCnt=) reserve
// every GPU of their nodes, TRES=gres/gpu:N reserves N GPUs.
struct ResvRt {
  std::string name;
  SimTime start_s = 0, dur_s = 0, period_s = 0;  // period 0 = one-off
  std::vector<int32_t> gpus;                    // reserved GPUs by node
  int64_t total_gpus = 0;
  std::vector<StrId> users, accounts, qos, classes;  // access lists (names interned) and requesters
  bool flex = false, magnetic = false;
  std::vector<std::string> assocs;  // associations the idle time is split over
  double idle_gpu_s = 0;
  int64_t used_gpus = 0;            // insiders' GPUs after the last pass
  SimTime acc_s = 0;                // idle accounted up to here
  SimTime purge_s = -1;             // PURGE_COMP idle time (-1 = no flag)
  SimTime last_end_s = -kNever;     // last end of one of its jobs (PURGE_COMP idle clock)
  SimTime deleted_s = kNever;       // purged at this time
  // The occurrence whose end is after t (only the next one matters, reservation.c _get_rel_start_end).
  void window(SimTime t, SimTime& s, SimTime& e) const {
    s = start_s;
    if (period_s > 0 && t > start_s) {
      s = start_s + std::floor((t - start_s) / period_s) * period_s;
      if (s + dur_s <= t) s += period_s;
    }
    e = s + dur_s;
  }
  // A recurring reservation without FLEX whose window is shorter than `limit_s`: no occurrence
  // can hold a job of that time limit (a job in a reservation must fit inside it), so waiting
  // for the next one would never end.
  bool holds_never(SimTime limit_s) const { return !flex && period_s > 0 && limit_s > dur_s; }
  // Reserved seconds of [a, b) (over every occurrence).
  double overlap(SimTime a, SimTime b) const {
    double tot = 0;
    SimTime s, e;
    window(a, s, e);
    while (s < b && std::isfinite(s)) {
      tot += std::max(0.0, std::min(b, e) - std::max(a, s));
      if (period_s <= 0) break;
      s += period_s;
      e += period_s;
    }
    return tot;
  }
};

}  // namespace floorsim::slurm
