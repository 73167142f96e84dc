// Entitlement sizing (floorsim size): peaks inside deadline windows, 1.5x for other classes,
// deadline floors that fit the cluster together, 80% utilisation warnings.
#include <catch2/catch.hpp>

#include "sim/app/runner.hpp"
#include "sim/app/size.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;
using json = nlohmann::json;

namespace {

app::Sizing size_of(const json& doc) {
  auto sc = app::load_scenario(doc, "s.json", ".");
  auto r = app::run_scenario(sc);
  const SimTime end = sc.workload.jobs.front().submit_s + r.metrics["makespan_s"].get<double>();
  return app::size_floors(sc, app::parse_timeline(r.timeline_csv, "t.csv"), end);
}

const app::ClassSizing& cls(const app::Sizing& s, const std::string& k) {
  for (const auto& c : s.classes)
    if (c.klass == k) return c;
  FAIL("no class " << k);
  return s.classes.front();
}

}  // namespace

TEST_CASE("size: peak in the deadline window, 1.5x for others, utilisation warning", "[size]") {
  json d = json::parse(R"({
    "cluster": {"nodes": 4, "gpus_per_node": 8},
    "scheduler": {"type": "fifo"},
    "classes": {"risk": {"floor_gpus": 8}, "training": {"floor_gpus": 8}},
    "workload": {"jobs": [
      {"submit_s": 0, "runtime_s": 100, "gpus": 8, "class": "training"},
      {"submit_s": 0, "runtime_s": 100, "gpus": 4, "class": "training"},
      {"submit_s": 200, "runtime_s": 100, "gpus": 8, "class": "risk", "deadline_s": 1000},
      {"submit_s": 200, "runtime_s": 100, "gpus": 8, "class": "risk", "deadline_s": 1000},
      {"submit_s": 2000, "runtime_s": 100, "gpus": 24, "class": "risk"}
    ]}
  })");
  const auto s = size_of(d);
  CHECK(s.capacity_gpus == 32);
  const auto& risk = cls(s, "risk");
  CHECK(risk.deadline);
  CHECK(risk.peak_demand_gpus == 16);  // the 24-GPU job at 2000 is outside the window [200, 1000]
  CHECK(risk.proposed_floor_gpus == 16);
  CHECK(risk.need_gpus == Approx(1600.0 / 800.0));
  const auto& tr = cls(s, "training");
  CHECK(tr.peak_demand_gpus == 12);
  CHECK(tr.proposed_floor_gpus == 18);
  // Training used all of its current 8-GPU floor while it had demand: warned only if proposed >= 80%.
  CHECK(tr.current_utilisation == Approx(1.0));
  CHECK(tr.proposed_utilisation == Approx(12.0 / 18.0));
  CHECK_FALSE(tr.warn);
  CHECK(risk.proposed_utilisation == Approx(1.0));
  CHECK(risk.warn);
  CHECK(app::sizing_table(s).find("WARN") != std::string::npos);
}

TEST_CASE("size: deadline floors never over-subscribe the cluster", "[size]") {
  json d = json::parse(R"({
    "cluster": {"nodes": 2, "gpus_per_node": 8},
    "scheduler": {"type": "fifo"},
    "workload": {"jobs": [
      {"submit_s": 0, "runtime_s": 100, "gpus": 16, "class": "var", "deadline_s": 10000},
      {"submit_s": 0, "runtime_s": 100, "gpus": 16, "class": "eod", "deadline_s": 10000}
    ]}
  })");
  const auto s = size_of(d);
  CHECK(s.deadline_fits);
  int64_t sum = 0;
  for (const auto& c : s.classes) sum += c.deadline ? c.proposed_floor_gpus : 0;
  CHECK(cls(s, "var").peak_demand_gpus == 16);
  CHECK(sum <= 16);
  CHECK(sum >= 14);
  // Work that needs more than the cluster over its window: no floors fit.
  d["workload"]["jobs"][0]["deadline_s"] = 150;
  d["workload"]["jobs"][1]["deadline_s"] = 150;
  const auto bad = size_of(d);
  CHECK_FALSE(bad.deadline_fits);
  CHECK(app::sizing_table(bad).find("no configuration can fix it") != std::string::npos);
}

TEST_CASE("size: timeline parsing errors name the line", "[size]") {
  CHECK_THROWS_WITH(app::parse_timeline("nope\n", "t.csv"), Catch::StartsWith("t.csv:1:"));
  CHECK_THROWS_WITH(app::parse_timeline("time_s,class,gpus_allocated,gpus_demanded,floor_gpus\n1,a,x,2,0\n", "t.csv"),
                    Catch::StartsWith("t.csv:2:"));
  const auto rows = app::parse_timeline("time_s,class,gpus_allocated,gpus_demanded,floor_gpus\n1,\"a,b\",3,4,0\n", "t.csv");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].klass == "a,b");
  CHECK(rows[0].demanded == 4);
}
