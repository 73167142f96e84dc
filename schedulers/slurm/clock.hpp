#pragma once
// The wall clock under the backfill map. slurmctld rounds the map's begin and end and every
// planned start and end to multiples of bf_resolution in epoch seconds (backfill.c
// _attempt_backfill: `(start_time / backfill_resolution) * backfill_resolution`), so the
// rounding depends on where t = 0 falls on the wall clock (the scenario's "clock"). A simulated
// time t is the wall-clock time t0 + t; these round on the wall clock and give simulated seconds.
// With t0 a multiple of the resolution (phase 0, also when t0 is unknown) they are
// floor(t / res) * res and ceil(t / res) * res exactly.
#include <cmath>

namespace floorsim::slurm {

// t0 mod res, in [0, res).
inline double clock_phase(double t0_wall_s, double res) {
  const double p = std::fmod(t0_wall_s, res);
  return p < 0 ? p + res : p;
}
// The latest wall-clock multiple of res at or before t (simulated seconds).
inline double round_down_wall(double t, double res, double phase) { return std::floor((t + phase) / res) * res - phase; }
// The earliest wall-clock multiple of res at or after t.
inline double round_up_wall(double t, double res, double phase) { return std::ceil((t + phase) / res) * res - phase; }

}  // namespace floorsim::slurm
