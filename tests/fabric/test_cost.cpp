// The cost model: switches, cables and optics per taper, checked by hand on a k=4 fat-tree
// (16 hosts; 8 edge, 8 aggregation, 4 core switches of 4 ports; 16 cables per tier).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "fabric/cost.hpp"
#include "fabric/signoff.hpp"

using namespace floorsim::fabric;
using json = nlohmann::json;

TEST_CASE("cost model: k=4 by hand, full and 2:1 at the edge", "[fabric][cost]") {
  const json doc = json::parse(R"({
    "topology": {"kind": "fat_tree", "k": 4, "tiers": [{"gbps": 8, "latency_s": 0}]},
    "full_scale_hosts": 16, "path_latency": false,
    "traffic": [{"name": "perm", "pattern": "permutation", "bytes": 1e9, "seed": 1}],
    "cost": {"tapers": [[1, 1], [2, 1]], "switch_usd": 10000, "cable_usd": [100, 200, 300], "optics_usd": 500}
  })");
  const FabricScenario s = parse_fabric_scenario(doc, "k4.json");
  REQUIRE(s.cost.tapers.size() == 2);

  // Full: 16 + 16 + 16 cables; edge 16 down + 16 up = 32 ports / 4 = 8 switches, aggregation 8,
  // core 16 / 4 = 4: 20 switches. 20 x 10,000 + (16 x 100 + 16 x 200 + 16 x 300) + optics on
  // tiers 1 and 2: 32 cables x 2 x 500 = 200,000 + 9,600 + 32,000 = 241,600.
  const FabricCost full = fabric_cost(s.cost.nominal, s.cost.tapered[0], s.cost.prices);
  CHECK(full.cables_per_tier == std::vector<uint64_t>{16, 16, 16});
  CHECK(full.switches_per_level == std::vector<uint64_t>{8, 8, 4});
  CHECK(full.transceivers == 64);
  CHECK(full.switches_usd == 200000);
  CHECK(full.cables_usd == 9600);
  CHECK(full.optics_usd == 32000);
  CHECK(full.total_usd == 241600);

  // 2:1 at the edge: tiers 1 and 2 at half capacity, so 8 cables each; edge 16 + 8 = 24 ports /
  // 4 = 6 switches, aggregation 8 + 8 = 16 / 4 = 4, core 8 / 4 = 2: 12 switches = 120,000;
  // cables 1,600 + 1,600 + 2,400 = 5,600; optics 16 x 2 x 500 = 16,000; total 141,600.
  const FabricCost half = fabric_cost(s.cost.nominal, s.cost.tapered[1], s.cost.prices);
  CHECK(half.cables_per_tier == std::vector<uint64_t>{16, 8, 8});
  CHECK(half.switches_per_level == std::vector<uint64_t>{6, 4, 2});
  CHECK(half.total_usd == 141600);

  // The pack's table: cost beside the slowest flow per taper (the 2:1 tree is no faster).
  const json pack = run_signoff(s);
  const json& rows = pack["cost"]["by_taper"];
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["total_usd"] == 241600.0);
  CHECK(rows[1]["total_usd"] == 141600.0);
  const double full_s = rows[0]["profiles"][0]["slowest_s"].get<double>();
  const double half_s = rows[1]["profiles"][0]["slowest_s"].get<double>();
  CHECK(full_s == Approx(pack["traffic"][0]["results"]["dmodk"]["slowest_s"].get<double>()));
  CHECK(half_s >= full_s);
  CHECK(signoff_markdown(pack).find("| [1.0,1.0] | 20 | 48 | 64 | 200000 | 9600 | 32000 | 241600 |") != std::string::npos);
}

TEST_CASE("cost model: per-port prices and copper-only tiers", "[fabric][cost]") {
  const json doc = json::parse(R"({
    "topology": {"kind": "fat_tree", "k": 4, "tiers": [{"gbps": 8}]},
    "full_scale_hosts": 16,
    "traffic": [{"name": "perm", "pattern": "permutation"}],
    "cost": {"tapers": [[1, 1]], "switch_port_usd": 50, "cable_usd": [10], "optical_tiers": []}
  })");
  const FabricScenario s = parse_fabric_scenario(doc, "k4.json");
  // 20 switches x 4 ports x 50 = 4,000; 48 cables x 10 = 480; no optics.
  const FabricCost c = fabric_cost(s.cost.nominal, s.cost.tapered[0], s.cost.prices);
  CHECK(c.transceivers == 0);
  CHECK(c.total_usd == 4480);
}
