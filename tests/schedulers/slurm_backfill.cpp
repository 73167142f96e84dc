// Conformance: backfill (spec slurm-model.md §2).
#include <catch2/catch.hpp>

#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::SlurmConfig;

namespace {
// 2 nodes x 8 GPUs. Job 1 runs on n001 until its limit (214 s). Job 2 needs both nodes, so it
// is planned at 214 and reserves n001-n002 for [214 down to 180, end]. Job 3 (one node, 200 s)
// cannot fit before that reservation, so it is planned after it.
std::vector<J> reservation_jobs() {
  return {{1, 0, 214, 214, 8}, {2, 1, 100, 100, 16}, {3, 2, 200, 200, 8}};
}
}  // namespace

TEST_CASE("slurm §2: backfill plans with time limits; 22.05 rounds the slot end down", "[slurm][backfill]") {
  SlurmConfig c;
  // Plans as of t=200, before job 2 starts (later cycles re-plan from the running job 2).
  auto p = run(c, reservation_jobs(), 2, 8, 200);
  CHECK(p->planned(2) == "214");
  // The reservation of job 2 ends at (214+100) rounded down to 60 s = 300: job 3 is planned then,
  // although job 2 is due to end at 314 (the live 22.05 observation in the spec).
  CHECK(p->planned(3) == "300");
  auto r = run(c, reservation_jobs(), 2);
  CHECK(r->start(1) == 0);
  CHECK(r->start(2) == 214);
  CHECK(r->start(3) == 314);
  CHECK(r->planned(3) == "314");  // re-planned once job 2 runs: its end by limit
}

TEST_CASE("slurm §2: version master rounds the slot end up", "[slurm][backfill]") {
  SlurmConfig c;
  c.version = floorsim::slurm::Version::Master;
  auto r = run(c, reservation_jobs(), 2, 8, 200);
  CHECK(r->planned(3) == "360");
}

TEST_CASE("slurm §2: a lower job starts only if it ends before the reservation (inclusive)", "[slurm][backfill]") {
  // Backfill runs at multiples of bf_interval (30 s). At t=30 job 2 holds both nodes from 180
  // (214 rounded down). Job 4 with limit 149 ends at 179 < 180: it starts at 30 on n002.
  // With limit 150 its end touches the reserved slice, so it does not.
  SlurmConfig c;
  auto jobs = reservation_jobs();
  jobs.push_back({4, 3, 149, 149, 8});
  auto r = run(c, jobs, 2);
  CHECK(r->start(4) == 30);
  CHECK(r->nodes(4) == std::vector<std::string>{"n002"});
  CHECK(r->start(2) == 214);
  jobs.back().limit = 150;
  jobs.back().runtime = 150;
  auto s = run(c, jobs, 2);
  CHECK(s->start(4) > 30);
  CHECK(s->start(2) == 214);
}

TEST_CASE("slurm §2: bf_interval and bf_resolution settings", "[slurm][backfill]") {
  SlurmConfig c;
  c.sched.bf_interval_s = 20;
  c.sched.bf_resolution_s = 30;
  auto jobs = reservation_jobs();
  jobs.push_back({4, 3, 100, 100, 8});
  auto r = run(c, jobs, 2, 8, 200);
  CHECK(r->start(4) == 20);            // first backfill cycle after t=0 is at 20
  CHECK(r->planned(2) == "214");
  CHECK(r->planned(3) == "300");       // (214+100) rounded down to 30 s (60 s would also give 300)
  c.version = floorsim::slurm::Version::Master;
  auto m = run(c, jobs, 2, 8, 200);
  CHECK(m->planned(3) == "330");       // rounded up to 30 s (60 s would give 360)
}

TEST_CASE("slurm §2: bf_max_job_test counts jobs that reach the select test", "[slurm][backfill]") {
  SlurmConfig c;
  c.sched.bf_max_job_test = 1;
  auto jobs = reservation_jobs();
  jobs.push_back({4, 3, 100, 100, 8});
  auto r = run(c, jobs, 2);
  CHECK(r->start(4) >= 214);  // only job 2 is tested per cycle: job 4 never backfills
  auto p = run(c, jobs, 2, 8, 200);
  CHECK(p->planned(2) == "214");
  CHECK(p->planned(3).empty());
}

TEST_CASE("slurm §2: bf_window bounds reservations", "[slurm][backfill]") {
  // Window 2 min: job 2's planned start (214) is beyond now+120 at t=30, so it gets no
  // reservation and job 3 (200 s) backfills on n002 at 30 -- delaying job 2.
  SlurmConfig c;
  c.sched.bf_window_s = 120;
  auto p = run(c, reservation_jobs(), 2, 8, 60);
  CHECK(p->planned(2).empty());
  auto r = run(c, reservation_jobs(), 2);
  CHECK(r->start(3) == 30);
  CHECK(r->start(2) == 230);
}

TEST_CASE("slurm §2: a NoReserve QOS gets no reservation", "[slurm][backfill]") {
  SlurmConfig c;
  auto nr = qos("nr");
  nr.flags.no_reserve = true;
  c.qos = {nr};
  auto jobs = reservation_jobs();
  jobs[1].qos = "nr";
  auto r = run(c, jobs, 2);
  CHECK(r->start(3) == 30);  // nothing reserved for job 2
  CHECK(r->start(2) == 230);
}

TEST_CASE("slurm §2: jobs over a QOS limit are skipped with no reservation", "[slurm][backfill]") {
  SlurmConfig c;
  c.sched.batch_sched_delay_s = 0;  // a pass at every event
  c.enforce_limits = true;
  auto q = qos("q");
  q.grp_tres.gpu = 8;
  c.qos = {q};
  // Job 2 (qos q) is over GrpTRES while job 1 (qos q) runs: it reserves nothing, so job 3
  // backfills at 30 although it would overlap job 2's start at 214.
  auto r = run(c, {{1, 0, 214, 214, 8, 0, "u1", "q"}, {2, 1, 100, 100, 8, 0, "u1", "q"}, {3, 2, 300, 300, 8}}, 2);
  CHECK(r->start(3) == 2);  // main loop: limit-blocked job 2 blocks nothing
  CHECK(r->start(2) == 214);
}

TEST_CASE("slurm §2: bf_max_job_user limits the jobs of one user a cycle tests", "[slurm][backfill]") {
  // Job 3 (u1) and job 4 (u2) both could backfill on n002 at 30 (end before 180). With
  // bf_max_job_user=1, u1's second job (3) is not tested, so job 4 gets the gap.
  SlurmConfig c;
  const std::vector<J> jobs = {{1, 0, 214, 214, 8}, {2, 1, 100, 100, 16}, {3, 2, 100, 100, 8}, {4, 3, 100, 100, 8, 0, "u2"}};
  auto r = run(c, jobs, 2);
  CHECK(r->start(3) == 30);
  c.sched.bf_max_job_user = 1;
  auto l = run(c, jobs, 2);
  CHECK(l->start(4) == 30);
  CHECK(l->start(3) > 30);
}

TEST_CASE("slurm §2: a job started by backfill takes its end-time place in the release order", "[slurm][backfill]") {
  // 4 nodes x 8 GPUs. j1 holds n001-n002 until 1000; j2 (all 4 nodes) is planned at 1000.
  // At the t=30 cycle j3 is backfilled on n003 until 330. j4 (3 nodes) is tested next:
  // _will_run_test sorts the running jobs by end, so j3 (330) is released before j1 (1000),
  // its group alone holds 2 nodes, and j4 fits only with j1's nodes at 1000, inside j2's
  // reservation: it is planned after it. Released after j1 instead, j3's end would close the
  // group and j4 would be planned at 330 on nodes still held by j1.
  SlurmConfig c;
  const std::vector<J> jobs = {{1, 0, 1000, 1000, 16}, {2, 1, 1000, 1000, 32}, {3, 2, 300, 300, 8}, {4, 3, 500, 500, 24}};
  auto p = run(c, jobs, 4, 8, 45);  // the plans of the t=30 cycle (the next one is at 60)
  CHECK(p->start(3) == 30);
  CHECK(p->planned(2) == "1000");
  CHECK(p->planned(4) == "1980");  // the end of j2's slot (2000 rounded down to 60 s)
}

TEST_CASE("slurm: jobs.csv started_by tells the main loop's starts from backfill's", "[slurm][backfill][started_by]") {
  // 2 nodes x 8 GPUs. Job 1 (main loop, t=0) takes n001; job 2 (16 GPUs) blocks the partition
  // for the main loop; job 3 (8 GPUs, 20 s, ends before job 2's reservation from 60 s) is
  // started by the backfill pass at 30 s.
  SlurmConfig c;
  c.sched.batch_sched_delay_s = 0;
  auto r = run(c, {{1, 0, 100, 100, 8}, {2, 1, 100, 100, 16}, {3, 2, 20, 20, 8}}, 2);
  REQUIRE(r->sched->extra_columns().at(3) == "started_by");
  CHECK(r->extras(1).at(3) == "main");
  CHECK(r->start(3) == 30);
  CHECK(r->extras(3).at(3) == "backfill");
  CHECK(r->extras(2).at(3) == "main");  // at job 1's end, by the main loop
  CHECK(r->report["backfill_starts"].get<int64_t>() == 1);
}
