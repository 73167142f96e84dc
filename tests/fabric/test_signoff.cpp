#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "fabric/signoff.hpp"
#include "sim/core/error.hpp"

using namespace floorsim::fabric;
using json = nlohmann::json;

namespace {
json base() {
  return json::parse(R"({"topology": {"kind": "fat_tree", "k": 4, "tiers": [{"gbps": 8}]},
                         "traffic": [{"name": "p", "pattern": "permutation"}]})");
}
std::string error_of(const json& j) {
  try {
    parse_fabric_scenario(j, "f.json");
  } catch (const floorsim::InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("fabric scenario: defaults are filled in", "[fabric][scenario]") {
  const auto s = parse_fabric_scenario(base(), "f.json");
  CHECK(s.topology.hosts() == 16);
  CHECK(s.routing.mode == RoutingMode::DModK);
  CHECK(!s.compare_routing);  // opt-in: the costliest part of a large pack
  CHECK(s.resolved["topology"]["tiers"][0]["latency_s"] == 1e-6);
  CHECK(s.resolved["traffic"][0]["source"] == "assumption");
  CHECK(s.full_scale_hosts == 0);  // not given: the sign-off pack refuses to run
  try {
    (void)run_signoff(s);
    FAIL("a pack without full_scale_hosts ran");
  } catch (const floorsim::InputError& e) {
    CHECK(std::string(e.what()).find("f.json:/full_scale_hosts: missing; expected the host count") == 0);
  }
  CHECK(s.topology.tiers[2].capacity_bytes_per_s == 1e9);
}

TEST_CASE("fabric scenario: strict validation names the JSON pointer", "[fabric][scenario]") {
  auto j = base();
  j["topology"]["colour"] = 1;
  CHECK(error_of(j).find("f.json:/topology/colour: unknown key") == 0);
  j = base();
  j["topology"].erase("k");
  CHECK(error_of(j).find("f.json:/topology/k: missing \"k\"") == 0);
  j = base();
  j["topology"]["k"] = 5;
  CHECK(error_of(j).find("/topology/k: got 5; expected an even radix") != std::string::npos);
  j = base();
  j["topology"]["tiers"] = json::parse(R"([{"speed": "FDR"}])");
  CHECK(error_of(j).find("/topology/tiers/0/speed: unknown link generation") != std::string::npos);
  j = base();
  j["topology"]["tiers"] = json::parse(R"([{"speed": "NDR", "gbps": 400}])");
  CHECK(error_of(j).find("/topology/tiers/0: give exactly one") != std::string::npos);
  j = base();
  j["topology"]["tiers"] = json::parse(R"([{"gbps": 8}, {"gbps": 8}])");
  CHECK(error_of(j).find("/topology/tiers: got 2 tiers; expected 1") != std::string::npos);
  j = base();
  j["topology"]["taper"] = {2.0};
  CHECK(error_of(j).find("/topology/taper: got 1 taper entries; expected 2") != std::string::npos);
  j = base();
  j["traffic"][0]["hosts"] = 17;
  CHECK(error_of(j).find("/traffic/0/hosts: got 17 hosts; expected 1..16") != std::string::npos);
  j = base();
  j["traffic"][0]["pattern"] = "broadcast";
  CHECK(error_of(j).find("/traffic/0/pattern") != std::string::npos);
  j = base();
  j["degraded"] = json::parse(R"([{"name": "x", "fail": [{"switch": {"level": 3, "index": 4}}]}])");
  CHECK(error_of(j).find("/degraded/0/fail/0: no switch 4 at level 3") != std::string::npos);
  j = base();
  j["degraded"] = json::parse(R"([{"name": "x", "fail": [{"pod": 1, "switch": {"level": 3, "index": 0}}]}])");
  CHECK(error_of(j).find("/degraded/0/fail/0: give exactly one") != std::string::npos);
  j = base();
  j["topology"]["nvlink_domain_gpus"] = 12;
  CHECK(error_of(j).find("expected a multiple of gpus_per_host") != std::string::npos);
  j = base();
  j["topology"] = json::parse(R"({"kind": "xgft", "notation": "3;2,2;1,2,2", "tiers": [{"gbps": 8}]})");
  CHECK(error_of(j).find("/topology/notation") != std::string::npos);
}

TEST_CASE("fabric scenario: leaf-spine, XGFT lists and notation, NVLink domains", "[fabric][scenario]") {
  auto j = base();
  j["topology"] = json::parse(R"({"kind": "leaf_spine", "hosts_per_leaf": 16, "leaves": 8, "spines": 4,
                                  "tiers": [{"speed": "400GbE"}, {"speed": "800GbE"}],
                                  "gpus_per_host": 8, "nvlink_domain_gpus": 72})");
  auto s = parse_fabric_scenario(j, "f.json");
  CHECK(s.topology.hosts() == 128);
  CHECK(s.topology.host_model.hosts_per_nvlink_domain == 9);
  CHECK(taper_at(s.topology, 1) == Approx(16 * 400.0 / (4 * 800.0)));
  j["topology"] = json::parse(R"({"kind": "xgft", "notation": "3;2,2,4;1,2,2;1,1,1", "tiers": [{"gbps": 8}]})");
  const auto a = parse_fabric_scenario(j, "f.json");
  j["topology"] = json::parse(R"({"kind": "xgft", "m": [2, 2, 4], "w": [1, 2, 2], "tiers": [{"gbps": 8}]})");
  const auto b = parse_fabric_scenario(j, "f.json");
  const auto c = parse_fabric_scenario(base(), "f.json");
  CHECK(a.topology.link_to == c.topology.link_to);
  CHECK(b.topology.link_to == c.topology.link_to);
}

TEST_CASE("sign-off pack: contents and determinism", "[fabric][signoff]") {
  auto j = base();
  j["degraded"] = json::parse(R"([{"name": "core", "fail": [{"switch": {"level": 3, "index": 0}}]},
                                   {"name": "pod", "fail": [{"pod": 3}]}])");
  j["jobs"] = json::parse(R"([{"name": "t", "hosts": [0, 4, 8], "bytes": 1e9}])");
  j["full_scale_hosts"] = 1024;
  j["routing"]["compare"] = true;
  const auto s = parse_fabric_scenario(j, "f.json");
  const auto p = run_signoff(s);
  CHECK(p["path_classes"].size() == 3);
  CHECK(p["path_classes"][2]["hops"] == 6);
  CHECK(p["path_classes"][2]["hops_routed"] == 6);
  CHECK(p["path_classes"][2]["paths"] == 4);
  CHECK(p["oversubscription"][0]["taper"] == 1.0);
  CHECK(p["fan_out"]["reached_full_scale"] == false);
  CHECK(p["degraded"][0]["bisection_lost_fraction"].get<double>() == Approx(0.25));
  CHECK(p["degraded"][1]["hosts_unreachable"] == 4);
  // A lost pod cuts flows off: they never complete, so the profile's slowest flow is "never"
  // (null), not the slowest of the flows that were left.
  const auto& pod = p["degraded"][1]["traffic"][0]["rerouted"];
  CHECK(pod["disconnected"].get<int>() > 0);
  CHECK(pod["slowest_s"].is_null());
  CHECK(pod["slowest_vs_healthy"].is_null());
  CHECK(pod["connected"]["completed"].get<int>() + pod["disconnected"].get<int>() == pod["demands"].get<int>());
  CHECK(p["degraded"][1]["traffic"][0]["static"]["disconnected"].get<int>() >= pod["disconnected"].get<int>());
  CHECK(p["traffic"][0]["results"].contains("ecmp"));
  CHECK(p["routing_comparison"]["split"]["median_slowest_s"].get<double>() == Approx(1.0));
  CHECK(p["routing_comparison"]["dmodk"]["slowest_s_by_seed"].size() == 5);
  CHECK(p["jobs"][0]["comm_alone_s"].get<double>() > 0);
  CHECK(p["analytic"]["mean_hops_uniform"].get<double>() == Approx(82.0 / 15));
  CHECK(p["scenario"] == s.resolved);
  CHECK(p.dump() == run_signoff(parse_fabric_scenario(j, "f.json")).dump());
  const auto md = signoff_markdown(p);
  CHECK(md.find("full scale not reached") != std::string::npos);
  CHECK(md.find("| other pod | 3 | 6 | 6 | 4 | 12 |") != std::string::npos);
}

TEST_CASE("ideal split beyond the sub-flow limit is skipped, and says so", "[fabric][signoff]") {
  auto j = base();
  j["routing"] = json::parse(R"({"max_split_subflows": 10, "compare": true})");
  j["full_scale_hosts"] = 16;
  const auto p = run_signoff(parse_fabric_scenario(j, "f.json"));
  CHECK(p["traffic"][0]["results"]["split"]["skipped"].get<std::string>().find("above routing.max_split_subflows = 10") !=
        std::string::npos);
  CHECK(p["routing_comparison"]["split"].contains("skipped"));
  CHECK(p["traffic"][0]["results"]["dmodk"].contains("slowest_s"));
  CHECK(signoff_markdown(p).find("ideal split needs") != std::string::npos);
}

TEST_CASE("examples/fabric parse and run", "[fabric][signoff]") {
  for (const char* f : {"qtbs_taper.json", "qtbs_taper_4host.json", "k8_quant.json"}) {
    INFO(f);
    const auto s = load_fabric_scenario(std::string(FLOORSIM_SOURCE_DIR) + "/examples/fabric/" + f);
    const auto p = run_signoff(s);
    CHECK(!p["traffic"].empty());
  }
  const auto q = run_signoff(load_fabric_scenario(std::string(FLOORSIM_SOURCE_DIR) + "/examples/fabric/qtbs_taper.json"));
  CHECK(q["variants"][0]["traffic"][0]["slowest_s"].get<double>() == Approx(7.0));
  CHECK(q["variants"][1]["traffic"][0]["slowest_s"].get<double>() == Approx(9.0));
}

TEST_CASE("routing comparison runs only when asked for", "[fabric][signoff]") {
  auto j = base();
  j["full_scale_hosts"] = 16;
  const auto p = run_signoff(parse_fabric_scenario(j, "f.json"));
  CHECK(!p.contains("routing_comparison"));
  CHECK(p["traffic"][0]["results"].size() == 1);
  CHECK(signoff_markdown(p).find("Routing modes compared") == std::string::npos);
}

TEST_CASE("degraded: a lost core switch, rerouted against static", "[fabric][signoff][degraded]") {
  auto j = base();
  j["full_scale_hosts"] = 16;
  j["traffic"] = json::parse(R"([{"name": "a2a", "pattern": "all_to_all"}])");
  j["degraded"] = json::parse(R"([{"name": "core", "fail": [{"switch": {"level": 3, "index": 0}}]}])");
  const auto p = run_signoff(parse_fabric_scenario(j, "f.json"));
  const auto& d = p["degraded"][0]["traffic"][0];
  // Rerouted: every flow still has a path, some slower. Static: flows through core 0 are cut off.
  CHECK(d["rerouted"]["disconnected"] == 0);
  CHECK(d["rerouted"]["slowest_vs_healthy"].get<double>() >= 1.0);
  CHECK(d["static"]["disconnected"].get<int>() > 0);
  CHECK(d["static"]["slowest_s"].is_null());
  CHECK(signoff_markdown(p).find("never (") != std::string::npos);
}

TEST_CASE("worst single failure: every switch and cable, ranked", "[fabric][signoff][degraded]") {
  auto j = base();
  j["full_scale_hosts"] = 16;
  j["traffic"] = json::parse(R"([{"name": "a2a", "pattern": "all_to_all"}])");
  j["worst_failure"] = json::parse(R"({"enabled": true, "top": 3})");
  const auto p = run_signoff(parse_fabric_scenario(j, "f.json"));
  const auto& w = p["worst_failure"];
  // k=4: 8 edges x 2 + 8 aggregations x 2 cables, 8 + 8 + 4 switches.
  CHECK(w["candidates"] == 16 + 16 + 20);
  // Losing an edge switch cuts its two hosts off: their 2 x 15 flows out and 2 x 15 in, less the
  // 2 between them counted twice = 58 flows of the all-to-all.
  CHECK(w["cutting_off_flows"] == 8);
  CHECK(w["ranked"][0]["fail"].contains("switch"));
  CHECK(w["ranked"][0]["fail"]["switch"]["level"] == 1);
  CHECK(w["ranked"][0]["disconnected_flows"] == 58);
  CHECK(w["ranked"].size() == 3);
  const auto& c = w["ranked_without_cut_off"];
  CHECK(c.size() == 3);
  CHECK(c[0]["disconnected_flows"] == 0);
  CHECK(c[0]["worst_connected_slowdown"].get<double>() >= c[1]["worst_connected_slowdown"].get<double>());
  CHECK(c[0]["worst_connected_slowdown"].get<double>() > 1.0);
  CHECK(signoff_markdown(p).find("## Worst single failure") != std::string::npos);
  j["worst_failure"]["max_candidates"] = 10;
  const auto q = run_signoff(parse_fabric_scenario(j, "f.json"));
  CHECK(q["worst_failure"]["skipped"].get<std::string>().find("52 single failures") == 0);
}
