// Capacity blocks as the cloud sells them: instance count, durations, booking horizon and the
// chance a block is not had on the night (EC2 Capacity Blocks for ML).
#include <catch2/catch.hpp>

#include "sim/app/capacity_block.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"

using namespace floorsim;
using nlohmann::json;

namespace {
json block_scenario(const json& block) {
  json doc = json::parse(R"({"cluster": {"nodes": 1, "gpus_per_node": 8}, "scheduler": {"type": "fifo"},
    "workload": {"jobs": [{"id": 1, "submit_s": 0, "runtime_s": 50, "gpus": 16}]}})");
  doc["capacity_blocks"] = json::array({block});
  return doc;
}
json block() { return json::parse(R"({"prefix": "cloud", "nodes": 1, "from_s": 100, "to_s": 400})"); }
}  // namespace

TEST_CASE("capacity block durations: 1-14 days in 1-day steps, then 7-day steps to 182", "[capacity_block]") {
  CHECK(app::block_duration_sold(1));
  CHECK(app::block_duration_sold(14));
  CHECK_FALSE(app::block_duration_sold(15));
  CHECK(app::block_duration_sold(21));
  CHECK_FALSE(app::block_duration_sold(22));
  CHECK(app::block_duration_sold(182));
  CHECK_FALSE(app::block_duration_sold(189));
  CHECK_FALSE(app::block_duration_sold(0));
  CHECK(app::shortest_block_days(300) == 1);
  CHECK(app::shortest_block_days(86400) == 1);
  CHECK(app::shortest_block_days(86401) == 2);
  CHECK(app::shortest_block_days(15 * 86400.0) == 21);
  CHECK(app::shortest_block_days(182 * 86400.0) == 182);
  CHECK_FALSE(app::shortest_block_days(183 * 86400.0));
}

TEST_CASE("capacity block rules are validation errors naming the key", "[capacity_block][scenario]") {
  auto sc = app::load_scenario(block_scenario(block()), "s.json", ".");
  CHECK(sc.resolved["capacity_blocks"][0]["duration_days"] == 1);  // the shortest covering 300 s
  json b = block();
  b["nodes"] = 65;
  CHECK_THROWS_WITH(app::load_scenario(block_scenario(b), "s.json", "."),
                    Catch::Contains("s.json:/capacity_blocks/0/nodes: 65 instances") && Catch::Contains("expected 1 to 64"));
  b = block();
  b["nodes"] = 64;
  CHECK_NOTHROW(app::load_scenario(block_scenario(b), "s.json", "."));
  b["booked_ahead_s"] = 9 * 7 * 86400;
  CHECK_THROWS_WITH(app::load_scenario(block_scenario(b), "s.json", "."),
                    Catch::Contains("/capacity_blocks/0/booked_ahead_s: booked 9.0 weeks ahead"));
  b["booked_ahead_s"] = 8 * 7 * 86400;
  CHECK_NOTHROW(app::load_scenario(block_scenario(b), "s.json", "."));
  b["duration_days"] = 15;
  CHECK_THROWS_WITH(app::load_scenario(block_scenario(b), "s.json", "."), Catch::Contains("/capacity_blocks/0/duration_days: 15 days"));
  b["duration_days"] = 1;
  b["to_s"] = 100 + 2 * 86400;
  CHECK_THROWS_WITH(app::load_scenario(block_scenario(b), "s.json", "."), Catch::Contains("/capacity_blocks/0/to_s: the window"));
  b = block();
  b["unavailable_probability"] = 1.5;
  CHECK_THROWS_WITH(app::load_scenario(block_scenario(b), "s.json", "."), Catch::Contains("/capacity_blocks/0/unavailable_probability"));
}

TEST_CASE("a capacity block not had on the night never comes up", "[capacity_block][scenario]") {
  CHECK(app::capacity_block_had(1, 0, 0.0));
  CHECK_FALSE(app::capacity_block_had(1, 0, 1.0));
  json b = block();
  b["unavailable_probability"] = 1.0;
  json doc = block_scenario(b);
  doc["engine"]["horizon_s"] = 1000;
  auto sc = app::load_scenario(doc, "s.json", ".");
  CHECK(sc.workload_report["capacity_blocks"][0]["had"] == false);
  auto r = app::run_scenario(sc);
  // The 16-GPU job needs the block: without it the job is still pending at the horizon.
  CHECK(r.jobs_csv.find(",PENDING,") != std::string::npos);
  b["unavailable_probability"] = 0.0;
  auto r2 = app::run_scenario(app::load_scenario(block_scenario(b), "s.json", "."));
  CHECK(r2.jobs_csv.find(",COMPLETED,") != std::string::npos);
  // Draws are deterministic and about right in frequency.
  int had = 0;
  for (size_t i = 0; i < 1000; ++i) had += app::capacity_block_had(7, i, 0.25);
  CHECK(had > 700);
  CHECK(had < 800);
}
