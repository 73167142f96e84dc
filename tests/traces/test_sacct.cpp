// sacct --parsable2 reader: dumps with 26, 107 and 109 columns (pipe and newline corruption,
// steps, arrays, an orphan fragment), requeued jobs, and a small file with one row per quirk.
#include <fstream>

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
  o.keep_cpu_jobs = true;  // some fixture dumps have CPU-only jobs
  return o;
}
}  // namespace

TEST_CASE("sacct pipes: 3 of 4 JobNames carry a '|'", "[traces][sacct]") {
  const auto d = read_trace(data_file("sacct_pipes.log"), Format::Sacct, keep_cpu());
  CHECK(d.report.rows == 4);
  CHECK(d.report.jobs == 4);
  CHECK(adjusted(d, "pipe_in_free_text_recovered") == 3);
  const auto* j502 = find_job(d, 502);  // JobName "a||b"
  REQUIRE(j502);
  CHECK(j502->nodes == 2);
  CHECK(j502->cpus == 18);
  CHECK(j502->runtime_s == 40 * 60);
  CHECK(j502->recorded_start_s - j502->submit_s == 4);
  CHECK(j502->time_limit_s == 2 * 86400);  // 2-00:00:00
  CHECK(str(d, j502->user) == "user031");
  CHECK(str(d, j502->account) == "acct031");
  CHECK(str(d, j502->partition) == "batch");
  CHECK(str(d, j502->qos) == "normal");
  const auto* j503 = find_job(d, 503);  // "eval_|v2": the NTasks column after JobName stays aligned
  REQUIRE(j503);
  CHECK(j503->runtime_s == 50 * 60);
  // Default: CPU-only jobs are skipped and counted.
  const auto dflt = read_trace(data_file("sacct_pipes.log"), Format::Sacct);
  CHECK(dflt.report.jobs == 0);
  CHECK(skipped(dflt, "cpu_only_job") == 4);
}

TEST_CASE("sacct 107 columns: arrays, steps, cancelled-while-pending, pipes, orphan fragment", "[traces][sacct]") {
  const auto d = read_trace(data_file("sacct_107col.log"), Format::Sacct, keep_cpu());
  CHECK(d.report.rows == 11);  // 11 physical lines after the header, one record each
  CHECK(skipped(d, "orphan_fragment") == 1);  // the last line: its first fields are missing
  CHECK(skipped(d, "step_row") == 2);          // .batch, .extern
  // Array tasks 61200_1..3 were CANCELLED by their user while held: Start = End, None assigned.
  CHECK(skipped(d, "never_started") == 3);
  CHECK(d.report.jobs == 5);
  CHECK(find_job(d, 61202) == nullptr);  // JobIDRaw of array task 61200_1
  const auto* task0 = find_job(d, 61201);  // array task 61200_0: id from JobIDRaw
  REQUIRE(task0);
  CHECK(task0->gpus == 1);
  // Constraints `a100|h100` (3 rows), `a100|h100|l40s`; JobNames `md| run`, `m| d_r| un`.
  CHECK(adjusted(d, "pipe_in_free_text_recovered") == 3);
  for (int64_t id = 61300; id <= 61302; ++id) {
    const auto* j = find_job(d, id);
    REQUIRE(j);
    CHECK(j->runtime_s == 3 * 86400 + 31);  // TIMEOUT
    CHECK(j->time_limit_s == 3 * 86400);
    CHECK(j->cpus == 64);
    CHECK(j->gpus == 8);  // untyped gres/gpu=8 (typed gres/gpu:a100=8 alongside)
    CHECK(str(d, j->user) == "user012");
    CHECK(str(d, j->qos) == "long");
  }
}

TEST_CASE("sacct 109 columns: '|' inside SubmitLine, newlines inside SubmitLine", "[traces][sacct]") {
  const auto d = read_trace(data_file("sacct_109col.log"), Format::Sacct, keep_cpu());
  CHECK(d.report.rows == 11);  // 14 physical lines, one record spans 4
  CHECK(adjusted(d, "record_split_across_lines_joined") == 1);
  CHECK(adjusted(d, "pipe_in_free_text_recovered") == 4);  // SubmitLines with |, || and -C a100|h100
  CHECK(skipped(d, "step_row") == 5);                        // 73000.batch, 73100 .batch .extern .0 .1
  CHECK(d.report.jobs == 6);
  for (int64_t id = 73000; id <= 73003; ++id) {
    const auto* j = find_job(d, id);
    REQUIRE(j);
    CHECK(j->runtime_s == 45);
    CHECK(j->time_limit_s == 86400);  // 1-00:00:00, right of the SubmitLine
    CHECK(str(d, j->user) == "user021");
    CHECK(str(d, j->partition) == "gpu");
  }
  const auto* big = find_job(d, 73100);
  REQUIRE(big);
  CHECK(big->nodes == 4);
  CHECK(big->cpus == 128);
  CHECK(big->gpus == 16);
  const auto* after = find_job(d, 73101);  // the record after the multi-line one
  REQUIRE(after);
  CHECK(after->runtime_s == 1800);
}

TEST_CASE("sacct --duplicates: a requeued job is its most recent attempt", "[traces][sacct]") {
  // sacct(1): without --duplicates only the most recent record of a job id is listed; with it, one
  // row per attempt. Job 900 ran, was requeued (Submit reset) and ran again; job 902's attempts are
  // listed latest first.
  const auto d = read_trace(data_file("sacct_requeue.log"), Format::Sacct);
  CHECK(d.report.rows == 6);
  CHECK(skipped(d, "requeued_earlier_attempt") == 2);
  CHECK(skipped(d, "step_row") == 1);
  REQUIRE(d.report.jobs == 3);
  const auto* j900 = find_job(d, 900);
  REQUIRE(j900);
  CHECK(j900->submit_s == 31 * 60);  // the requeue's Submit, not the first attempt's
  CHECK(j900->runtime_s == 2 * 3600);
  CHECK(j900->gpus == 2);
  const auto* j902 = find_job(d, 902);
  REQUIRE(j902);
  CHECK(j902->runtime_s == 600);  // the attempt with the later Submit, listed first
  CHECK(find_job(d, 901));
}

TEST_CASE("sacct: a GPU count that is not a number is an InputError naming the line", "[traces][sacct][errors]") {
  for (const char* col : {"AllocTRES", "ReqTRES"}) {
    TempDir tmp;
    const std::string f = tmp.file("gpu.log");
    {
      std::ofstream o(f);
      o << "JobID|JobIDRaw|Submit|Start|End|ReqTRES|AllocTRES\n"
        << "1|1|2023-05-01T10:00:00|2023-05-01T10:00:10|2023-05-01T10:30:00|cpu=8,gres/gpu=2|cpu=8,gres/gpu=2\n"
        << "2|2|2023-05-01T10:00:00|2023-05-01T10:00:10|2023-05-01T10:30:00|"
        << (std::string(col) == "ReqTRES" ? "cpu=8,gres/gpu=sixteen|" : "cpu=8|cpu=8,gres/gpu:a100=sixteen") << "\n";
    }
    try {
      read_trace(f, Format::Sacct);
      FAIL("expected InputError");
    } catch (const InputError& e) {
      const std::string w = e.what();
      CHECK(w.find(f + ":3: " + col + " has 'gres/gpu") == 0);
      CHECK(w.find("sixteen") != std::string::npos);
    }
  }
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

TEST_CASE("sacct: CPUs and memory from the TRES columns and ReqMem", "[traces][sacct][resources]") {
  // Job 1: AllocTRES gives cpu and mem (the job's total over its 2 nodes: 64G = 32 GiB a node).
  // Job 2: no mem in TRES; ReqMem 4000Mc is per CPU. Job 3: ReqMem 16Gn per node, no GPU (kept
  // with keep_cpu_jobs). Job 4: ReqMem 0 = all of each node's memory.
  TempDir tmp;
  const std::string f = tmp.file("res.log");
  {
    std::ofstream o(f);
    o << "JobID|JobIDRaw|Submit|Start|End|NNodes|ReqCPUS|ReqMem|AllocTRES\n"
      << "1|1|2023-05-01T10:00:00|2023-05-01T10:00:10|2023-05-01T10:30:00|2|16|64G|billing=16,cpu=16,gres/gpu=4,mem=64G,node=2\n"
      << "2|2|2023-05-01T10:00:00|2023-05-01T10:00:10|2023-05-01T10:30:00|1|8|4000Mc|cpu=8,gres/gpu=1,node=1\n"
      << "3|3|2023-05-01T10:00:00|2023-05-01T10:00:10|2023-05-01T10:30:00|1|4|16Gn|cpu=4,node=1\n"
      << "4|4|2023-05-01T10:00:00|2023-05-01T10:00:10|2023-05-01T10:30:00|1|2|0|cpu=2,gres/gpu=1,node=1\n";
  }
  const auto d = read_trace(f, Format::Sacct, keep_cpu());
  REQUIRE(d.report.jobs == 4);
  const auto* j1 = find_job(d, 1);
  REQUIRE(j1);
  CHECK(j1->cpus == 16);
  CHECK(j1->mem_per == JobSpec::MemPer::Node);
  CHECK(j1->mem_mib == 32 * 1024);
  const auto* j2 = find_job(d, 2);
  REQUIRE(j2);
  CHECK(j2->mem_per == JobSpec::MemPer::Cpu);
  CHECK(j2->mem_mib == 4000);
  const auto* j3 = find_job(d, 3);
  REQUIRE(j3);
  CHECK(j3->gpus == 0);
  CHECK(j3->cpus == 4);
  CHECK(j3->mem_per == JobSpec::MemPer::Node);
  CHECK(j3->mem_mib == 16 * 1024);
  const auto* j4 = find_job(d, 4);
  REQUIRE(j4);
  CHECK(j4->mem_per == JobSpec::MemPer::None);
  // Without keep_cpu_jobs the CPU-only job is dropped and counted, as before.
  const auto dflt = read_trace(f, Format::Sacct);
  CHECK(dflt.report.jobs == 3);
  CHECK(skipped(dflt, "cpu_only_job") == 1);
}
