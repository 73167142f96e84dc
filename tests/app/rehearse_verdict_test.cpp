// floorsim rehearse: each criterion passing and failing on purpose-built scenarios, the layer
// named for each failure, the built-in night, and the growth search.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "sim/app/rehearse.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;
using json = nlohmann::json;

namespace {

// One 8-node x 8-GPU cluster; a deadline class "risk" and an interactive class.
json base() {
  return json::parse(R"({
    "cluster": {"nodes": 8, "gpus_per_node": 8},
    "scheduler": {"type": "fifo"},
    "classes": {"risk": {"floor_gpus": 32}, "intraday": {"floor_gpus": 8}, "train": {"floor_gpus": 0}},
    "workload": {"synthetic": {"classes": [
      {"name": "risk", "kind": "deadline_batch", "start_s": 0, "deadline_s": 20000, "core_jobs": 4, "jobs": 12,
       "gpus": 8, "nodes": 1, "runtime_s": 1800},
      {"name": "intraday", "kind": "stream", "start_s": 0, "end_s": 20000, "rate_per_s": 0.005, "gpus": 1, "runtime_s": 60}
    ]}},
    "idle_pool": {"nodes": 1, "for_class": "intraday"},
    "rehearse": {"min_margin_s": 600, "p99_wait_target_s": 60, "inject_failure": false}
  })");
}

struct Outcome {
  app::Verdict v;
  json m;
};

Outcome rehearse(const json& doc) {
  auto sc = app::load_rehearsal(doc, "s.json", ".");
  auto r = app::run_scenario(sc);
  return {app::judge(sc, r.metrics), r.metrics};
}

const app::Criterion& crit(const app::Verdict& v, const std::string& name) {
  for (const auto& c : v.criteria)
    if (c.name == name) return c;
  FAIL("no criterion " << name);
  return v.criteria.front();
}

}  // namespace

TEST_CASE("rehearse: a comfortable night passes every criterion", "[rehearse]") {
  auto o = rehearse(base());
  INFO(app::verdict_table(o.v));
  CHECK(o.v.pass());
  CHECK_FALSE(o.v.infeasible);
  CHECK(crit(o.v, "risk finishes with margin").pass);
  CHECK(crit(o.v, "intraday p99 wait holds").pass);
  CHECK(crit(o.v, "backtest gives way without cascades").pass);
  CHECK_FALSE(crit(o.v, "change log: no unapproved edits").evaluated);
  CHECK(app::verdict_table(o.v).find("verdict: PASS") != std::string::npos);
}

TEST_CASE("rehearse: a deadline missed with a floor too small names the floor layer", "[rehearse]") {
  json d = base();
  d["workload"]["synthetic"]["classes"][0]["deadline_s"] = 4000;  // 16 x 8 GPUs x 1800 s in 4000 s needs 58 GPUs
  auto o = rehearse(d);
  const auto& c = crit(o.v, "risk finishes with margin");
  CHECK_FALSE(c.pass);
  CHECK(c.layer == "floor");
  CHECK_FALSE(o.v.pass());
}

TEST_CASE("rehearse: margin short although the floor was delivered names the slack layer", "[rehearse]") {
  json d = base();
  d["rehearse"]["min_margin_s"] = 19000;  // the batch cannot end 19000 s before its deadline
  auto o = rehearse(d);
  const auto& c = crit(o.v, "risk finishes with margin");
  CHECK_FALSE(c.pass);
  CHECK(c.layer == "slack");
}

TEST_CASE("rehearse: a floor taken by another class names the isolation layer", "[rehearse]") {
  json d = base();
  // Training fills the cluster first (FIFO, no preemption) and holds it past the deadline.
  d["workload"]["synthetic"]["classes"].push_back(json::parse(
      R"({"name": "train", "kind": "gang", "start_s": 0, "jobs": 7, "gpus": 8, "nodes": 1, "runtime_s": 30000})"));
  d["workload"]["synthetic"]["classes"][0]["start_s"] = 1;
  auto o = rehearse(d);
  const auto& c = crit(o.v, "risk finishes with margin");
  CHECK_FALSE(c.pass);
  CHECK(c.layer == "isolation");
}

TEST_CASE("rehearse: intraday p99 fails without a pool or floor (isolation) and holds with the pool", "[rehearse]") {
  json d = base();
  d["workload"]["synthetic"]["classes"].push_back(json::parse(
      R"({"name": "train", "kind": "gang", "start_s": 0, "jobs": 8, "gpus": 8, "nodes": 1, "runtime_s": 3000, "preemptible": true})"));
  d["classes"]["intraday"]["floor_gpus"] = 0;
  json no_pool = d;
  no_pool["idle_pool"] = nullptr;
  auto o = rehearse(no_pool);
  const auto& c = crit(o.v, "intraday p99 wait holds");
  CHECK_FALSE(c.pass);
  CHECK(c.layer == "isolation");
  auto with_pool = rehearse(d);
  CHECK(crit(with_pool.v, "intraday p99 wait holds").pass);
}

TEST_CASE("rehearse: cascading preemption fails the burst criterion (isolation)", "[rehearse]") {
  auto sc = app::load_rehearsal(base(), "s.json", ".");
  auto r = app::run_scenario(sc);
  json m = r.metrics;
  m["cascade_preemptions"] = 3;
  const auto v = app::judge(sc, m);
  const auto& c = crit(v, "backtest gives way without cascades");
  CHECK_FALSE(c.pass);
  CHECK(c.layer == "isolation");
  CHECK(c.value == 3);
}

TEST_CASE("rehearse: floors over-subscribing the cluster cannot be fixed by configuration", "[rehearse]") {
  json d = base();
  d["classes"]["risk"]["floor_gpus"] = 72;  // > 64 GPUs
  auto o = rehearse(d);
  CHECK(o.v.infeasible);
  CHECK_FALSE(o.v.pass());
  CHECK(app::verdict_table(o.v).find("no configuration can fix it") != std::string::npos);
  // Work that cannot fit its window on the whole cluster is infeasible too.
  json w = base();
  w["workload"]["synthetic"]["classes"][0]["deadline_s"] = 1000;
  auto ow = rehearse(w);
  CHECK(ow.v.infeasible);
  // A capacity block in the window makes the work fit physically.
  json cb = w;
  cb["workload"]["synthetic"]["classes"][0]["deadline_s"] = 3000;
  cb["capacity_blocks"] = json::parse(R"([{"prefix": "cloud", "nodes": 8, "from_s": 0, "to_s": 3000}])");
  CHECK(rehearse(w).v.infeasible);
  auto ocb = rehearse(cb);
  CHECK_FALSE(ocb.v.infeasible);
  // A block that cannot be had on the night adds nothing.
  cb["capacity_blocks"][0]["unavailable_probability"] = 1.0;
  CHECK(rehearse(cb).v.infeasible);
}

TEST_CASE("rehearse: the injected failure lands midway on the named node", "[rehearse]") {
  json d = base();
  d["rehearse"]["inject_failure"] = true;
  d["rehearse"]["failure_node"] = "gpu003";
  auto sc = app::load_rehearsal(d, "s.json", ".");
  REQUIRE(sc.node_events.size() == 2);
  CHECK(sc.node_events[0].at_s == 10000);
  CHECK(sc.node_events[0].node == 2);
  CHECK(sc.resolved["failures"][0]["node"] == "gpu003");
  d["rehearse"]["failure_node"] = "nope";
  CHECK_THROWS_WITH(app::load_rehearsal(d, "s.json", "."), Catch::Contains("s.json:/rehearse/failure_node"));
  json u = base();
  u["rehearse"]["deadline_classes"] = {"nope"};
  CHECK_THROWS_AS(app::load_rehearsal(u, "s.json", "."), InputError);
}

TEST_CASE("rehearse: the built-in night passes, is deterministic, and equals examples/rehearse-default.json", "[rehearse]") {
  const json night = app::default_night();
  auto a = rehearse(night);
  INFO(app::verdict_table(a.v));
  CHECK(a.v.pass());
  auto b = rehearse(night);
  CHECK(a.m.dump() == b.m.dump());
  std::ifstream in(std::string(FLOORSIM_SOURCE_DIR) + "/examples/rehearse-default.json");
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK(json::parse(ss.str()) == night);
}

TEST_CASE("rehearse --growth: bisection brackets the first failure within the tolerance", "[rehearse]") {
  json d = base();
  d["rehearse"]["growth_max"] = 8;
  d["rehearse"]["growth_tolerance"] = 0.05;
  const auto g = app::search_growth(d, "s.json", ".");
  CHECK(g.max_ok >= 1.0);
  REQUIRE(std::isfinite(g.first_fail));
  CHECK(g.first_fail > g.max_ok);
  CHECK(g.first_fail - g.max_ok <= 0.05 + 1e-9);
  CHECK_FALSE(g.first_fail_layer.empty());
  const auto g2 = app::search_growth(d, "s.json", ".");
  CHECK(g2.max_ok == g.max_ok);
  json none = base();
  none["workload"].erase("synthetic");
  none["workload"]["jobs"] = json::parse(R"([{"runtime_s": 10, "gpus": 1}])");
  CHECK_THROWS_AS(app::search_growth(none, "s.json", "."), InputError);
}
