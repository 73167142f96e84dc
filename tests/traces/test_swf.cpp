// SWF reader: the real PWA logs (KTH-SP2, NASA-iPSC, accasim excerpt) and one small file per quirk.
#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "tests/traces/test_helpers.hpp"
#include "traces/trace.hpp"

using namespace floorsim;
using namespace floorsim::traces;
using namespace floorsim::traces::test;

TEST_CASE("SWF KTH-SP2: 28,476 rows, one job skipped for unknown processors", "[traces][swf][real]") {
  const auto d = read_trace(bundled("pwa/KTH-SP2-1996-2.1-cln.swf.gz"), Format::Swf);
  CHECK(d.report.rows == 28476);
  // Job 27313 has -1 for both allocated and requested processors: we do not guess its size.
  CHECK(skipped(d, "procs_unknown") == 1);
  CHECK(d.report.jobs == 28475);
  CHECK(d.workload.jobs.size() == 28475);
  CHECK(find_job(d, 27313) == nullptr);
  const auto& first = d.workload.jobs.front();
  CHECK(first.id == 15);
  CHECK(first.submit_s == 599850);  // not 0: 14 jobs were cleaned away
  CHECK(first.recorded_start_s == 599850 + 192180);
  CHECK(first.runtime_s == 3477);
  CHECK(first.gpus == 4);
  CHECK(first.time_limit_s == 53940);
  CHECK(str(d, first.user) == "u12");
  CHECK(str(d, first.account) == "g12");
  CHECK(first.nodes == 0);
  // Status is only 0/1 and every job has a requested time: nothing adjusted.
  CHECK(d.report.adjusted.empty());
  CHECK(d.report.header.at("MaxProcs") == "100");
  CHECK(d.report.header.at("UnixStartTime") == "843480031");
  CHECK(d.report.header.at("Note").find("EASY") != std::string::npos);
  // Runs longer than the requested time are kept as recorded (limits were not enforced).
  size_t over = 0;
  for (const auto& j : d.workload.jobs) over += j.runtime_s > j.time_limit_s;
  CHECK(over == 475);
  const auto& last = d.workload.jobs.back();
  CHECK(last.id == 28490);
  CHECK(last.submit_s == 29363618);
}

TEST_CASE("SWF NASA-iPSC: wait -1 everywhere gives no recorded start; missing limits counted", "[traces][swf][real]") {
  const auto d = read_trace(bundled("pwa/NASA-iPSC-1993-3.1-cln.swf.gz"), Format::Swf);
  CHECK(d.report.rows == 18239);
  CHECK(d.report.jobs == 18239);
  for (const auto& j : d.workload.jobs) REQUIRE(j.recorded_start_s == -1);
  CHECK(adjusted(d, "time_limit_unknown_set_to_runtime") == 18239);
  for (const auto& j : d.workload.jobs) REQUIRE(j.time_limit_s == j.runtime_s);

  ReadOptions unlimited;
  unlimited.missing_limit_is_runtime = false;
  const auto u = read_trace(bundled("pwa/NASA-iPSC-1993-3.1-cln.swf.gz"), Format::Swf, unlimited);
  CHECK(adjusted(u, "time_limit_unknown_set_unlimited") == 18239);
  CHECK(u.workload.jobs.front().time_limit_s == kNever);

  ReadOptions drop0;
  drop0.drop_zero_runtime = true;
  const auto z = read_trace(bundled("pwa/NASA-iPSC-1993-3.1-cln.swf.gz"), Format::Swf, drop0);
  CHECK(skipped(z, "zero_runtime") == 173);
  CHECK(z.report.jobs == 18239 - 173);
}

TEST_CASE("SWF accasim excerpt: leading spaces, float fields, job-number gaps", "[traces][swf][real]") {
  const auto d = read_trace(bundled("pwa/accasim_tests_workload_excerpt.swf"), Format::Swf);
  CHECK(d.report.rows == 25);
  CHECK(d.report.jobs == 25);
  CHECK(d.workload.jobs.front().id == 184);
  const auto* j = find_job(d, 5684);  // field 6 is 316.04
  REQUIRE(j);
  CHECK(j->runtime_s == 316);
  CHECK(j->gpus == 1);
  CHECK(j->time_limit_s == 54000);
  // Two jobs share submit 3891447: ordered by id.
  const auto& jobs = d.workload.jobs;
  CHECK(jobs[jobs.size() - 2].id == 5686);
  CHECK(jobs.back().id == 5687);
}

TEST_CASE("SWF quirks: statuses, partial records, unknowns, unsorted input", "[traces][swf]") {
  const auto d = read_trace(data_file("swf_quirks.swf"), Format::Swf);
  CHECK(d.report.rows == 11);
  CHECK(d.report.jobs == 5);
  CHECK(skipped(d, "partial_execution_record") == 3);  // status 2, 3, 4
  CHECK(skipped(d, "cancelled_before_start") == 1);    // status 5, run 0
  CHECK(skipped(d, "runtime_unknown") == 1);
  CHECK(skipped(d, "procs_unknown") == 1);
  CHECK(adjusted(d, "time_limit_unknown_set_to_runtime") == 1);
  CHECK(d.report.header.at("Computer") == "test machine");
  CHECK(d.report.header.at("Note") == "first note | second note");

  const auto& jobs = d.workload.jobs;
  REQUIRE(jobs.size() == 5);
  // Sorted by (submit, id): 18 (submit 90, listed last), 3 and 5 (both 100), 9, 13.
  CHECK(jobs[0].id == 18);
  CHECK(jobs[1].id == 3);
  CHECK(jobs[2].id == 5);
  CHECK(jobs[3].id == 9);
  CHECK(jobs[4].id == 13);
  CHECK(jobs[1].recorded_start_s == 110);
  CHECK(str(d, jobs[1].qos) == "q0");
  CHECK(str(d, jobs[1].partition) == "p1");
  CHECK(jobs[2].gpus == 2);  // requested -1: allocated procs
  CHECK(jobs[2].time_limit_s == 20);
  CHECK(jobs[3].gpus == 8);  // tab-separated, allocated -1: requested procs
  CHECK(jobs[3].runtime_s == 30.5);
  CHECK(jobs[3].recorded_start_s == -1);
  CHECK(jobs[3].user == 0);  // -1 user: empty string
  CHECK(jobs[4].id == 13);   // status 5 that ran for 40 s is kept
  CHECK(jobs[4].runtime_s == 40);
}

TEST_CASE("SWF gpus_per_proc scales processors", "[traces][swf]") {
  ReadOptions o;
  o.gpus_per_proc = 8;
  const auto d = read_trace(data_file("swf_quirks.swf"), Format::Swf, o);
  CHECK(find_job(d, 3)->gpus == 32);
}

TEST_CASE("SWF CRLF line endings", "[traces][swf]") {
  const auto d = read_trace(data_file("swf_crlf.swf"), Format::Swf);
  REQUIRE(d.report.jobs == 2);
  CHECK(d.workload.jobs[1].submit_s == 5);
}

TEST_CASE("SWF malformed lines are InputErrors with file:line", "[traces][swf][errors]") {
  const auto bad = data_file("swf_bad_field.swf");
  try {
    read_trace(bad, Format::Swf);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(bad + ":3:") == 0);
    CHECK(std::string(e.what()).find("field 4 (run time)") != std::string::npos);
    CHECK(e.where() == "3");
  }
  const auto short_line = data_file("swf_short_line.swf");
  try {
    read_trace(short_line, Format::Swf);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(short_line + ":3:") == 0);
    CHECK(std::string(e.what()).find("18") != std::string::npos);
  }
  CHECK_THROWS_AS(read_trace(data_file("no_such_file.swf"), Format::Swf), InputError);
}

TEST_CASE("max_jobs keeps the first N by submit time and counts the rest", "[traces][swf]") {
  ReadOptions o;
  o.max_jobs = 100;
  const auto d = read_trace(bundled("pwa/KTH-SP2-1996-2.1-cln.swf.gz"), Format::Swf, o);
  CHECK(d.report.jobs == 100);
  CHECK(skipped(d, "beyond_max_jobs") == 28475 - 100);
  CHECK(d.workload.jobs.front().id == 15);
}

TEST_CASE("Reading twice gives identical jobs (determinism)", "[traces][determinism]") {
  const auto a = read_trace(bundled("pwa/KTH-SP2-1996-2.1-cln.swf.gz"), Format::Swf);
  const auto b = read_trace(bundled("pwa/KTH-SP2-1996-2.1-cln.swf.gz"), Format::Swf);
  REQUIRE(a.workload.jobs.size() == b.workload.jobs.size());
  for (size_t i = 0; i < a.workload.jobs.size(); ++i) {
    REQUIRE(same_job(a.workload, a.workload.jobs[i], b.workload, b.workload.jobs[i]));
    REQUIRE(a.workload.jobs[i].user == b.workload.jobs[i].user);  // same intern order too
  }
  CHECK(a.report.skipped == b.report.skipped);
  CHECK(a.report.adjusted == b.report.adjusted);
}
