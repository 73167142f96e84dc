// Scenario JSON: strict validation with JSON pointers, defaults written in, runs end to end,
// byte-identical outputs for the same scenario.
#include <catch2/catch.hpp>

#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;
using json = nlohmann::json;

namespace {

json small() {
  return json::parse(R"({
    "name": "t",
    "cluster": {"nodes": 2, "gpus_per_node": 8},
    "classes": {"risk": {"floor_gpus": 8}},
    "workload": {"jobs": [
      {"id": 101, "submit_s": 0, "runtime_s": 100, "gpus": 8, "class": "risk", "deadline_s": 150},
      {"id": 102, "submit_s": 0, "runtime_s": 100, "gpus": 16, "class": "train", "time_limit_s": 200},
      {"id": 103, "submit_s": 10, "runtime_s": 50, "gpus": 8, "class": "risk", "deadline_s": 100}
    ]},
    "scheduler": {"type": "fifo"}
  })");
}

std::string error_of(const json& doc) {
  try {
    app::load_scenario(doc, "s.json", ".");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("defaults are written into the resolved scenario", "[scenario]") {
  auto sc = app::load_scenario(small(), "s.json", ".");
  CHECK(sc.resolved["engine"]["enforce_time_limit"] == true);
  CHECK(sc.resolved["seed"] == 1);
  CHECK(sc.resolved["workload"]["jobs"][0]["nodes"] == 0);
  CHECK(sc.resolved["class_rule"]["from"] == "class");
  CHECK(sc.resolved["cluster"]["node_prefix"] == "gpu");
  CHECK(sc.cluster.nodes() == 2);
  CHECK(sc.workload.jobs.size() == 3);
}

TEST_CASE("bad scenarios give one-line errors with a JSON pointer", "[scenario]") {
  auto d = small();
  d["cluster"]["gpus"] = 3;
  CHECK_THAT(error_of(d), Catch::StartsWith("s.json:/cluster/gpus: unknown key \"gpus\""));
  d = small();
  d["cluster"]["nodes"] = "four";
  CHECK_THAT(error_of(d), Catch::StartsWith("s.json:/cluster/nodes: got a string; expected an integer"));
  d = small();
  d["workload"]["jobs"][1]["gpus"] = -2;
  CHECK_THAT(error_of(d), Catch::StartsWith("s.json:/workload/jobs/1/gpus: got -2; expected an integer >= 0"));
  d = small();
  d["workload"]["jobs"][1]["gpus"] = 17;
  CHECK_THAT(error_of(d), Catch::Contains("job 102 needs 17 GPUs") && Catch::Contains("the cluster has 16 GPUs"));
  d = small();
  d["scheduler"]["type"] = "magic";
  CHECK_THAT(error_of(d), Catch::StartsWith("s.json:/scheduler/type: unknown scheduler \"magic\""));
  d = small();
  d["scheduler"]["bf_window"] = 3;
  CHECK_THAT(error_of(d), Catch::StartsWith("s.json:/scheduler/bf_window: unknown key"));
  d = small();
  d["workload"]["jobs"][0].erase("runtime_s");
  CHECK_THAT(error_of(d), Catch::StartsWith("s.json:/workload/jobs/0/runtime_s: missing required key"));
  d = small();
  d["failures"] = json::array({{{"node", "nope"}, {"at_s", 5}}});
  CHECK_THAT(error_of(d), Catch::StartsWith("s.json:/failures/0/node: unknown node \"nope\""));
}

TEST_CASE("JSON syntax errors name the line", "[scenario]") {
  CHECK_THROWS_WITH(app::parse_json_text("{\n \"a\": 1,\n \"b\": }\n", "x.json"), Catch::StartsWith("x.json:3: invalid JSON"));
}

TEST_CASE("a run reports per-class floors, deadlines and waits", "[scenario][run]") {
  auto sc = app::load_scenario(small(), "s.json", ".");
  auto r = app::run_scenario(sc);
  const auto& m = r.metrics;
  // FIFO: 101 at 0 (8 GPUs), 102 (16) waits until 100, 103 waits behind it until 200.
  CHECK(m["makespan_s"] == 250);
  CHECK(m["jobs"] == 3);
  CHECK(m["classes"]["risk"]["jobs"] == 2);
  CHECK(m["classes"]["risk"]["floor_gpus"] == 8);
  CHECK(m["classes"]["risk"]["deadline_misses"] == 1);
  CHECK(m["classes"]["risk"]["deadline_margin_s"] == Approx(100 - 250));
  // risk demands 8 from 10..100 (103) while 101 holds 8: delivered; from 100..200 103 waits
  // with 0 allocated: attainment = (0..100 full) / (0..250 entitled).
  const double entitled = 8 * 100 + 8 * 100 + 8 * 50;  // 0-100 (101), 100-200 (103 pending), 200-250
  const double delivered = 8 * 100 + 0 + 8 * 50;
  CHECK(m["classes"]["risk"]["floor_attainment"] == Approx(delivered / entitled));
  CHECK(m["classes"]["train"]["floor_attainment"] == 1.0);
  CHECK(m["classes"]["risk"]["wait_s"]["max"] == 190);
  CHECK(r.jobs_csv.find("102,train,,,,,16,0,0,100,200,100,COMPLETED,0,0,gpu[001-002],None") != std::string::npos);
  CHECK(r.timeline_csv.rfind("time_s,class,gpus_allocated,gpus_demanded,floor_gpus\n", 0) == 0);
}

TEST_CASE("the same scenario gives byte-identical outputs", "[scenario][determinism]") {
  auto sc = app::load_scenario(small(), "s.json", ".");
  auto a = app::run_scenario(sc);
  auto b = app::run_scenario(app::load_scenario(small(), "s.json", "."));
  CHECK(app::dump(a.metrics) == app::dump(b.metrics));
  CHECK(a.jobs_csv == b.jobs_csv);
  CHECK(a.timeline_csv == b.timeline_csv);
}

TEST_CASE("class_rule maps accounts to classes", "[scenario]") {
  auto d = small();
  d["class_rule"] = {{"from", "account"}, {"map", {{"acct-r", "risk"}}}, {"default", "other"}};
  d["workload"]["jobs"][0]["account"] = "acct-r";
  auto sc = app::load_scenario(d, "s.json", ".");
  CHECK(sc.workload.strings.str(sc.workload.jobs[0].klass) == "risk");
  CHECK(sc.workload.strings.str(sc.workload.jobs[1].klass) == "other");
}

TEST_CASE("the published schema lists every scheduler model", "[scenario][schema]") {
  auto s = app::scenario_schema();
  CHECK(s["properties"]["scheduler"]["oneOf"].size() >= 3);
  CHECK(s["properties"]["cluster"]["properties"]["gpus_per_node"]["default"] == 8);
  CHECK(s["additionalProperties"] == false);
}
