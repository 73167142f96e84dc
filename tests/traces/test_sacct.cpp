// sacct --parsable2 reader: the real UB CCR dumps (pipe and newline corruption, steps, arrays,
// an orphan fragment) and a small file with one row per quirk.
#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "tests/traces/test_helpers.hpp"
#include "traces/trace.hpp"

using namespace floorsim;
using namespace floorsim::traces;
using namespace floorsim::traces::test;

namespace {
ReadOptions keep_cpu() {
  ReadOptions o;
  o.keep_cpu_jobs = true;  // the sample dumps have no GPU jobs
  return o;
}
}  // namespace

TEST_CASE("sacct simple: 3 of 4 JobNames carry a '|'", "[traces][sacct][real]") {
  const auto d = read_trace(shared_trace("slurm-sacct/sacct_simple.log"), Format::Sacct, keep_cpu());
  CHECK(d.report.rows == 4);
  CHECK(d.report.jobs == 4);
  CHECK(adjusted(d, "pipe_in_free_text_recovered") == 3);
  const auto* j3 = find_job(d, 3);
  REQUIRE(j3);
  CHECK(j3->nodes == 2);
  CHECK(j3->cpus == 18);
  CHECK(j3->runtime_s == 33 * 60 + 29);       // 14:23:31 -> 14:57:00
  CHECK(j3->recorded_start_s - j3->submit_s == 3);
  CHECK(j3->time_limit_s == 3 * 86400);       // 3-00:00:00
  CHECK(str(d, j3->user) == "user003");
  CHECK(str(d, j3->account) == "account003");
  CHECK(str(d, j3->partition) == "general-compute");
  CHECK(str(d, j3->qos) == "general-compute");
  const auto* j4 = find_job(d, 4);  // job_|00004: the NTasks column after JobName stays aligned
  REQUIRE(j4);
  CHECK(j4->runtime_s == 33 * 60 + 23);
  // Default: CPU-only jobs are skipped and counted.
  const auto dflt = read_trace(shared_trace("slurm-sacct/sacct_simple.log"), Format::Sacct);
  CHECK(dflt.report.jobs == 0);
  CHECK(skipped(dflt, "cpu_only_job") == 4);
}

TEST_CASE("sacct dump2101: arrays, steps, cancelled-while-pending, doctored names, orphan fragment",
          "[traces][sacct][real]") {
  const auto d = read_trace(shared_trace("slurm-sacct/sacct_dump2101.log"), Format::Sacct, keep_cpu());
  CHECK(d.report.rows == 15);  // 15 physical lines after the header, one record each
  CHECK(skipped(d, "orphan_fragment") == 1);  // the last line: its first fields are missing
  CHECK(skipped(d, "step_row") == 2);          // .batch, .extern
  // Array tasks 4744528_255 etc. were CANCELLED by a uid while held: Start = End, None assigned.
  CHECK(skipped(d, "never_started") == 6);
  CHECK(d.report.jobs == 6);
  CHECK(find_job(d, 4745200) == nullptr);  // JobIDRaw of array task 4744528_255
  // Lines 12-15: Constraints `cpu-a|cpu-b(|gpu)` and JobNames `Job| Name003`, `Jo| bNa| me003`.
  CHECK(adjusted(d, "pipe_in_free_text_recovered") == 4);
  for (int64_t id = 4830973; id <= 4830977; ++id) {
    const auto* j = find_job(d, id);
    REQUIRE(j);
    CHECK(j->runtime_s == 3 * 86400 + 22);  // 3-00:00:22 (TIMEOUT)
    CHECK(j->time_limit_s == 3 * 86400);
    CHECK(j->cpus == 40);
    CHECK(str(d, j->user) == "user005");
    CHECK(str(d, j->qos) == "mrisupport");
  }
}

TEST_CASE("sacct dump2110: '|' inside SubmitLine and Constraints", "[traces][sacct][real]") {
  const auto d = read_trace(shared_trace("slurm-sacct/sacct_dump2110.log"), Format::Sacct, keep_cpu());
  CHECK(d.report.rows == 7);
  CHECK(skipped(d, "step_row") == 2);
  CHECK(d.report.jobs == 5);  // the same job 7957382, doctored five ways
  CHECK(adjusted(d, "pipe_in_free_text_recovered") == 5);
  for (const auto& j : d.workload.jobs) {
    CHECK(j.id == 7957382);
    CHECK(j.runtime_s == 56);
    CHECK(j.time_limit_s == 86400);  // 1-00:00:00, right of the SubmitLine
    CHECK(str(d, j.user) == "user001");
    CHECK(str(d, j.partition) == "partition001");
  }
}

TEST_CASE("sacct multi-line SubmitLine: physical lines joined into one record", "[traces][sacct][real]") {
  const auto d = read_trace(shared_trace("slurm-sacct/sacct_submitline_multiline.log"), Format::Sacct, keep_cpu());
  CHECK(d.report.rows == 13);  // 17 non-empty physical lines, one record spans 5
  CHECK(adjusted(d, "record_split_across_lines_joined") == 1);
  CHECK(skipped(d, "step_row") == 7);  // incl. 9067954 .batch .extern .0 .1 .2
  CHECK(d.report.jobs == 6);
  const auto* big = find_job(d, 9067954);
  REQUIRE(big);
  CHECK(big->nodes == 16);
  CHECK(big->cpus == 576);
}

TEST_CASE("sacct quirks: TRES GPUs, limits, arrays, steps, states, fragments", "[traces][sacct]") {
  const auto d = read_trace(data_file("sacct_quirks.log"), Format::Sacct);
  CHECK(d.report.rows == 12);
  CHECK(skipped(d, "step_row") == 3);
  CHECK(skipped(d, "never_started") == 2);     // PENDING (Unknown) and CANCELLED by uid
  CHECK(skipped(d, "still_running") == 1);     // End Unknown
  CHECK(skipped(d, "orphan_fragment") == 1);   // a record tail in the middle of the file
  CHECK(skipped(d, "cpu_only_job") == 1);
  CHECK(adjusted(d, "record_split_across_lines_joined") == 1);
  REQUIRE(d.report.jobs == 4);

  const auto* j100 = find_job(d, 100);
  REQUIRE(j100);
  CHECK(j100->gpus == 4);  // gres/gpu=4
  CHECK(j100->submit_s == 0);
  CHECK(j100->recorded_start_s == 60);
  CHECK(j100->runtime_s == 3600);
  CHECK(j100->time_limit_s == 7200);
  CHECK(j100->priority == 1000);

  const auto* j105 = find_job(d, 105);  // array task 101_3: id from JobIDRaw; JobName "a|b"
  REQUIRE(j105);
  CHECK(j105->gpus == 8);  // typed gres/gpu:h200=8 only
  CHECK(j105->nodes == 2);
  CHECK(j105->time_limit_s == kNever);  // UNLIMITED
  CHECK(j105->runtime_s == 86400);
  CHECK(str(d, j105->user) == "bob");

  const auto* j102 = find_job(d, 102);  // SubmitLine over 3 lines, one with a '|'
  REQUIRE(j102);
  CHECK(j102->gpus == 2);                // untyped gres/gpu=2 wins over gres/gpu:a100=1
  CHECK(j102->time_limit_s == 3600);     // Partition_Limit -> TimelimitRaw 60 minutes
  CHECK(j102->runtime_s == 600);

  const auto* j106 = find_job(d, 106);  // right after the orphan fragment
  REQUIRE(j106);
  CHECK(j106->runtime_s == 30);
  CHECK(str(d, j106->qos) == "high");

  ReadOptions o;
  o.keep_cpu_jobs = true;
  const auto k = read_trace(data_file("sacct_quirks.log"), Format::Sacct, o);
  const auto* j108 = find_job(k, 108);
  REQUIRE(j108);
  CHECK(j108->gpus == 0);
  CHECK(j108->time_limit_s == 86400);  // "1-00"
}

TEST_CASE("sacct: a trailing fragment is skipped, a malformed line is an InputError", "[traces][sacct][errors]") {
  const auto d = read_trace(data_file("sacct_trailing_fragment.log"), Format::Sacct);
  CHECK(d.report.jobs == 1);
  CHECK(skipped(d, "orphan_fragment") == 1);

  const auto bad = data_file("sacct_bad_time.log");
  try {
    read_trace(bad, Format::Sacct);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    const std::string w = e.what();
    CHECK(w.find(bad + ":3:") == 0);
    CHECK(w.find("column Submit") != std::string::npos);
  }
}
