// floorsim tune: the objective's arithmetic on metrics.json, the comparison of points (jobs
// never started first), the seeded random phase, the time split, and a tiny search that gives
// the same result whatever the thread count. Also the sweep's per-axis "changes_results" flag.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "sim/app/sweep.hpp"
#include "sim/app/tune.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;
using json = nlohmann::json;
namespace tn = floorsim::app::tune;

namespace {

json metrics() {
  return json::parse(R"({
    "makespan_s": 5000, "wait_s": {"mean": 120, "p99": 900},
    "jobs_by_state": {"COMPLETED": 10},
    "classes": {"a": {"wait_s": {"mean": 50, "p99": 400}, "floor_gpus": 8, "floor_attainment": 0.75},
                "b": {"wait_s": {"mean": 200, "p99": 1500}, "floor_gpus": 4, "floor_attainment": 0.5},
                "c": {"wait_s": {"mean": null, "p99": null}, "floor_gpus": 0, "floor_attainment": 1.0}}})");
}

}  // namespace

TEST_CASE("tune: objective values read from metrics.json", "[tune]") {
  const json m = metrics();
  REQUIRE(tn::objective_value({tn::Metric::MeanWait, ""}, m) == 120);
  REQUIRE(tn::objective_value({tn::Metric::MeanWait, "b"}, m) == 200);
  REQUIRE(tn::objective_value({tn::Metric::P99Wait, "a"}, m) == 400);
  REQUIRE(tn::objective_value({tn::Metric::P99Wait, ""}, m) == 900);
  REQUIRE(tn::objective_value({tn::Metric::Makespan, ""}, m) == 5000);
  // Floor attainment: one class's, or the lowest over classes with a floor (c has none).
  REQUIRE(tn::objective_value({tn::Metric::FloorAttainment, "a"}, m) == 0.75);
  REQUIRE(tn::objective_value({tn::Metric::FloorAttainment, ""}, m) == 0.5);
  // Absent or null: NaN, never a number that could win.
  REQUIRE(std::isnan(tn::objective_value({tn::Metric::MeanWait, "c"}, m)));
  REQUIRE(std::isnan(tn::objective_value({tn::Metric::MeanWait, "nope"}, m)));
}

TEST_CASE("tune: points compare by unstarted jobs, then the objective's direction", "[tune]") {
  const tn::Objective wait{tn::Metric::MeanWait, ""}, floor{tn::Metric::FloorAttainment, ""};
  REQUIRE(tn::better(wait, {0, 100}, {0, 200}));
  REQUIRE_FALSE(tn::better(wait, {0, 200}, {0, 100}));
  REQUIRE_FALSE(tn::better(wait, {0, 100}, {0, 100}));  // ties keep the earlier point
  REQUIRE(tn::better(wait, {0, 900}, {1, 10}));         // fewer jobs left waiting wins first
  REQUIRE(tn::better(floor, {0, 0.9}, {0, 0.8}));        // attainment: higher is better
  REQUIRE(tn::better(wait, {0, 5}, {0, NAN}));
  REQUIRE_FALSE(tn::better(wait, {0, NAN}, {0, 5}));
}

TEST_CASE("tune: the random phase is fixed by the seed and stays in range", "[tune]") {
  const std::vector<tn::Param> ps = {{"priority_weight_age", 0, 10}, {"bf_window_min", 60, 60}, {"priority_weight_qos", 5, 7}};
  const auto a = tn::random_points(ps, 50, 3), b = tn::random_points(ps, 50, 3), c = tn::random_points(ps, 50, 4);
  REQUIRE(a == b);
  REQUIRE(a != c);
  for (const auto& p : a) {
    REQUIRE((p[0] >= 0 && p[0] <= 10));
    REQUIRE(p[1] == 60);
    REQUIRE((p[2] >= 5 && p[2] <= 7));
  }
  // The draw is mt19937_64 modulo the span: pinned, so a change of draw shows here.
  REQUIRE(a[0] == std::vector<int64_t>{static_cast<int64_t>(std::mt19937_64(3)() % 11), 60, a[0][2]});
}

TEST_CASE("tune: the time split keeps the jobs submitted in the window", "[tune]") {
  Workload w;
  for (int i = 0; i < 6; ++i) {
    JobSpec j;
    j.id = i + 1;
    j.submit_s = 100.0 * i;
    w.jobs.push_back(j);
  }
  Workload early = w, late = w;
  REQUIRE(tn::keep_window(early, {0, 250}) == 3);
  REQUIRE(tn::keep_window(late, {250, INFINITY}) == 3);
  REQUIRE(early.jobs.back().id == 3);
  REQUIRE(late.jobs.front().id == 4);
  Workload all = w;
  REQUIRE(tn::keep_window(all, {}) == 6);
}

TEST_CASE("tune: a search is the same for a seed whatever the threads; held out on the later jobs", "[tune]") {
  const std::string dir = std::string(FLOORSIM_SOURCE_DIR) + "/tests/app/data";
  const json doc = json::parse(R"({"base": "tune_small.json", "objective": {"metric": "mean_wait_s"},
      "params": [{"name": "priority_weight_jobsize", "min": 0, "max": 10000}, {"name": "bf_window_min", "min": 10, "max": 600}],
      "search": {"seed": 5, "samples": 3, "rounds": 1}, "holdout": {"split_at_s": 3000}})");
  const tn::TuneSpec s = tn::load_tune(doc, "t.json", dir);
  REQUIRE(s.baseline == std::vector<int64_t>{0, 300});  // the scenario's own values
  const auto r1 = tn::run_tune(s, {1});
  const auto r2 = tn::run_tune(s, {3});
  REQUIRE(r1.doc.dump() == r2.doc.dump());
  REQUIRE(r1.csv == r2.csv);
  // The baseline is the first point and the best is never worse on the tuning window.
  REQUIRE(r1.doc["evaluations"][0]["phase"] == "random");
  REQUIRE(r1.doc["evaluations"][0]["params"] == json{{"priority_weight_jobsize", 0}, {"bf_window_min", 300}});
  const double base = r1.doc["baseline"]["tune"]["objective"], best = r1.doc["best"]["tune"]["objective"];
  REQUIRE(best <= base);
  // Both windows hold jobs, and they are different jobs.
  const size_t tj = r1.doc["baseline"]["tune"]["jobs"], hj = r1.doc["baseline"]["holdout"]["jobs"];
  REQUIRE(tj > 0);
  REQUIRE(hj > 0);
  REQUIRE(tj + hj == r1.doc["best"]["tune"]["jobs"].get<size_t>() + r1.doc["best"]["holdout"]["jobs"].get<size_t>());
}

TEST_CASE("tune: bad tune files are refused with a pointer", "[tune]") {
  const std::string dir = std::string(FLOORSIM_SOURCE_DIR) + "/tests/app/data";
  auto err = [&](const std::string& text) {
    try {
      (void)tn::load_tune(json::parse(text), "t.json", dir);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string ok_params = R"("params": [{"name": "priority_weight_age", "min": 0, "max": 10}])";
  REQUIRE_THAT(err(R"({"base": "tune_small.json", "params": [{"name": "preempt_mode", "min": 0, "max": 1}], "holdout": {"split_at_s": 10}})"),
               Catch::Contains("/params/0/name") && Catch::Contains("not tunable"));
  REQUIRE_THAT(err(R"({"base": "tune_small.json", )" + ok_params + R"(, "holdout": {}})"), Catch::Contains("/holdout") && Catch::Contains("exactly one"));
  REQUIRE_THAT(err(R"({"base": "tune_small.json", "params": [{"name": "priority_weight_age", "min": 5, "max": 1}], "holdout": {"split_at_s": 10}})"),
               Catch::Contains("/params/0/max"));
  // A key the scenario's slurm.conf sets: tuning it from the block would do nothing.
  REQUIRE_THAT(err(R"({"base": "tune_conf.json", )" + ok_params + R"(, "holdout": {"split_at_s": 10}})"),
               Catch::Contains("/params/0/name") && Catch::Contains("tune_slurm.conf"));
}

TEST_CASE("sweep: an axis whose values change no result is flagged per axis", "[sweep]") {
  auto line = [](int i, int a, int b, double wait, const std::string& warn) {
    return json{{"index", i}, {"axes", {{"a", a}, {"b", b}}},
                {"metrics", {{"wait_s", {{"mean", wait}}}, {"scenario", "x"}, {"classes", {{"k", {{"floor_gpus", a}}}}},
                             {"scheduler_report", {{"config", {{"warnings", {warn}}}}}}}}};
  };
  // a only changes its own echo (floor_gpus) and the warnings that quote it; b changes the wait.
  const std::vector<json> lines = {line(0, 1, 1, 10, "a=1"), line(1, 1, 2, 20, "a=1"), line(2, 2, 1, 10, "a=2"), line(3, 2, 2, 20, "a=2")};
  const json axes = json::array({{{"name", "a"}}, {{"name", "b"}}});
  const auto eff = floorsim::app::sweep::axis_effects(axes, lines);
  REQUIRE(eff[0] == json(false));
  REQUIRE(eff[1] == json(true));
  const json sj = floorsim::app::sweep::with_axis_effects({{"axes", axes}}, lines);
  REQUIRE(sj["no_effect_axes"] == json::array({"a"}));
  REQUIRE(sj["axes"][0]["changes_results"] == false);
  REQUIRE(floorsim::app::sweep::without_axis_effects(sj) == json{{"axes", axes}});
  // No two points differ only in an axis (one value): not judged.
  REQUIRE(floorsim::app::sweep::axis_effects(json::array({{{"name", "a"}}}), {line(0, 1, 1, 10, "")})[0].is_null());
}
