// Delay scheduling (Dally): the consolidation level of a placement, the best level a job can
// get, the timer rules (relax one level per timer, strict never, cumulative from submission),
// the auto timers (mean of the last `window` waits per level), and a run where a 2-node job
// waits for a consolidated placement under "fixed" but starts spread under "none".
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/app/delay_scheduling.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"

using namespace floorsim;
using namespace floorsim::app::delay;
using json = nlohmann::json;

TEST_CASE("delay: the level of a placement", "[delay]") {
  const std::vector<uint32_t> leaf = {0, 0, 1, 1};
  const std::vector<NodeShare> one = {{2, 4}}, same_leaf = {{0, 4}, {1, 4}}, spread = {{1, 4}, {2, 4}};
  REQUIRE(placement_level(one, leaf) == Level::Machine);
  REQUIRE(placement_level(same_leaf, leaf) == Level::Leaf);
  REQUIRE(placement_level(spread, leaf) == Level::Network);
}

TEST_CASE("delay: the best level a job can get", "[delay]") {
  REQUIRE(best_level(8, 0, 8, 32) == Level::Machine);
  REQUIRE(best_level(8, 2, 8, 32) == Level::Leaf);  // asks two nodes: never one machine
  REQUIRE(best_level(16, 0, 8, 32) == Level::Leaf);
  REQUIRE(best_level(64, 0, 8, 32) == Level::Network);
}

TEST_CASE("delay: timers relax one level each, counted from submission", "[delay]") {
  const std::array<double, 2> t = {600, 1200};
  REQUIRE(allowed_level(Level::Machine, 0, 0, t) == Level::Machine);
  REQUIRE(allowed_level(Level::Machine, 0, 599, t) == Level::Machine);
  REQUIRE(allowed_level(Level::Machine, 0, 600, t) == Level::Leaf);
  REQUIRE(allowed_level(Level::Machine, 0, 1799, t) == Level::Leaf);
  REQUIRE(allowed_level(Level::Machine, 0, 1800, t) == Level::Network);  // 600 + 1200
  REQUIRE(allowed_level(Level::Leaf, 0, 1199, t) == Level::Leaf);         // a leaf job waits the leaf timer only
  REQUIRE(allowed_level(Level::Leaf, 0, 1200, t) == Level::Network);
  REQUIRE(allowed_level(Level::Network, 0, 0, t) == Level::Network);
  REQUIRE(next_relax_at(Level::Machine, 5, 15, t) == 605);
  REQUIRE(next_relax_at(Level::Machine, 5, 705, t) == 1805);
  REQUIRE(next_relax_at(Level::Network, 0, 0, t) == kNever);
  REQUIRE(next_relax_at(Level::Machine, 0, 0, {kNever, kNever}) == kNever);
  // Strict: infinite timers never relax.
  const std::array<double, 2> strict = {kNever, kNever};
  REQUIRE(allowed_level(Level::Machine, 0, 1e12, strict) == Level::Machine);
  // Zero timers: no waiting at all.
  REQUIRE(allowed_level(Level::Machine, 0, 0, {0, 0}) == Level::Network);
}

TEST_CASE("delay: auto timers are the mean of the last window waits per level", "[delay]") {
  AutoTimers a(2, {600, 1200});
  REQUIRE(a.timers() == std::array<double, 2>{600, 1200});  // until something is seen
  a.observe(Level::Machine, 100);
  REQUIRE(a.timers()[0] == 100);
  a.observe(Level::Machine, 300);
  REQUIRE(a.timers()[0] == 200);
  a.observe(Level::Machine, 500);  // the oldest (100) leaves the window
  REQUIRE(a.timers()[0] == 400);
  a.observe(Level::Leaf, 50);
  REQUIRE(a.timers()[1] == 50);
  a.observe(Level::Network, 9999);  // network starts set no timer
  REQUIRE(a.timers() == std::array<double, 2>{400, 50});
}

TEST_CASE("delay: a job waits for one machine until its timers run out; none starts it spread", "[delay]") {
  // Two 8-GPU nodes, one leaf each. Jobs 1 and 2 take 6 GPUs of each node until t = 1000; job 3
  // (4 GPUs, submitted at 1) fits only spread (2 + 2 over the network) before then.
  const json doc = json::parse(R"({
    "cluster": {"nodes": 2, "gpus_per_node": 8, "nodes_per_leaf": 1},
    "workload": {"jobs": [
      {"id": 1, "submit_s": 0, "runtime_s": 1000, "gpus": 6},
      {"id": 2, "submit_s": 0, "runtime_s": 1000, "gpus": 6},
      {"id": 3, "submit_s": 1, "runtime_s": 500, "gpus": 4}]},
    "scheduler": {"type": "fifo"},
    "delay_scheduling": {"mode": "none", "machine_timer_s": 100, "leaf_timer_s": 100}})");
  struct Out {
    double start3;
    json m;
  };
  auto run = [&](const std::string& mode) {
    json d = doc;
    d["delay_scheduling"]["mode"] = mode;
    app::Scenario sc = app::load_scenario(d, "t.json", ".");
    app::RunOptions ro;
    ro.keep_runs = true;
    const auto r = app::run_scenario(sc, ro);
    return Out{r.runs[2].first_start_s, r.metrics};
  };
  const Out none = run("none"), fixed = run("fixed"), strict = run("strict");
  REQUIRE(none.start3 == 1);  // spread at once, 1.5x slower
  REQUIRE(none.m["runtime_model"]["consolidation"]["network_starts"] == 1);
  REQUIRE(fixed.start3 == 201);  // machine 100 s + leaf 100 s after submission, then spread
  REQUIRE(strict.start3 == 1000);  // one machine, when jobs 1 and 2 end
  REQUIRE(strict.m["runtime_model"]["consolidation"]["network_starts"] == 0);
  // The slowdown: spread, job 3 runs 500 x 1.5; consolidated, 500.
  REQUIRE(none.m["makespan_s"] == 1000);
  REQUIRE(strict.m["makespan_s"] == 1500);
  REQUIRE(fixed.m["scheduler_report"]["delay_scheduling"]["held_starts"].get<int>() >= 1);
}

TEST_CASE("delay: a scenario without the block runs without the layer", "[delay]") {
  const json doc = json::parse(R"({"workload": {"jobs": [{"id": 1, "submit_s": 0, "runtime_s": 10, "gpus": 2}]}})");
  const app::Scenario sc = app::load_scenario(doc, "t.json", ".");
  REQUIRE(sc.resolved["delay_scheduling"].is_null());
  const auto r = app::run_scenario(sc);
  REQUIRE_FALSE(r.metrics.contains("runtime_model"));
  REQUIRE_FALSE(r.metrics["scheduler_report"].contains("delay_scheduling"));
}
