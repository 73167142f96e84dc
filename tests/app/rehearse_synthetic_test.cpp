// Synthetic quant classes, capacity blocks and MTBF failures (issue 7).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/core/error.hpp"
#include "traces/synthetic.hpp"

using namespace floorsim;
using json = nlohmann::json;

namespace {

traces::SyntheticSpec night(double m, uint64_t seed = 3) {
  traces::SyntheticSpec s;
  s.seed = seed;
  s.load_multiplier = m;
  traces::ClassGen var;
  var.name = "var";
  var.kind = traces::GenKind::DeadlineBatch;
  var.start_s = 100;
  var.grid_after_s = 50;
  var.core_jobs = 4;
  var.jobs = 10;
  var.gpus = 8;
  var.runtime_s = 1000;
  var.runtime_jitter = 0.2;
  var.deadline_s = 5000;
  traces::ClassGen intra;
  intra.name = "intraday";
  intra.kind = traces::GenKind::Stream;
  intra.start_s = 0;
  intra.end_s = 10000;
  intra.rate_per_s = 0.01;
  intra.runtime_s = 60;
  intra.profile = {{2000, 3000, 0.0}, {5000, 6000, 5.0}};
  s.classes = {var, intra};
  return s;
}

std::vector<JobSpec> of_class(const Workload& w, const std::string& name) {
  std::vector<JobSpec> out;
  for (const auto& j : w.jobs)
    if (w.strings.str(j.klass) == name) out.push_back(j);
  return out;
}

}  // namespace

TEST_CASE("rng: uniform in [0,1), deterministic per (seed, stream)", "[synthetic]") {
  traces::Rng a(1, 0), b(1, 0), c(1, 1);
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    const double x = a.uniform(), y = b.uniform(), z = c.uniform();
    REQUIRE(x >= 0);
    REQUIRE(x < 1);
    REQUIRE(x == y);
    differs = differs || x != z;
  }
  CHECK(differs);
  double sum = 0;
  for (int i = 0; i < 20000; ++i) sum += a.exponential();
  CHECK(sum / 20000 == Approx(1.0).epsilon(0.05));
}

TEST_CASE("synthetic: deterministic, core shards first, deadlines and jitter", "[synthetic]") {
  Workload w1, w2;
  traces::generate(night(1), 1, w1);
  traces::generate(night(1), 1, w2);
  REQUIRE(w1.jobs.size() == w2.jobs.size());
  for (size_t i = 0; i < w1.jobs.size(); ++i) {
    CHECK(w1.jobs[i].id == w2.jobs[i].id);
    CHECK(w1.jobs[i].submit_s == w2.jobs[i].submit_s);
    CHECK(w1.jobs[i].runtime_s == w2.jobs[i].runtime_s);
  }
  const auto var = of_class(w1, "var");
  REQUIRE(var.size() == 14);
  for (int i = 0; i < 4; ++i) {
    CHECK(var[i].submit_s == 100);
    CHECK(var[i].priority == 1);  // core one step above the grid
  }
  for (size_t i = 4; i < var.size(); ++i) CHECK(var[i].submit_s == 150);
  for (const auto& j : var) {
    CHECK(j.deadline_s == 5000);
    CHECK(j.runtime_s >= 800);
    CHECK(j.runtime_s <= 1200);
    CHECK(j.time_limit_s >= j.runtime_s);
  }
  Workload w3;
  traces::generate(night(1, 4), 1, w3);
  bool any_diff = false;
  for (size_t i = 0; i < std::min(w1.jobs.size(), w3.jobs.size()); ++i) any_diff = any_diff || w1.jobs[i].runtime_s != w3.jobs[i].runtime_s;
  CHECK(any_diff);
}

TEST_CASE("synthetic: the load multiplier scales counts and rates, keeping earlier draws", "[synthetic]") {
  Workload w1, w2;
  traces::generate(night(1), 1, w1);
  traces::generate(night(2), 1, w2);
  CHECK(of_class(w2, "var").size() == 28);
  const auto s1 = of_class(w1, "intraday"), s2 = of_class(w2, "intraday");
  CHECK(s2.size() > s1.size() * 3 / 2);
  CHECK(s2.size() < s1.size() * 5 / 2);
  // Batch shards grow by appending: the first shards keep their runtimes.
  const auto v1 = of_class(w1, "var"), v2 = of_class(w2, "var");
  for (int i = 0; i < 4; ++i) CHECK(v1[i].runtime_s == v2[i].runtime_s);
  // Non-stationary: nothing in the quiet window, a pile-up in the busy one.
  size_t quiet = 0, busy = 0, normal = 0;
  for (const auto& j : s1) {
    CHECK(j.submit_s >= 0);
    CHECK(j.submit_s < 10000);
    quiet += j.submit_s >= 2000 && j.submit_s < 3000;
    busy += j.submit_s >= 5000 && j.submit_s < 6000;
    normal += j.submit_s >= 7000 && j.submit_s < 8000;
  }
  CHECK(quiet == 0);
  CHECK(busy > 2 * normal);
  CHECK(traces::scaled_count(3, 1.5) == 5);
  CHECK(traces::scaled_count(3, 0) == 0);
}

TEST_CASE("expected_jobs: exact for batches, the integrated intensity for a stream", "[synthetic]") {
  const traces::SyntheticSpec s = night(2);
  CHECK(traces::expected_jobs(s.classes[0], 2) == 28);  // (4 core + 10 grid) x 2
  // 0.01/s x 2 over 10,000 s, less the quiet 1,000 s, plus 4 x 1,000 s more in the busy hour.
  CHECK(traces::expected_jobs(s.classes[1], 2) == Approx(0.02 * (10000 - 1000 + 4 * 1000)));
  CHECK(traces::expected_jobs(s.classes[1], 0) == 0);
  // The generator draws about that many arrivals (Poisson: within a few standard deviations).
  Workload w;
  traces::generate(s, 1, w);
  const double n = static_cast<double>(of_class(w, "intraday").size()), mean = traces::expected_jobs(s.classes[1], 2);
  CHECK(std::abs(n - mean) < 4 * std::sqrt(mean));
}

TEST_CASE("scenario: a synthetic workload over max_jobs is refused before it is generated", "[synthetic][scenario]") {
  json doc = json::parse(R"({
    "cluster": {"nodes": 1, "gpus_per_node": 8},
    "scheduler": {"type": "fifo"},
    "workload": {"synthetic": {"max_jobs": 100, "classes": [
      {"name": "bt", "kind": "burst", "jobs": 60, "gpus": 1, "start_s": 0, "runtime_s": 20},
      {"name": "rq", "kind": "stream", "rate_per_s": 0.01, "start_s": 0, "end_s": 3000, "gpus": 1, "runtime_s": 20}]}}
  })");
  CHECK(app::load_scenario(doc, "s.json", ".").workload.jobs.size() > 60);  // 60 + about 30
  doc["workload"]["synthetic"]["load_multiplier"] = 2;
  CHECK_THROWS_WITH(app::load_scenario(doc, "s.json", "."),
                    Catch::Contains("s.json:/workload/synthetic/max_jobs: is 100, but the classes would generate 180 jobs (120 from class \"bt\""));
  // A stream whose window never ends is a slip, not a night: refused, not generated for ever.
  doc["workload"]["synthetic"]["load_multiplier"] = 1;
  doc["workload"]["synthetic"].erase("max_jobs");
  doc["workload"]["synthetic"]["classes"][1]["end_s"] = 1e300;
  CHECK_THROWS_WITH(app::load_scenario(doc, "s.json", "."), Catch::Contains("is 10000000, but the classes would generate 1e+298 jobs"));
}

TEST_CASE("scenario: synthetic block, capacity block window and MTBF failures", "[synthetic][scenario]") {
  json doc = json::parse(R"({
    "cluster": {"nodes": 1, "gpus_per_node": 8},
    "scheduler": {"type": "fifo"},
    "workload": {"jobs": [{"id": 5, "submit_s": 0, "runtime_s": 50, "gpus": 16}],
                 "synthetic": {"classes": [{"name": "bt", "kind": "burst", "jobs": 3, "gpus": 8, "start_s": 10, "runtime_s": 20}]}},
    "capacity_blocks": [{"prefix": "cloud", "nodes": 1, "gpus_per_node": 8, "from_s": 100, "to_s": 400}]
  })");
  auto sc = app::load_scenario(doc, "s.json", ".");
  CHECK(sc.base_nodes == 1);
  REQUIRE(sc.cluster.nodes() == 2);
  CHECK(sc.cluster.node_names[1] == "cloud001");
  CHECK(sc.workload.jobs.size() == 4);
  CHECK(sc.workload_report["synthetic"]["classes"][0]["jobs"] == 3);
  // Synthetic ids continue after the inline ones.
  for (const auto& j : sc.workload.jobs)
    if (sc.workload.strings.str(j.klass) == "bt") CHECK(j.id > 5);
  auto r = app::run_scenario(sc);
  // The 16-GPU job can only start when the block opens at 100.
  CHECK(r.jobs_csv.find("\n5,default,,,,,16,0,0,100,150,100,COMPLETED") != std::string::npos);

  json bad = doc;
  bad["capacity_blocks"][0]["to_s"] = 50;
  CHECK_THROWS_WITH(app::load_scenario(bad, "s.json", "."), Catch::Contains("s.json:/capacity_blocks/0/to_s"));
  bad = doc;
  bad["workload"]["synthetic"]["classes"][0]["kind"] = "stream";
  CHECK_THROWS_WITH(app::load_scenario(bad, "s.json", "."), Catch::Contains("/workload/synthetic/classes/0/end_s"));

  json f = doc;
  f["failure_model"] = {{"mtbf_s", 500}, {"repair_s", 10}, {"to_s", 5000}};
  auto a = app::load_scenario(f, "s.json", ".");
  auto b = app::load_scenario(f, "s.json", ".");
  CHECK(a.workload_report["random_failures"].get<int>() > 2);
  REQUIRE(a.node_events.size() == b.node_events.size());
  for (size_t i = 0; i < a.node_events.size(); ++i) CHECK(a.node_events[i].at_s == b.node_events[i].at_s);
}

TEST_CASE("reduced-set fallback: grid shards not started by fallback_at_s are dropped", "[synthetic][fallback]") {
  json doc = json::parse(R"({
    "cluster": {"nodes": 1, "gpus_per_node": 8},
    "scheduler": {"type": "fifo"},
    "workload": {"synthetic": {"classes": [
      {"name": "var", "kind": "deadline_batch", "start_s": 0, "core_jobs": 2, "jobs": 6, "gpus": 8, "runtime_s": 100,
       "deadline_s": 2000, "fallback_at_s": 250}]}}
  })");
  auto sc = app::load_scenario(doc, "s.json", ".");
  REQUIRE(sc.fallbacks.size() == 1);
  CHECK(sc.fallbacks[0].jobs.size() == 6);
  auto r = app::run_scenario(sc);
  // Core 0-200, first grid shard 200-300 (running at 250), the other five dropped at 250.
  CHECK(r.metrics["scheduler_report"]["idle_pool"]["fallback_dropped_jobs"] == 5);
  CHECK(r.metrics["jobs_by_state"]["CANCELLED"] == 5);
  CHECK(r.metrics["jobs_by_state"]["COMPLETED"] == 3);
  CHECK(r.metrics["classes"]["var"]["deadline_misses"] == 5);
  // Without the fallback every shard runs.
  doc["workload"]["synthetic"]["classes"][0].erase("fallback_at_s");
  auto full = app::run_scenario(app::load_scenario(doc, "s.json", "."));
  CHECK(full.metrics["jobs_by_state"]["COMPLETED"] == 8);
}

TEST_CASE("a replayed rate file drives a stream's arrivals", "[synthetic][rate_file]") {
  // 0/s before 1000, 0.05/s in [1000, 2000), 0.005/s in [2000, 4000), nothing after the last
  // row's end (the stream's end_s) and nothing before the first row.
  const auto prof = traces::read_rate_profile("r.csv", "time_s,rate_per_s\n0,0\n1000,0.05\n2000,0.005\n");
  REQUIRE(prof.size() == 4);
  CHECK(prof[1].from_s == 1000);
  CHECK(prof[1].to_s == 2000);
  CHECK(prof[2].to_s == kNever);
  traces::SyntheticSpec s;
  s.seed = 11;
  traces::ClassGen c;
  c.name = "intraday";
  c.kind = traces::GenKind::Stream;
  c.start_s = 0;
  c.end_s = 4000;
  c.rate_per_s = 1;
  c.profile = prof;
  s.classes = {c};
  Workload w;
  traces::generate(s, 1, w);
  size_t peak = 0, tail = 0;
  for (const auto& j : w.jobs) {
    REQUIRE(j.submit_s >= 1000);
    REQUIRE(j.submit_s < 4000);
    (j.submit_s < 2000 ? peak : tail)++;
  }
  // Expected 50 and 10 (Poisson): the peak hour holds most requests.
  CHECK(peak >= 30);
  CHECK(peak <= 70);
  CHECK(tail <= 25);
  CHECK(peak > 2 * tail);
  // Load growth scales the replayed rate like any stream.
  s.load_multiplier = 2;
  Workload w2;
  traces::generate(s, 1, w2);
  CHECK(w2.jobs.size() > w.jobs.size() * 3 / 2);
}

TEST_CASE("a bad rate file names the file and line", "[synthetic][rate_file]") {
  CHECK_THROWS_WITH(traces::read_rate_profile("r.csv", "time_s,rate_per_s\n0,1\n0,2\n"),
                    Catch::StartsWith("r.csv:3: time_s 0 is not after"));
  CHECK_THROWS_WITH(traces::read_rate_profile("r.csv", "time_s,rate_per_s\n0,-1\n"), Catch::StartsWith("r.csv:2: rate_per_s"));
  CHECK_THROWS_WITH(traces::read_rate_profile("r.csv", "time_s,rate_per_s\n0,nan\n"), Catch::StartsWith("r.csv:2: rate_per_s"));
  CHECK_THROWS_WITH(traces::read_rate_profile("r.csv", "when,rate_per_s\n0,1\n"), Catch::StartsWith("r.csv:1:"));
  CHECK_THROWS_WITH(traces::read_rate_profile("r.csv", ""), Catch::StartsWith("r.csv:1: empty rate file"));
  CHECK_THROWS_WITH(traces::read_rate_profile("r.csv", "time_s,rate_per_s\n"), Catch::Contains("no rows"));
}
