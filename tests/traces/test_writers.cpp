// CSV and SWF writers (round trips), the CSV reader's own quirks, trace stats, and parse helpers.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"
#include "tests/traces/test_helpers.hpp"
#include "traces/parse_util.hpp"
#include "traces/stats.hpp"
#include "traces/trace.hpp"

using namespace floorsim;
using namespace floorsim::traces;
using namespace floorsim::traces::test;

namespace {
void require_same(const Workload& a, const Workload& b) {
  REQUIRE(a.jobs.size() == b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) REQUIRE(same_job(a, a.jobs[i], b, b.jobs[i]));
}
void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}
}  // namespace

TEST_CASE("CSV round trip is lossless (KTH and PAI quirks, fractions and kNever)", "[traces][csv][roundtrip]") {
  TempDir tmp;
  for (auto [file, fmt] : {std::pair{bundled("pwa/KTH-SP2-1996-2.1-cln.swf.gz"), Format::Swf},
                           std::pair{data_file("pai_quirks.csv"), Format::PaiOpenb}}) {
    const auto a = read_trace(file, fmt);
    write_csv(tmp.file("a.csv"), a.workload);
    const auto b = read_trace(tmp.file("a.csv"), Format::Csv);
    require_same(a.workload, b.workload);
    CHECK(b.report.adjusted.empty());
  }
  // Every field, awkward values included.
  Workload w;
  JobSpec j;
  j.id = -5;
  j.submit_s = 0.1 + 0.2;  // not representable in short decimal: must still round-trip
  j.runtime_s = 1e-7;
  j.time_limit_s = kNever;
  j.deadline_s = 12345.678;
  j.checkpoint_interval_s = 600;
  j.recorded_start_s = 1.5;
  j.gpus = 3;
  j.nodes = 2;
  j.cpus = 7;
  j.gpu_milli = 0;
  j.priority = -3;
  j.user = w.strings.intern("a,b \"quoted\"");
  j.account = w.strings.intern("line1\nline2");
  j.klass = w.strings.intern("train");
  j.qos = w.strings.intern("high");
  j.partition = w.strings.intern("gpu");
  j.preemptible = true;
  j.requeueable = false;
  w.jobs.push_back(j);
  JobSpec f;
  f.id = 9;
  f.submit_s = 1;
  f.gpus = 1;
  f.gpu_milli = 250;
  f.runtime_s = 0;
  w.jobs.push_back(f);
  write_csv(tmp.file("w.csv"), w);
  ReadOptions keep;
  const auto r = read_trace(tmp.file("w.csv"), Format::Csv, keep);
  require_same(w, r.workload);
}

TEST_CASE("SWF round trip keeps what SWF can hold", "[traces][swf][roundtrip]") {
  TempDir tmp;
  for (const char* file : {"pwa/KTH-SP2-1996-2.1-cln.swf.gz", "pwa/NASA-iPSC-1993-3.1-cln.swf.gz",
                           "pwa/accasim_tests_workload_excerpt.swf"}) {
    const auto a = read_trace(bundled(file), Format::Swf);
    write_swf(tmp.file("a.swf"), a.workload);
    const auto b = read_trace(tmp.file("a.swf"), Format::Swf);
    require_same(a.workload, b.workload);
    CHECK(b.report.header.at("Computer") == "floorsim export");
    CHECK(b.report.header.at("MaxJobs") == std::to_string(a.workload.jobs.size()));
  }
  // Names that are not u<N>/g<N>/... get dense numbers in order of first appearance.
  const auto h = read_trace(bundled("helios/cluster_log.readme_example.csv"), Format::Helios);
  write_swf(tmp.file("h.swf"), h.workload);
  const auto hb = read_trace(tmp.file("h.swf"), Format::Swf);
  REQUIRE(hb.workload.jobs.size() == 3);
  CHECK(str(hb, hb.workload.jobs[0].user) == "u1");
  CHECK(str(hb, hb.workload.jobs[1].user) == "u2");
  CHECK(hb.workload.jobs[2].runtime_s == 675233);
  CHECK(hb.workload.jobs[1].recorded_start_s == 26);
}

TEST_CASE("Writers are atomic: no partial file, no temporary left behind", "[traces][csv]") {
  TempDir tmp;
  const auto a = read_trace(bundled("pwa/accasim_tests_workload_excerpt.swf"), Format::Swf);
  CHECK_THROWS(write_csv(tmp.file("missing_dir/x.csv"), a.workload));
  CHECK_FALSE(std::filesystem::exists(tmp.file("missing_dir")));
  write_csv(tmp.file("x.csv"), a.workload);
  size_t n = 0;
  for (auto& e : std::filesystem::directory_iterator(tmp.path)) (void)e, ++n;
  CHECK(n == 1);
}

TEST_CASE("CSV reader: column subsets, unknown columns and bad values", "[traces][csv][errors]") {
  TempDir tmp;
  write_text(tmp.file("min.csv"), "id,submit_s,runtime_s,gpus\n7,10,20,2\n8,5,1,1\n");
  const auto d = read_trace(tmp.file("min.csv"), Format::Csv);
  REQUIRE(d.report.jobs == 2);
  CHECK(d.workload.jobs[0].id == 8);  // sorted by submit
  CHECK(d.workload.jobs[1].time_limit_s == kNever);
  CHECK(d.workload.jobs[1].requeueable);

  write_text(tmp.file("typo.csv"), "id,submit_s,runtime_s,gpus,gpu\n1,0,1,1,1\n");
  try {
    read_trace(tmp.file("typo.csv"), Format::Csv);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(tmp.file("typo.csv") + ":1:") == 0);
  }
  write_text(tmp.file("bad.csv"), "id,submit_s,runtime_s,gpus\n1,0,1,1\n2,0,x,1\n");
  try {
    read_trace(tmp.file("bad.csv"), Format::Csv);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(tmp.file("bad.csv") + ":3:") == 0);
    CHECK(std::string(e.what()).find("runtime_s") != std::string::npos);
  }
}

TEST_CASE("Trace stats: counts, histogram, medians, JSON", "[traces][stats]") {
  const auto d = read_trace(data_file("swf_quirks.swf"), Format::Swf);
  const auto s = compute_stats(d);
  CHECK(s.jobs == 5);
  CHECK(s.report.rows == 11);
  // gpus: 1 (job 18), 4 (3), 2 (5), 8 (9), 2 (13)
  CHECK(s.gpu_hist[1] == 1);
  CHECK(s.gpu_hist[2] == 2);
  CHECK(s.gpu_hist[3] == 1);
  CHECK(s.gpu_hist[4] == 1);
  CHECK(s.gpu_hist[5] == 0);
  CHECK(s.first_submit_s == 90);
  CHECK(s.last_submit_s == 310);
  // runtimes 10, 50, 20, 30.5, 40 -> median 30.5, mean 30.1
  CHECK(s.runtime_s.median == 30.5);
  CHECK(s.runtime_s.mean == Approx(30.1));
  // waits known for 4 jobs: 0, 10, 0, 5 -> median 2.5
  CHECK(s.wait_s.count == 4);
  CHECK(s.wait_s.median == 2.5);
  const std::string text = format_stats_text(s);
  CHECK(text.find("rows: 11\n") != std::string::npos);
  CHECK(text.find("jobs: 5\n") != std::string::npos);
  CHECK(text.find("  partial_execution_record: 3\n") != std::string::npos);
  const std::string json = format_stats_json(s);
  CHECK(json.find("\"jobs\": 5") != std::string::npos);
  CHECK(json.find("\"partial_execution_record\": 3") != std::string::npos);
  CHECK(format_stats_json(compute_stats(read_trace(data_file("swf_quirks.swf"), Format::Swf))) == json);

  const auto nasa = compute_stats(read_trace(bundled("pwa/NASA-iPSC-1993-3.1-cln.swf.gz"), Format::Swf));
  CHECK(nasa.wait_s.count == 0);
  CHECK(format_stats_text(nasa).find("recorded wait_s: unknown") != std::string::npos);
}

TEST_CASE("Format names", "[traces]") {
  for (auto f : {Format::Swf, Format::Helios, Format::Philly, Format::PaiOpenb, Format::Sacct, Format::Csv})
    CHECK(parse_format(format_name(f)) == f);
  CHECK_THROWS_AS(parse_format("parquet"), std::invalid_argument);
}

TEST_CASE("Parse helpers", "[traces][parse]") {
  using namespace floorsim::traces::detail;
  CHECK(to_double(" 18.00 ") == 18.0);
  CHECK(to_double("-1") == -1.0);
  CHECK(to_double("1e3") == 1000.0);
  CHECK(to_double("inf") == kNever);
  CHECK_FALSE(to_double("12abc"));
  CHECK_FALSE(to_double(""));
  CHECK_FALSE(to_double("nan"));
  CHECK(to_int("42") == 42);
  CHECK_FALSE(to_int("4.2"));
  CHECK(to_slurm_duration("18-15:54:58") == 18 * 86400 + 15 * 3600 + 54 * 60 + 58);
  CHECK(to_slurm_duration("2-00:00:00") == 2 * 86400);
  CHECK(to_slurm_duration("00:33:29") == 33 * 60 + 29);
  CHECK(to_slurm_duration("00:01.277") == Approx(1.277));
  CHECK(to_slurm_duration("1-02") == 86400 + 7200);
  CHECK_FALSE(to_slurm_duration("UNLIMITED"));
  CHECK_FALSE(to_slurm_duration("12"));
  const auto t0 = to_naive_time("2020-06-09 18:41:01");
  const auto t1 = to_naive_time("2020-06-10T04:55:09");
  REQUIRE(t0);
  REQUIRE(t1);
  CHECK(*t1 - *t0 == 36848);
  CHECK(*to_naive_time("1970-01-02 00:00:00") == 86400);
  CHECK(*to_naive_time("2017-03-01 00:00:00") - *to_naive_time("2017-02-28 00:00:00") == 86400);
  CHECK(*to_naive_time("2016-03-01 00:00:00") - *to_naive_time("2016-02-28 00:00:00") == 2 * 86400);
  CHECK_FALSE(to_naive_time("2020-13-01 00:00:00"));
  CHECK_FALSE(to_naive_time("Unknown"));
  std::vector<std::string_view> f;
  std::deque<std::string> scratch;
  REQUIRE(split_csv("a,\"b,c\",\"d\"\"e\",", f, scratch));
  REQUIRE(f.size() == 4);
  CHECK(f[1] == "b,c");
  CHECK(f[2] == "d\"e");
  CHECK(f[3].empty());
  CHECK_FALSE(split_csv("a,\"open", f, scratch));
  CHECK(fmt_num(0.1 + 0.2) != "0.3");
  CHECK(to_double(fmt_num(0.1 + 0.2)) == 0.1 + 0.2);
  CHECK(fmt_num(599850) == "599850");
}
