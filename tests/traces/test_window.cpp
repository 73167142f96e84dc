// A wall-clock window of a trace (traces/window.hpp): which jobs a replay of [from, to) keeps,
// and what becomes of the jobs queued or running at `from`.
#include <catch2/catch.hpp>

#include "traces/window.hpp"

using namespace floorsim;

namespace {
JobSpec job(int64_t id, double submit, double start, double runtime, double limit) {
  JobSpec j;
  j.id = id;
  j.submit_s = submit;
  j.recorded_start_s = start;
  j.runtime_s = runtime;
  j.time_limit_s = limit;
  j.gpus = 1;
  return j;
}
const JobSpec& by_id(const Workload& w, int64_t id) {
  for (const auto& j : w.jobs)
    if (j.id == id) return j;
  FAIL("no job " << id);
  return w.jobs.front();
}
}  // namespace

TEST_CASE("window: wall-clock times read and written", "[traces][window]") {
  CHECK(traces::parse_wall_time("1970-01-01T00:01:00") == 60.0);
  CHECK(traces::parse_wall_time("2026-03-02T08:00:00") == 1772438400.0);
  CHECK(traces::parse_wall_time("2026-03-02 08:00:00") == 1772438400.0);
  CHECK(traces::parse_wall_time("2026-03-02T08:00:00Z") == 1772438400.0);
  CHECK(traces::parse_wall_time("2026-03-02T09:30:00+01:30") == 1772438400.0);
  CHECK_FALSE(traces::parse_wall_time("2026-03-02"));
  CHECK_FALSE(traces::parse_wall_time("2026-03-02T08:00:00 UTC"));
  CHECK_FALSE(traces::parse_wall_time("2026-13-02T08:00:00"));
  CHECK(traces::format_wall_time(1772438400) == "2026-03-02T08:00:00");
  CHECK(traces::format_wall_time(59.9) == "1970-01-01T00:00:59");
}

TEST_CASE("window: jobs of [from, to), and those cut by from", "[traces][window]") {
  // The trace's t = 0 is wall 1000; the window is wall [1100, 1300) = trace [100, 300).
  Workload w;
  w.jobs = {job(1, 0, 10, 50, 60),      // ended at 60, before from: dropped
            job(2, 20, 40, 200, 300),   // running at from (started 40, ends 240): carried in
            job(3, 50, 150, 100, 100),  // queued at from, started after it: carried in
            job(4, 90, -1, 30, 30),     // queued at from, start unknown: carried in
            job(5, 100, 120, 10, 20),   // submitted at from: in the window
            job(6, 299, 300, 10, 20),   // the last second of the window
            job(7, 300, 310, 10, 20)};  // submitted at to: dropped
  const traces::WindowCounts c = traces::select_window(w, 1000, 1100, 1300);
  CHECK(c.ended_before_from == 1);
  CHECK(c.running_at_from == 1);
  CHECK(c.pending_at_from == 2);
  CHECK(c.in_window == 2);
  CHECK(c.submitted_after_to == 1);
  REQUIRE(w.jobs.size() == 5);
  // t = 0 is now `from`; carried-in jobs come first, by id.
  CHECK(w.jobs[0].id == 2);
  CHECK(w.jobs[1].id == 3);
  CHECK(w.jobs[2].id == 4);
  const JobSpec& running = by_id(w, 2);
  CHECK(running.submit_s == 0);
  CHECK(running.runtime_s == 140);      // 240 - 100 left
  CHECK(running.time_limit_s == 240);   // 300 - (100 - 40)
  CHECK(running.recorded_start_s == 0);
  const JobSpec& queued = by_id(w, 3);
  CHECK(queued.submit_s == 0);
  CHECK(queued.runtime_s == 100);
  CHECK(queued.recorded_start_s == 50);
  CHECK(by_id(w, 5).submit_s == 0);
  CHECK(by_id(w, 5).recorded_start_s == 20);
  CHECK(by_id(w, 6).submit_s == 199);
}

TEST_CASE("window: a job past its limit at from keeps the run time it had left", "[traces][window]") {
  Workload w;
  w.jobs = {job(1, 0, 0, 500, 400)};  // ran 500 s on a 400 s limit (OverTimeLimit grace)
  traces::select_window(w, 0, 450, 1000);
  REQUIRE(w.jobs.size() == 1);
  CHECK(w.jobs[0].runtime_s == 50);
  CHECK(w.jobs[0].time_limit_s == 50);
}
