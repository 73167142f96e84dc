// `floorsim cost` arithmetic, pinned on cases computed by hand.
#include <cmath>

#include <catch2/catch.hpp>

#include "sim/app/cost.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;
using namespace floorsim::app::cost;
using nlohmann::json;

namespace {
Prices prices() {
  Prices p;
  p.onprem_gpu_hour_usd = 2.0;
  p.cloud_gpu_hour_usd = 10.0;
  p.block_gpu_hour_usd = 4.0;
  p.period_h = 24;
  p.classes["var"] = {.missed_deadline_usd = 10000, .isolation = false};
  return p;
}
ClassObservation var() {
  // floor 12 GPUs (2 nodes of 8 when dedicated), 40 GPU-h used in a 5 h window.
  return {.name = "var", .floor_gpus = 12, .used_gpu_h = 40, .window_h = 5, .p_miss = 0.5, .p_miss_without_blocks = kUnknown};
}
}  // namespace

TEST_CASE("cost: on-premises GPU-hour from capital, lifetime and power", "[cost]") {
  // (300000 / (4 x 8760) + 10 kW x 0.15) / 8 = (8.56164 + 1.5) / 8
  CHECK(onprem_gpu_hour(300000, 4, 10, 0.15, 8) == Approx(1.257705).epsilon(1e-6));
  const auto p = load_prices(json::parse(R"({"onprem": {"gpu_hour_usd": 2.5}, "cloud_gpu_hour_usd": 9})"), "p.json");
  CHECK(p.onprem_gpu_hour_usd == 2.5);
  CHECK_THROWS_WITH(load_prices(json::parse(R"({"cloud_gpu_hour_usd": 9})"), "p.json"), Catch::Contains("p.json:/onprem/gpu_hour_usd"));
  CHECK_THROWS_WITH(load_prices(json::parse(R"({"onprem": {"gpu_hour_usd": 1}, "cloud_gpu_hour_usd": -1})"), "p.json"),
                    Catch::Contains("p.json:/cloud_gpu_hour_usd"));
  CHECK_THROWS_WITH(load_prices(json::parse(R"({"onprem": {"gpu_hour_usd": 1}, "cloud_gpu_hour_usd": 1, "classes": {"var": {"missed": 3}}})"), "p.json"),
                    Catch::Contains("p.json:/classes/var"));
}

TEST_CASE("cost: the three options on a hand-computed class", "[cost]") {
  const Prices p = prices();
  const OptionCost sh = shared_option(var(), p, 10000);
  CHECK(sh.capacity_usd == 80);          // 40 GPU-h x 2
  CHECK(sh.expected_missed_usd == 5000);  // 0.5 x 10000
  CHECK(sh.total_usd() == 5080);
  const OptionCost de = dedicated_option(var(), p, 8, 10000);
  CHECK(de.capacity_gpu_h == 384);  // 16 GPUs x 24 h
  CHECK(de.capacity_usd == 768);
  CHECK(de.idle_gpu_h == 344);      // 384 - 40
  CHECK(de.idle_usd == 688);
  CHECK(de.p_miss == 0);            // 40 GPU-h fits 16 GPUs x 5 h = 80
  const OptionCost rb = reserved_burst_option(var(), p, 96, 0.25, 10000);
  CHECK(rb.capacity_gpu_h == 60);   // 12 GPUs x 5 h, charged as if used
  CHECK(rb.idle_gpu_h == 20);
  CHECK(rb.capacity_usd == 120);
  CHECK(rb.burst_usd == 96);
  CHECK(rb.p_miss == Approx(0.625));  // 0.75 x 0.5 + 0.25 x 1 (unknown without blocks: missed)
  CHECK(rb.p_miss_basis == "simulated with blocks, 1 assumed without");
  CHECK(rb.total_usd() == Approx(120 + 96 + 6250));
  // Break-even: (768 - 80) / (0.5 - 0) = 1376 USD per missed night.
  CHECK(missed_breakeven(sh, de) == Approx(1376));
  CHECK(std::isnan(missed_breakeven(sh, rb)));  // reserved+burst misses more often here
  // Work above the reservation runs shared.
  ClassObservation big = var();
  big.used_gpu_h = 100;
  const OptionCost rb2 = reserved_burst_option(big, p, 0, 0, 10000);
  CHECK(rb2.capacity_gpu_h == 100);
  CHECK(rb2.idle_gpu_h == 0);
  CHECK(dedicated_option(big, p, 8, 10000).p_miss == 1);  // 100 > 80
}

TEST_CASE("cost: blocks, break-even utilisation and the cases for dedicated nodes", "[cost]") {
  CHECK(block_cost(2, 8, 1, kUnknown, 4) == 1536);  // 16 GPUs x 24 h x 4
  CHECK(block_cost(2, 8, 1, 1500, 4) == 1500);
  Observation o;
  o.cluster_gpus = 20;
  o.gpus_per_node = 8;
  o.classes = {var()};
  o.blocks = {{"cb", 1000, 0.1}, {"cb2", 500, 0.0}};
  const CostReport r = price(o, prices());
  REQUIRE(r.classes.size() == 1);
  const ClassCost& c = r.classes[0];
  CHECK(c.options[2].burst_usd == 1500);            // the only deadline class takes both blocks
  CHECK(c.options[2].p_miss == Approx(0.9 * 0.5 + 0.1));
  CHECK(c.utilisation_breakeven == Approx(0.2));    // 2 / 10
  CHECK(c.dedicated_utilisation == Approx(40.0 / 384));
  CHECK(c.case_floor_most);                         // 12 >= 0.5 x 20
  CHECK_FALSE(c.case_isolation);
  CHECK(c.case_miss_over_idle);                     // 5000 expected > 688 idle
  CHECK(c.cheapest == "dedicated");                 // 768 vs 5080 vs 1620 + 5500
  Observation none = o;
  none.classes[0].name = "eod";                     // no price: a warning, missed priced 0
  const CostReport r2 = price(none, prices());
  CHECK(r2.classes[0].cheapest == "shared");
  CHECK(r2.obs.warnings.size() == 1);
}

TEST_CASE("cost: a block is paid by the classes whose window it overlaps", "[cost]") {
  Observation o;
  o.cluster_gpus = 64;
  ClassObservation eod = var(), v = var();
  eod.name = "eod", eod.window_from_s = 0, eod.window_to_s = 100, eod.used_gpu_h = 10;
  v.window_from_s = 200, v.window_to_s = 400, v.used_gpu_h = 30;
  ClassObservation both = var();
  both.name = "both", both.window_from_s = 50, both.window_to_s = 300, both.used_gpu_h = 10;
  o.classes = {eod, v, both};
  o.blocks = {{"cb", 800, 0.5, 250, 400}};  // overlaps var and both, not eod
  const CostReport r = price(o, prices());
  CHECK(r.classes[0].options[2].burst_usd == 0);
  CHECK(r.classes[1].options[2].burst_usd == 600);  // 800 x 30 / 40
  CHECK(r.classes[2].options[2].burst_usd == 200);
  CHECK(r.classes[0].options[2].p_miss == 0.5);     // eod's own miss chance: no block to lose
  CHECK(r.classes[1].options[2].p_miss == Approx(0.5 * 0.5 + 0.5));
}

TEST_CASE("cost: a sweep's miss chance is the share of points that missed", "[cost]") {
  auto line = [](double misses) {
    return json{{"metrics", {{"cluster", {{"gpus", 32}, {"nodes", 4}}},
                             {"classes", {{"var", {{"deadline_margin_s", 10.0}, {"deadline_misses", misses}, {"floor_gpus", 16},
                                                   {"gpu_s_used", 36000.0}, {"preemptions", 0}}},
                                          {"training", {{"deadline_margin_s", nullptr}, {"deadline_misses", 0}, {"floor_gpus", 0},
                                                        {"gpu_s_used", 1.0}, {"preemptions", 0}}}}}}}};
  };
  Prices p = prices();
  CHECK_THROWS_WITH(observe_sweep({line(0), line(2)}, p, "sweep", "r.jsonl"), Catch::Contains("reserved_window_h"));
  p.classes["var"].reserved_window_h = 4;
  const Observation o = observe_sweep({line(0), line(2), line(0), json{{"error", "x"}}}, p, "sweep", "r.jsonl");
  REQUIRE(o.classes.size() == 1);  // training has no deadline
  CHECK(o.classes[0].p_miss == Approx(1.0 / 3));
  CHECK(o.classes[0].used_gpu_h == 10);
  CHECK(o.classes[0].window_h == 4);
  CHECK(o.gpus_per_node == 8);
}

TEST_CASE("cost: dedicated's miss chance is a fit bound, per point over a sweep", "[cost]") {
  // floor 12 GPUs -> 16 dedicated (2 nodes of 8); window 5 h -> 80 GPU-h fit. Points used 40, 100
  // and 90 GPU-h: 2 of 3 do not fit. The mean (76.7) fits, so a bound on the mean would say 0.
  auto line = [](double used_gpu_h) {
    return json{{"metrics", {{"cluster", {{"gpus", 32}, {"nodes", 4}}},
                             {"classes", {{"var", {{"deadline_margin_s", 10.0}, {"deadline_misses", 0}, {"floor_gpus", 12},
                                                   {"gpu_s_used", used_gpu_h * 3600}, {"preemptions", 0}}}}}}}};
  };
  Prices p = prices();
  p.classes["var"].reserved_window_h = 5;
  CHECK(dedicated_gpus(12, 8) == 16);
  CHECK(dedicated_overflows(80, 12, 8, 5) == false);
  CHECK(dedicated_overflows(80.5, 12, 8, 5) == true);
  const Observation o = observe_sweep({line(40), line(100), line(90)}, p, "sweep", "r.jsonl");
  REQUIRE(o.classes.size() == 1);
  CHECK(o.classes[0].dedicated_overflow_share == Approx(2.0 / 3));
  const CostReport r = price(o, p);
  const OptionCost& de = r.classes[0].options[1];
  CHECK(de.p_miss == Approx(2.0 / 3));
  CHECK(de.p_miss_basis == "fit bound");
  CHECK(de.expected_missed_usd == Approx(10000 * 2.0 / 3));
  CHECK(r.classes[0].options[0].p_miss_basis == "simulated");
  // One run (no per-point share): the bound on its own work.
  CHECK(dedicated_option(var(), p, 8, 10000).p_miss == 0);
  CHECK(to_markdown(r).find("| var | dedicated | 384.0 | 768.00 | 307.3 | 614.67 | 0.00 | 0.667 | fit bound |") != std::string::npos);
}
