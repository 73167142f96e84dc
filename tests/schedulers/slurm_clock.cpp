// The wall clock under the backfill map: bf_resolution rounds epoch seconds (backfill.c rounds
// start_time and end_reserve of time_t values), so where t = 0 falls on the clock moves the plan.
#include <catch2/catch.hpp>

#include "schedulers/slurm/clock.hpp"
#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::SlurmConfig;

namespace {
// 2026-03-02T08:00:00Z, a multiple of every resolution that divides an hour.
constexpr double kOnTheHour = 1772438400;
std::vector<J> reservation_jobs() { return {{1, 0, 214, 214, 8}, {2, 1, 100, 100, 16}, {3, 2, 200, 200, 8}}; }
}  // namespace

TEST_CASE("clock: rounding on the wall clock, in simulated seconds", "[slurm][clock]") {
  using floorsim::slurm::clock_phase;
  using floorsim::slurm::round_down_wall;
  using floorsim::slurm::round_up_wall;
  CHECK(clock_phase(kOnTheHour, 60) == 0);
  CHECK(clock_phase(kOnTheHour + 20, 60) == 20);
  CHECK(clock_phase(-10, 60) == 50);
  // Phase 0: exactly floor/ceil of the simulated time (outputs without a wall clock unchanged).
  CHECK(round_down_wall(314, 60, 0) == 300);
  CHECK(round_up_wall(314, 60, 0) == 360);
  CHECK(round_down_wall(300, 60, 0) == 300);
  // t = 0 is 20 s past a minute: the multiples of 60 on the clock are at 40, 100, ... 280, 340.
  CHECK(round_down_wall(314, 60, 20) == 280);
  CHECK(round_up_wall(314, 60, 20) == 340);
  CHECK(round_down_wall(280, 60, 20) == 280);
  CHECK(round_down_wall(0, 300, 120) == -120);  // the map may begin before t = 0
}

TEST_CASE("clock: backfill plans align with the wall clock of t = 0", "[slurm][backfill][clock]") {
  // As "22.05 rounds the slot end down" (slurm_backfill.cpp): job 2's reservation ends at
  // 214 + 100 = 314, rounded down to a minute of the wall clock; job 3 is planned then.
  SlurmConfig c;
  c.sched.t0_wall_s = kOnTheHour;
  CHECK(run(c, reservation_jobs(), 2, 8, 200)->planned(3) == "300");
  c.sched.t0_wall_s = kOnTheHour + 20;  // t = 314 is 08:05:34; the minute before is 08:05:00, t = 280
  CHECK(run(c, reservation_jobs(), 2, 8, 200)->planned(3) == "280");
  c.version = floorsim::slurm::Version::Master;  // rounded up: 08:06:00, t = 340
  CHECK(run(c, reservation_jobs(), 2, 8, 200)->planned(3) == "340");
}
