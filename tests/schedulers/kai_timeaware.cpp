// Time-aware fairness (KAI docs/timeaware): the share-weight formula of the over-quota
// division, the tumbling-window reset times (table of KAI's own test), the decayed windowed
// usage integrals, and engine-level runs where historical usage changes who gets GPUs, and,
// counted per resource as KAI does, CPUs.
// Upstream: NVIDIA/KAI-Scheduler at 72de64fc8eca10fa8cca26a20156178f3edbe092.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "schedulers/kai/model.hpp"
#include "schedulers/kai/usage.hpp"
#include "tests/schedulers/kai_harness.hpp"

using namespace floorsim;
using namespace floorsim::kai;
using namespace floorsim::kai_test;

namespace {
constexpr Milli G(double gpus) { return static_cast<Milli>(gpus * 1000); }
}  // namespace

TEST_CASE("kai time-aware: usage lowers the over-quota share weight (resource_division.go calcShareWeights)",
          "[kai][timeaware]") {
  // test/e2e/suites/timeaware/timeaware_test.go: queue-a weight 10000 with normalised usage 1.0,
  // queue-b weight 1 with none, kValue 100: share weights 0.9899 / 0.0101, so b's share grows
  // from ~0.01% to ~1%. On 100 GPUs both requesting everything: b gets 0 without usage, 1 with.
  auto run = [](double usage_a, double k) {
    std::vector<ShareInput> in = {{0, G(100), kUnlimited, 10000, 100, usage_a}, {0, G(100), kUnlimited, 1, 100, 0}};
    std::vector<Milli> out(2);
    DivideScratch sc;
    divide(G(100), in, 1000, out, sc, k);
    return out;
  };
  CHECK(run(0, 100) == std::vector<Milli>{G(100), 0});
  CHECK(run(1.0, 100) == std::vector<Milli>{G(99), G(1)});
  CHECK(run(1.0, 0) == std::vector<Milli>{G(100), 0});  // kValue 0: usage has no effect

  // Equal weights (w = 0.5 each): a share weight is max(0, 0.5 + k(0.5 - usage)).
  struct Case {
    const char* name;
    double ua, ub, k;
    std::vector<Milli> expect;
  };
  const std::vector<Case> cases = {
      {"no usage: an even split", 0, 0, 1, {G(4), G(4)}},
      {"a used half the capacity: 0.5 : 1.0", 0.5, 0, 1, {G(2), G(6)}},  // 8/3 -> 2, 16/3 -> 5, unit to b
      {"a used everything: weight floored at 0", 1.0, 0, 1, {0, G(8)}},
      {"equal usage cancels out", 0.4, 0.4, 3, {G(4), G(4)}},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      std::vector<ShareInput> in = {{0, G(8), kUnlimited, 1, 100, c.ua}, {0, G(8), kUnlimited, 1, 100, c.ub}};
      std::vector<Milli> out(2);
      DivideScratch sc;
      divide(G(8), in, 1000, out, sc, c.k);
      CHECK(out == c.expect);
    }
  }
  SECTION("deserved quota comes first whatever the usage") {
    std::vector<ShareInput> in = {{G(3), G(8), kUnlimited, 1, 100, 1.0}, {0, G(8), kUnlimited, 1, 100, 0}};
    std::vector<Milli> out(2);
    DivideScratch sc;
    divide(G(8), in, 1000, out, sc, 1.0);
    CHECK(out == std::vector<Milli>{G(3), G(5)});
  }
}

TEST_CASE("kai time-aware: tumbling window reset times (prometheus_test.go TestGetLatestUsageResetTime_TumblingWindow)",
          "[kai][timeaware]") {
  // Times in seconds from the table's dates (start 10:00 -> 0 where the day is 2025-01-15).
  struct Case {
    const char* name;
    double window_s, start_s, now_s, expect_s;
  };
  const double h = 3600, m = 60;
  const std::vector<Case> cases = {
      {"1 hour window - middle of window", h, 10 * h, 12 * h + 30 * m, 12 * h},
      {"1 hour window - exact window boundary", h, 10 * h, 13 * h, 12 * h},
      {"1 hour window - one second after boundary", h, 10 * h, 13 * h + 1, 13 * h},
      {"15 minute window - between boundaries", 15 * m, 14 * h, 14 * h + 37 * m, 14 * h + 30 * m},
      {"1 week window - middle of week", 7 * 24 * h, 0, 17 * 24 * h + 12 * h, 14 * 24 * h},
      {"start time equals now", h, 10 * h, 10 * h, 10 * h},
      {"start time with offset - middle of window", h, 10 * h + 15 * m + 30, 12 * h + 45 * m + 30,
       12 * h + 15 * m + 30},
  };
  for (const auto& c : cases) {
    SECTION(c.name) { CHECK(tumbling_window_start(c.now_s, c.start_s, c.window_s) == c.expect_s); }
  }
}

TEST_CASE("kai time-aware: windowed, decayed usage integrals", "[kai][timeaware]") {
  std::vector<double> out;
  SECTION("sliding window, no decay: GPU-seconds inside the window") {
    UsageHistory u({0, 100, WindowType::Sliding, 0}, 2);
    u.record(0, std::vector<double>{4, 8});
    u.record(50, std::vector<double>{0, 8});
    u.window_sums(80, out);  // [0, 80]: 4 x 50, 8 x 80
    CHECK(out[0] == Approx(200));
    CHECK(out[1] == Approx(640));
    u.window_sums(130, out);  // [30, 130]: 4 x 20
    CHECK(out[0] == Approx(80));
    CHECK(out[1] == Approx(800));
    u.window_sums(200, out);  // [100, 200]: nothing from the first queue
    CHECK(out[0] == Approx(0).margin(1e-9));
  }
  SECTION("half-life: usage dt ago counts 0.5^(dt / half-life)") {
    UsageHistory u({10, 1e9, WindowType::Sliding, 0}, 1);
    u.record(0, std::vector<double>{1});
    u.record(10, std::vector<double>{0});
    u.window_sums(30, out);  // integral over [0,10] of 0.5^((30 - t) / 10) = (10 / ln 2)(0.25 - 0.125)
    CHECK(out[0] == Approx(10 / std::log(2.0) * 0.125));
  }
  SECTION("tumbling window: usage restarts at each boundary") {
    UsageHistory u({0, 100, WindowType::Tumbling, 0}, 1);
    u.record(0, std::vector<double>{2});
    u.window_sums(100, out);  // the boundary at 100 still belongs to [0, 100]
    CHECK(out[0] == Approx(200));
    u.window_sums(150, out);  // [100, 150]
    CHECK(out[0] == Approx(100));
  }
}

namespace {

// 4 GPUs; queues a and b with no quota and equal weights. Job 1 (queue a) holds every GPU
// over [0, 100); at `at` each queue submits two 2-GPU jobs (ids 2, 3 in a; 4, 5 in b).
// (The engine refers to the Run's workload: a Run is filled in place, never moved.)
void two_queues(Run& x, const std::string& name, double at, cfg::json params) {
  x.w.jobs.push_back(job(x.w, 1, "a", 0, 100, 4));
  for (int64_t id : {2, 3}) x.w.jobs.push_back(job(x.w, id, "a", at, 100, 2));
  for (int64_t id : {4, 5}) x.w.jobs.push_back(job(x.w, id, "b", at, 100, 2));
  x.go(name, queue_yaml("a", 0) + queue_yaml("b", 0), std::move(params), 1, 4);
}

}  // namespace

TEST_CASE("kai time-aware: a queue with history gets less of the over-quota share (engine)", "[kai][timeaware]") {
  SECTION("off (KAI's default): one job each at 100") {
    Run x;
    two_queues(x, "ta-off", 100, {});
    CHECK(x.started_at(100) == Ids{2, 4});
  }
  SECTION("on: a used the whole cluster, so b's fair share is everything and b goes first") {
    Run x;
    two_queues(x, "ta-on", 100, {{"time_aware_fairness", true}});
    CHECK(x.started_at(100) == Ids{4, 5});
    CHECK(x.started_at(200) == Ids{2, 3});
    const auto rep = x.sched->report(x.engine->snapshot());
    CHECK(rep["queues"]["a"]["historical_usage_share"].get<double>() > 0);
  }
  SECTION("kValue 0: usage is collected but has no effect") {
    Run x;
    two_queues(x, "ta-k0", 100, {{"time_aware_fairness", true}, {"k_value", 0}});
    CHECK(x.started_at(100) == Ids{2, 4});
  }
  // At 120 a's undecayed usage is 400 / 480 GPU-s (> 2/3: share weight below a third of b's).
  SECTION("sliding window, no decay: a's usage still counts at 120") {
    Run x;
    two_queues(x, "ta-sl", 120, {{"time_aware_fairness", true}});
    CHECK(x.started_at(120) == Ids{4, 5});
  }
  SECTION("half-life 10 s: at 120 a's usage counts about a quarter, one job each") {
    Run x;
    two_queues(x, "ta-hl", 120, {{"time_aware_fairness", true}, {"usage_params", {{"half_life_period_s", 10}}}});
    CHECK(x.started_at(120) == Ids{2, 4});
  }
  SECTION("tumbling 110 s window: reset at 110, a's usage is gone at 120") {
    Run x;
    two_queues(x, "ta-tu", 120, {{"time_aware_fairness", true},
                                      {"usage_params", {{"window_size_s", 110}, {"window_type", "tumbling"}}}});
    CHECK(x.started_at(120) == Ids{2, 4});
  }
  SECTION("sliding 110 s window: [10, 120] still holds 90 s of a's usage") {
    Run x;
    two_queues(x, "ta-sl110", 120, {{"time_aware_fairness", true}, {"usage_params", {{"window_size_s", 110}}}});
    CHECK(x.started_at(120) == Ids{4, 5});
  }
}

namespace {

// The same on CPUs: one node of 4 CPUs and no GPU; job 1 (queue a) holds every CPU over
// [0, 100); at `at` each queue submits two 2-CPU jobs (ids 2, 3 in a; 4, 5 in b).
void two_queues_cpu(Run& x, const std::string& name, double at, cfg::json params) {
  auto cpu_job = [&](int64_t id, const char* q, SimTime submit, int32_t cpus) {
    JobSpec j = job(x.w, id, q, submit, 100, 0);
    j.cpus = cpus;
    return j;
  };
  x.w.jobs.push_back(cpu_job(1, "a", 0, 4));
  for (int64_t id : {2, 3}) x.w.jobs.push_back(cpu_job(id, "a", at, 2));
  for (int64_t id : {4, 5}) x.w.jobs.push_back(cpu_job(id, "b", at, 2));
  std::string yaml;
  for (const char* q : {"a", "b"})
    yaml += std::string("apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: ") + q +
            "}\nspec:\n  resources:\n    gpu: {quota: 0, limit: -1, overQuotaWeight: 1}\n"
            "    cpu: {quota: 0, limit: -1, overQuotaWeight: 1}\n---\n";
  x.go(name, yaml, std::move(params), 1, 0);
}

}  // namespace

// KAI counts the history of each resource it divides (NVIDIA/KAI-Scheduler at 72de64fc8eca10fa8cca26a20156178f3edbe092:
// pkg/scheduler/cache/usagedb/prometheus/prometheus.go GetResourceUsage queries nvidia.com/gpu,
// cpu and memory, each queue's allocation over the cluster's capacity of that resource; the
// proportion plugin sets all three on the queue, and resource_division.go calcShareWeights
// weighs each resource's over-quota division by that resource's usage).
TEST_CASE("kai time-aware: cpu usage lowers the cpu over-quota share (engine)", "[kai][timeaware][cpu-only]") {
  SECTION("off: one job each at 100") {
    Run x;
    x.cpus_per_node = 4;
    two_queues_cpu(x, "ta-cpu-off", 100, {});
    CHECK(x.started_at(100) == Ids{2, 4});
  }
  SECTION("on: a used every CPU, so b's cpu fair share is everything and b goes first") {
    Run x;
    x.cpus_per_node = 4;
    two_queues_cpu(x, "ta-cpu-on", 100, {{"time_aware_fairness", true}});
    CHECK(x.started_at(100) == Ids{4, 5});
    CHECK(x.started_at(200) == Ids{2, 3});
    const auto rep = x.sched->report(x.engine->snapshot());
    CHECK(rep["queues"]["a"]["cpu_millicores"]["historical_usage_share"].get<double>() > 0);
    CHECK(rep["queues"]["a"]["historical_usage_share"].get<double>() == 0);  // no GPU was used
  }
  SECTION("half-life 10 s: at 120 a's cpu usage counts about a quarter, one job each") {
    Run x;
    x.cpus_per_node = 4;
    two_queues_cpu(x, "ta-cpu-hl", 120, {{"time_aware_fairness", true}, {"usage_params", {{"half_life_period_s", 10}}}});
    CHECK(x.started_at(120) == Ids{2, 4});
  }
}

TEST_CASE("kai time-aware: a starved queue reclaims from one with history (engine)", "[kai][timeaware]") {
  // a runs a long preemptible job on every GPU; b asks for the cluster at 10. Without history
  // both fair shares are 2 and b cannot reclaim; with it a's share is 0 and b reclaims.
  auto run = [](Run& x, const std::string& name, bool on) {
    x.w.jobs.push_back(job(x.w, 1, "a", 0, 1000, 4, 50));
    x.w.jobs.push_back(job(x.w, 2, "b", 10, 100, 4, 50));
    x.go(name, queue_yaml("a", 0) + queue_yaml("b", 0), {{"time_aware_fairness", on}}, 1, 4);
  };
  Run off, on;
  run(off, "ta-rec-off", false);
  CHECK(off.preempted().empty());
  CHECK(off.r(2).first_start_s == 1000);
  run(on, "ta-rec-on", true);
  CHECK(on.preempted() == Ids{1});
  CHECK(on.r(2).first_start_s == 10);
}

TEST_CASE("kai time-aware: cron windows are refused with the key's pointer", "[kai][timeaware]") {
  cfg::json p = {{"type", "kai"}, {"manifests", {"q.yaml"}}, {"usage_params", {{"window_type", "cron"}}}};
  CHECK_THROWS_WITH(cfg::resolve(p, *kai_params_spec(), "/scheduler", "s.json"),
                    Catch::Contains("/scheduler/usage_params/window_type") && Catch::Contains("cron"));
}
