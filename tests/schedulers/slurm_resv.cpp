// Conformance: advanced reservations (spec slurm-model.md §6).
#include <catch2/catch.hpp>

#include "schedulers/slurm/model.hpp"
#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::SlurmConfig;
namespace sl = floorsim::slurm;

namespace {
sl::Reservation resv(const std::string& name, double start, double dur) {
  sl::Reservation r;
  r.name = name;
  r.start_s = start;
  r.duration_s = dur;
  r.request_classes = {"var"};
  return r;
}
}  // namespace

TEST_CASE("slurm §6: whole-node reservation: outsiders only if they miss the window", "[slurm][resv]") {
  SlurmConfig c;
  auto r = resv("var_window", 100, 100);
  r.nodes = {"n001"};
  r.accounts = {"risk"};
  c.reservations = {r};
  auto res = run(c, {{1, 0, 150, 150, 8}, {2, 0, 50, 50, 8, 0, "u1", "", "", "risk", "var"}, {3, 1, 100, 150, 8}}, 2);
  CHECK(res->start(1) == 0);
  CHECK(res->nodes(1) == std::vector<std::string>{"n002"});  // [0,150) overlaps the window: not n001
  CHECK(res->start(2) == 100);                                 // waits for its window
  CHECK(res->nodes(2) == std::vector<std::string>{"n001"});
  CHECK(res->start(3) == 150);
  CHECK(res->nodes(3) == std::vector<std::string>{"n002"});
  // Idle reserved GPU-seconds: job 2 used the 8 GPUs for [100,150) of [100,200).
  const auto& rv = res->report["reservations"]["var_window"];
  CHECK(rv["idle_gpu_s"].get<double>() == 400);
  CHECK(rv["idle_gpu_s_by_association"]["risk"].get<double>() == 400);
  auto w = run(c, {{2, 0, 50, 50, 8, 0, "u1", "", "", "risk", "var"}}, 2, 8, 50);
  CHECK(w->reason(2) == "Reservation");
}

TEST_CASE("slurm §6: DAILY reservation: outsiders wait for the window end, insiders for the next window", "[slurm][resv]") {
  SlurmConfig c;
  auto r = resv("var", 3600, 3600);
  r.node_cnt = 1;
  r.period = sl::Reservation::Period::Daily;
  c.reservations = {r};
  auto res = run(c, {{1, 0, 3000, 3000, 8}, {2, 1, 3000, 3000, 8}, {3, 10000, 3000, 3000, 8, 0, "u1", "", "", "", "var"}}, 1);
  CHECK(res->start(1) == 0);     // [0,3000) misses [3600,7200)
  CHECK(res->start(2) == 7200);  // [3000,6000) would overlap: waits for the window's end
  CHECK(res->start(3) == 90000); // next occurrence: 86400 + 3600
  // Idle: the whole first window, and [93000, 93600) of the second after job 3 ended (the run
  // lasts until 93600, when the reservation's end was due).
  CHECK(res->report["reservations"]["var"]["idle_gpu_s"].get<double>() == 8 * 3600 + 8 * 600);
}

TEST_CASE("slurm §6: an insider must fit the window in time unless FLEX", "[slurm][resv]") {
  SlurmConfig c;
  auto r = resv("w", 100, 100);
  r.nodes = {"n001"};
  c.reservations = {r};
  auto res = run(c, {{1, 0, 50, 150, 8, 0, "u1", "", "", "", "var"}}, 1, 8, 1000);
  CHECK(res->start(1) == -1);  // limit 150 > window 100: never (one-off)
  CHECK(res->reason(1) == "Reservation");
  c.reservations[0].flex = true;
  auto f = run(c, {{1, 0, 50, 150, 8, 0, "u1", "", "", "", "var"}}, 1);
  CHECK(f->start(1) == 0);  // FLEX: earlier start, later end
}

TEST_CASE("slurm §6: MAGNETIC attracts jobs allowed in that did not ask", "[slurm][resv]") {
  SlurmConfig c;
  auto r = resv("m", 0, 1000);
  r.nodes = {"n002"};
  r.users = {"u9"};
  r.request_classes = {};
  r.magnetic = true;
  c.reservations = {r};
  auto res = run(c, {{1, 0, 50, 50, 8, 0, "u9"}, {2, 0, 50, 50, 8, 0, "u1"}}, 2);
  CHECK(res->nodes(1) == std::vector<std::string>{"n002"});
  CHECK(res->nodes(2) == std::vector<std::string>{"n001"});
}

TEST_CASE("slurm §6: MAGNETIC is optional: an attracted job that does not fit the reservation runs outside it",
          "[slurm][resv][magnetic]") {
  // n001 is a MAGNETIC reservation for u9 over [0, 1000). Job 1 (u9) fills it; job 2 (u9, 8
  // GPUs) is attracted but the reservation is full: slurmctld also queues it without the
  // reservation (build_job_queue), so it starts at once on n002 instead of waiting for job 1.
  // Job 3 (u9, 8 GPUs, limit past the window's end) cannot fit the window in time: outside too.
  for (bool bf : {false, true}) {
    INFO("backfill " << bf);
    SlurmConfig c;
    c.sched.backfill = bf;
    c.sched.batch_sched_delay_s = 0;
    auto r = resv("m", 0, 1000);
    r.nodes = {"n001"};
    r.users = {"u9"};
    r.request_classes = {};
    r.magnetic = true;
    c.reservations = {r};
    auto res = run(c, {{1, 0, 500, 500, 8, 0, "u9"}, {2, 1, 100, 100, 8, 0, "u9"}, {3, 200, 100, 2000, 8, 0, "u9"}}, 3);
    CHECK(res->nodes(1) == std::vector<std::string>{"n001"});
    CHECK(res->start(2) == 1);
    CHECK(res->nodes(2) == std::vector<std::string>{"n002"});
    CHECK(res->start(3) == 200);
    CHECK(res->nodes(3) == std::vector<std::string>{"n002"});
  }
}

TEST_CASE("slurm §6: TRES=gres/gpu:N reserves only N GPUs", "[slurm][resv]") {
  SlurmConfig c;
  auto r = resv("g", 0, 1000);
  r.gpus = 4;
  c.reservations = {r};
  auto res = run(c, {{1, 0, 50, 50, 8}, {2, 0, 50, 50, 4}, {3, 0, 50, 50, 4, 0, "u1", "", "", "", "var"}}, 1);
  CHECK(res->start(1) == 1000);  // 8 GPUs: only 4 are outside the reservation until it ends
  CHECK(res->planned(1) == "1000");
  CHECK(res->start(2) == 0);     // behind the blocked job 1: backfilled (a cycle is due at 0)
  CHECK(res->start(3) == 0);
}

TEST_CASE("slurm §6: PURGE_COMP[=t] deletes a reservation idle for t; its later jobs are held (ResvDeleted)",
          "[slurm][resv]") {
  // 2 nodes x 8 GPUs; reservation p on n001 for [0, 3600). Job 1 (in p) runs [0, 100). Job 2
  // (16 GPUs, outside) needs n001: it waits for the window's end, or for the purge once p has
  // been idle for t after job 1 ended. Job 3 asks for p after it was purged: held.
  struct Row {
    bool purge;
    double purge_s;
    SimTime start2;
    double idle_gpu_s;  // reserved and unused until the window's end or the purge
  };
  const Row rows[] = {{false, 300, 3600, 8 * 3500}, {true, 300, 400, 8 * 300}, {true, 60, 160, 8 * 60}};
  for (const auto& row : rows) {
    SlurmConfig c;
    auto r = resv("p", 0, 3600);
    r.nodes = {"n001"};
    r.purge_comp = row.purge;
    r.purge_comp_s = row.purge_s;
    c.reservations = {r};
    auto res = run(c,
                   {{1, 0, 100, 200, 8, 0, "u1", "", "", "", "var"},
                    {2, 10, 50, 100, 16},
                    {3, 5000, 10, 10, 8, 0, "u1", "", "", "", "var"}},
                   2);
    INFO("purge " << row.purge << " after " << row.purge_s << " s");
    CHECK(res->start(1) == 0);
    CHECK(res->start(2) == row.start2);
    const auto& rv = res->report["reservations"]["p"];
    CHECK(rv["idle_gpu_s"].get<double>() == row.idle_gpu_s);
    if (row.purge) {
      CHECK(rv["purged_at_s"].get<double>() == 100 + row.purge_s);
      CHECK(res->start(3) == -1);
      CHECK(res->reason(3) == "ResvDeleted");
    } else {
      CHECK_FALSE(rv.contains("purged_at_s"));
      CHECK(res->reason(3) == "ResvDeleted");  // a one-off reservation that ended: held too
    }
  }
}

// A recurring reservation whose window is shorter than a job's time limit can hold that job in
// none of its occurrences (not FLEX: the job must fit inside the window). The run must still
// end: a job that asked for it stays pending (Reason=Reservation) without a wake-up for every
// occurrence, and one that MAGNETIC only attracted runs outside it, as slurmctld queues such a
// job once without the reservation too (job_scheduler.c build_job_queue). Both ran forever, one
// pass a day, before. The horizon only bounds the check: the passes must not go on to it.
TEST_CASE("slurm §6: a job longer than every window of a recurring reservation does not run the clock forever",
          "[slurm][resv]") {
  const double horizon_s = 30 * 86400;
  SECTION("asked for it: pending with Reason=Reservation") {
    SlurmConfig c;
    auto r = resv("daily", 0, 3600);
    r.nodes = {"n001"};
    r.period = sl::Reservation::Period::Daily;
    c.reservations = {r};
    auto res = run(c, {{1, 0, 600, 7200, 8, 0, "u1", "", "", "", "var"}, {2, 0, 600, 3000, 8, 0, "u1", "", "", "", "var"}}, 2,
                   8, horizon_s);
    CHECK(res->start(1) == -1);
    CHECK(res->reason(1) == "Reservation");
    CHECK(res->start(2) == 0);  // fits the window: runs in it
    CHECK(res->nodes(2) == std::vector<std::string>{"n001"});
    CHECK(res->report["main_passes"].get<uint64_t>() < 10);
  }
  SECTION("MAGNETIC only: runs outside it") {
    SlurmConfig c;
    auto r = resv("daily", 0, 3600);
    r.nodes = {"n001"};
    r.users = {"u9"};
    r.request_classes = {};
    r.magnetic = true;
    r.period = sl::Reservation::Period::Daily;
    c.reservations = {r};
    auto res = run(c, {{1, 0, 600, 7200, 8, 0, "u9"}, {2, 0, 600, 3000, 8, 0, "u9"}}, 2, 8, horizon_s);
    CHECK(res->start(1) == 0);
    CHECK(res->nodes(1) == std::vector<std::string>{"n002"});
    CHECK(res->start(2) == 0);  // fits the window: attracted into it
    CHECK(res->nodes(2) == std::vector<std::string>{"n001"});
    CHECK(res->report["main_passes"].get<uint64_t>() < 10);
  }
}

TEST_CASE("slurm §6: reservations a job did not ask for keep it out of every gap: the model stops waking once the pattern has repeated",
          "[slurm][resv]") {
  // n001 is reserved for u9 for the first 600 s of every hour. A job of u1 with a 7,200 s limit
  // overlaps every occurrence, so no boundary can ever start it (slurmctld leaves it pending).
  // Found by the slurm_sim fuzzer: the model used to wake at every boundary for ever.
  SlurmConfig c;
  auto r = resv("hourly", 0, 600);
  r.nodes = {"n001"};
  r.users = {"u9"};
  r.request_classes = {};
  r.period = sl::Reservation::Period::Hourly;
  c.reservations = {r};
  const double horizon_s = 30 * 86400;  // 1,440 boundaries before the fix
  SECTION("no event ahead: one hour of boundaries, then none") {
    auto res = run(c, {{1, 0, 600, 7200, 8, 0, "u1"}}, 1, 8, horizon_s);
    CHECK(res->start(1) == -1);
    CHECK(res->reason(1) == "Resources");  // as the model reports a job the reserved nodes keep out
    CHECK(res->report["main_passes"].get<uint64_t>() < 10);
    // A backfill test retries at the end of each occurrence inside the window (a day: 24) and
    // stops there; it walked 10,000 occurrences (416 days) a test before (found by slurm_sim).
    const auto& wc = dynamic_cast<const sl::SlurmModel&>(*res->sched).work_counts();
    REQUIRE(wc.bf_tests > 0);
    CHECK(wc.bf_retries <= wc.bf_tests * 25);
  }
  SECTION("a later submission starts a new stretch: a job that fits a gap starts in the next one") {
    const double t = 2 * 86400 + 100;  // inside that hour's window
    auto res = run(c, {{1, 0, 600, 7200, 8, 0, "u1"}, {2, t, 600, 1800, 8, 0, "u1"}}, 1, 8, horizon_s);
    CHECK(res->start(1) == -1);
    CHECK(res->start(2) == 2 * 86400 + 600);
    CHECK(res->report["main_passes"].get<uint64_t>() < 20);
  }
}
