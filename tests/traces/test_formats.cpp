// Helios, Philly and Alibaba PAI openb readers: the real samples and one small file per quirk.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "sim/core/error.hpp"
#include "tests/traces/test_helpers.hpp"
#include "traces/trace.hpp"

using namespace floorsim;
using namespace floorsim::traces;
using namespace floorsim::traces::test;

TEST_CASE("Helios README rows: duration = end - start, vc is account and partition", "[traces][helios][real]") {
  const auto d = read_trace(bundled("helios/cluster_log.readme_example.csv"), Format::Helios);
  CHECK(d.report.rows == 3);
  REQUIRE(d.report.jobs == 3);
  CHECK(adjusted(d, "duration_column_differs") == 0);  // the duration column agrees on all 3
  const auto* a = find_job(d, 1425511);
  REQUIRE(a);
  CHECK(a->runtime_s == 36848);
  CHECK(a->submit_s == 0);  // the earliest submit is the epoch
  CHECK(a->gpus == 1);
  CHECK(str(d, a->user) == "uXBbc");
  CHECK(str(d, a->account) == "vcJkd");
  CHECK(str(d, a->partition) == "vcJkd");
  const auto* b = find_job(d, 1425512);
  REQUIRE(b);
  CHECK(b->runtime_s == 249);
  CHECK(b->gpus == 4);
  CHECK(b->cpus == 16);
  CHECK(b->nodes == 1);
  CHECK(b->submit_s == 26);  // 18:41:27 - 18:41:01
  CHECK(find_job(d, 1425513)->runtime_s == 675233);
}

TEST_CASE("Helios quirks: CPU jobs, zero duration, never started, duration mismatch", "[traces][helios]") {
  const auto d = read_trace(data_file("helios_quirks.csv"), Format::Helios);
  CHECK(d.report.rows == 6);
  CHECK(skipped(d, "cpu_only_job") == 1);
  CHECK(skipped(d, "never_started") == 1);
  CHECK(skipped(d, "end_before_start") == 1);
  CHECK(adjusted(d, "duration_column_differs") == 1);
  REQUIRE(d.report.jobs == 3);
  // The epoch is the earliest submit of any row, here the (skipped) CPU job at 00:00:00.
  CHECK(find_job(d, 10)->submit_s == 10);
  CHECK(find_job(d, 10)->recorded_start_s == 70);
  CHECK(find_job(d, 12)->runtime_s == 0);      // zero-length rows are kept by default
  CHECK(find_job(d, 14)->runtime_s == 100);    // end - start, not the duration column (99)

  ReadOptions o;
  o.keep_cpu_jobs = true;
  o.drop_zero_runtime = true;
  const auto k = read_trace(data_file("helios_quirks.csv"), Format::Helios, o);
  CHECK(find_job(k, 11) != nullptr);
  CHECK(find_job(k, 11)->gpus == 0);
  CHECK(skipped(k, "zero_runtime") == 1);
  CHECK(find_job(k, 12) == nullptr);

  const auto bad = data_file("helios_bad_date.csv");
  try {
    read_trace(bad, Format::Helios);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(bad + ":3:") == 0);
    CHECK(std::string(e.what()).find("start_time") != std::string::npos);
  }
}

TEST_CASE("Philly README job: 2 attempts, 8 GPUs, runtime per the notebook", "[traces][philly][real]") {
  const auto d = read_trace(bundled("philly/cluster_job_log.readme_example.json"), Format::Philly);
  CHECK(d.report.rows == 1);
  REQUIRE(d.report.jobs == 1);
  const auto& j = d.workload.jobs[0];
  CHECK(j.gpus == 8);  // first attempt's detail: m47 gpu0..gpu7
  // attempts[-1].end_time - attempts[0].start_time = 2017-10-09 06:53:12 - 2017-10-07 01:12:09
  CHECK(j.runtime_s == 2 * 86400 + 5 * 3600 + 41 * 60 + 3);
  CHECK(j.recorded_start_s - j.submit_s == 30);  // queueing delay 01:11:39 -> 01:12:09
  CHECK(j.id == 1506638472019LL * 1000000 + 14199);
  CHECK(str(d, j.user) == "ce2f4c");
  CHECK(str(d, j.account) == "ee9e8c");
  CHECK(adjusted(d, "multi_attempt_runtime_spans_attempts") == 1);
}

TEST_CASE("Philly quirks: zero attempts, None/''/'None' times, censored jobs", "[traces][philly]") {
  const auto d = read_trace(data_file("philly_quirks.json"), Format::Philly);
  CHECK(d.report.rows == 6);
  CHECK(skipped(d, "no_attempts") == 1);
  CHECK(skipped(d, "never_started") == 1);            // start "None"
  CHECK(skipped(d, "censored_still_running") == 2);   // last end "" and absent
  REQUIRE(d.report.jobs == 2);
  const auto* multi = find_job(d, 1506638472019LL * 1000000 + 7);
  REQUIRE(multi);
  CHECK(multi->gpus == 4);            // first attempt: 2 servers x 2 GPUs (the second attempt had 1)
  CHECK(multi->runtime_s == 7200);    // includes the gap between attempts
  CHECK(multi->submit_s == 60);       // epoch = the killed job's earlier submit
  const auto* odd = find_job(d, 6);   // jobid without the YARN shape: array position
  REQUIRE(odd);
  CHECK(adjusted(d, "id_from_position") == 1);
  CHECK(odd->runtime_s == 0);

  const auto syn = data_file("philly_bad_syntax.json");
  try {
    read_trace(syn, Format::Philly);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(syn + ":4:") == 0);
  }
  try {
    read_trace(data_file("philly_bad_time.json"), Format::Philly);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(e.where() == "/0/attempts/0/start_time");
  }
}

// The openb pod list is not bundled (its terms allow research or study use only; see
// traces/README.md): this check runs where FLOORSIM_PAI_OPENB_DIR names a folder holding
// alibaba/clusterdata's cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv.
TEST_CASE("PAI openb default: 8,152 pods, 897 Pending skipped, fractional GPUs kept", "[traces][pai][real]") {
  const char* dir = std::getenv("FLOORSIM_PAI_OPENB_DIR");
  if (!dir) {
    WARN("skipped: FLOORSIM_PAI_OPENB_DIR is not set (the openb pod list is not bundled)");
    return;
  }
  const std::string openb = std::string(dir) + "/openb_pod_list_default.csv";
  const auto d = read_trace(openb, Format::PaiOpenb);
  CHECK(d.report.rows == 8152);
  CHECK(skipped(d, "pending_never_scheduled") == 897);
  CHECK(skipped(d, "cpu_only_job") == 1052);  // num_gpu == 0 among the scheduled pods
  CHECK(d.report.jobs == 8152 - 897 - 1052);
  CHECK(adjusted(d, "running_pod_runtime_lower_bound") == 4149);
  size_t fractional = 0;
  for (const auto& j : d.workload.jobs) {
    if (j.gpu_milli > 0) {
      ++fractional;
      REQUIRE(j.gpus == 1);
      REQUIRE(j.gpu_milli < 1000);
    }
  }
  CHECK(fractional == 2573);
  const auto* p1 = find_job(d, 1);  // openb-pod-0001: 460 milli-GPU, LS, Running
  REQUIRE(p1);
  CHECK(p1->gpu_milli == 460);
  CHECK(p1->cpus == 6);
  CHECK(p1->submit_s == 427061);
  CHECK(p1->runtime_s == 12902960 - 427061);
  CHECK(str(d, p1->qos) == "LS");
  CHECK(str(d, p1->klass) == "LS");

  ReadOptions o;
  o.keep_cpu_jobs = true;
  const auto all = read_trace(openb, Format::PaiOpenb, o);
  CHECK(all.report.jobs == 8152 - 897);
}

TEST_CASE("PAI quirks and the time-less multigpu variant", "[traces][pai]") {
  const auto d = read_trace(data_file("pai_quirks.csv"), Format::PaiOpenb);
  CHECK(d.report.rows == 6);
  CHECK(skipped(d, "pending_never_scheduled") == 1);
  CHECK(skipped(d, "cpu_only_job") == 1);
  REQUIRE(d.report.jobs == 4);
  CHECK(find_job(d, 7)->submit_s == 0);  // earliest creation_time (100) is the epoch
  CHECK(find_job(d, 7)->gpu_milli == 0); // 1000 milli of one GPU = a whole GPU
  CHECK(find_job(d, 8)->gpu_milli == 460);
  CHECK(find_job(d, 8)->runtime_s == 990);
  CHECK(find_job(d, 10)->gpus == 8);
  CHECK(find_job(d, 10)->gpu_milli == 0);
  CHECK(adjusted(d, "id_from_row_number") == 1);
  CHECK(find_job(d, 6)->gpus == 2);  // "weird", row 6

  try {
    read_trace(data_file("pai_no_times.csv"), Format::PaiOpenb);  // as openb_pod_list_multigpu50.csv
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(":1:") != std::string::npos);
    CHECK(std::string(e.what()).find("creation_time") != std::string::npos);
  }
  const auto bad = data_file("pai_bad_number.csv");
  try {
    read_trace(bad, Format::PaiOpenb);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(bad + ":3:") == 0);
    CHECK(std::string(e.what()).find("num_gpu") != std::string::npos);
  }
}
