// The sign-off pack's inputs and outputs: explicit flow sets (JSON and CSV, given paths,
// staggered arrivals), profiles solved together, flows.csv and links.csv, per-hop latency in
// completion times, provenance (SHA-256 of every input) and measurements.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "fabric/signoff.hpp"
#include "sim/core/error.hpp"
#include "sim/core/sha256.hpp"

using namespace floorsim::fabric;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// k=4 fat-tree, 8 Gb/s (1e9 bytes/s) every link, no latency unless asked.
json k4(const json& traffic) {
  json j = json::parse(R"({"topology": {"kind": "fat_tree", "k": 4, "tiers": [{"gbps": 8, "latency_s": 0}]},
                           "full_scale_hosts": 16, "path_latency": false})");
  j["traffic"] = traffic;
  return j;
}

std::string error_of(const json& j) {
  try {
    (void)run_signoff(parse_fabric_scenario(j, "f.json"));
  } catch (const floorsim::InputError& e) {
    return e.what();
  }
  return "";
}

struct TempDir {
  fs::path path;
  TempDir() : path(fs::temp_directory_path() / ("floorsim-fabric-" + std::to_string(::getpid()))) {
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

}  // namespace

TEST_CASE("SHA-256: the FIPS 180-4 examples", "[fabric][provenance]") {
  using floorsim::io::sha256_hex;
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the padding needs a second block.
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("explicit flows: given paths and staggered arrivals", "[fabric][explicit]") {
  // Hosts 0 and 1 share edge 0. D-mod-K sends 0->4 and 1->5 up different aggregation links
  // (1 s each); pinning both to up-ports 0/0/0 makes them share edge 0's first uplink.
  auto j = k4(json::parse(R"([{"name": "routed", "pattern": "explicit",
                                "flows": [{"src": 0, "dst": 4, "bytes": 1e9}, {"src": 1, "dst": 5, "bytes": 1e9}]},
                               {"name": "pinned", "pattern": "explicit",
                                "flows": [{"src": 0, "dst": 4, "bytes": 1e9, "path": [0, 0, 0]},
                                          {"src": 1, "dst": 5, "bytes": 1e9, "path": [0, 0, 0]}]},
                               {"name": "staggered", "pattern": "explicit",
                                "flows": [{"src": 0, "dst": 4, "bytes": 1e9, "path": [0, 0, 0]},
                                          {"src": 1, "dst": 5, "bytes": 1e9, "start_s": 0.5, "path": [0, 0, 0]},
                                          {"src": 2, "dst": 3, "bytes": 1e9}]}])"));
  const auto out = run_signoff_pack(parse_fabric_scenario(j, "f.json"));
  const auto& p = out.pack;
  CHECK(p["traffic"][0]["results"]["dmodk"]["slowest_s"].get<double>() == Approx(1.0));
  CHECK(p["traffic"][1]["results"]["dmodk"]["slowest_s"].get<double>() == Approx(2.0));
  // Alone for 0.5 s, then halves: both take 1.5 s.
  CHECK(p["traffic"][2]["results"]["dmodk"]["slowest_s"].get<double>() == Approx(1.5));
  CHECK(p["traffic"][2]["hosts"] == 6);
  CHECK(p["traffic"][2]["pattern"] == "explicit");
  // The shared uplink is named as the bottleneck, limiting both flows.
  CHECK(p["traffic"][1]["bottleneck_links"][0]["link"] == "L1:0>L2:0");
  CHECK(p["traffic"][1]["bottleneck_links"][0]["flows_limited"] == 2);
  // flows.csv: a header and one row per flow; links.csv flags the shared link.
  CHECK(out.flows_csv.rfind("profile,demand,src,dst,bytes,start_s,end_s,duration_s,mean_gbps,bottleneck_link,path\n", 0) == 0);
  CHECK(out.flows_csv.find("pinned,1,1,5,1e+09,0,2,2,4,L1:0>L2:0,host1>L1:0>L2:0>L3:0>L2:2>L1:2>host5\n") !=
        std::string::npos);
  CHECK(out.links_csv.find("pinned,") != std::string::npos);
  CHECK(out.links_csv.find(",L1:0,L2:0,1,8,2e+09,2,1,1,2,2,1\n") != std::string::npos);
}

TEST_CASE("explicit flows: bad input names the flow", "[fabric][explicit]") {
  auto j = k4(json::parse(R"([{"name": "x", "pattern": "explicit", "flows": [{"src": 0, "dst": 16, "bytes": 1}]}])"));
  CHECK(error_of(j).find("f.json:/traffic/0/flows/0: dst 16 is not a host; expected 0..15") == 0);
  j = k4(json::parse(R"([{"name": "x", "pattern": "explicit", "flows": [{"src": 0, "dst": 4, "bytes": 1, "path": [0, 0]}]}])"));
  CHECK(error_of(j).find("/traffic/0/flows/0: path has 2 ports; expected 3") != std::string::npos);
  j = k4(json::parse(R"([{"name": "x", "pattern": "explicit", "flows": [{"src": 0, "dst": 4, "bytes": 1, "path": [0, 2, 0]}]}])"));
  CHECK(error_of(j).find("path port 2 at level 2; expected 0..1") != std::string::npos);
  j = k4(json::parse(R"([{"name": "x", "pattern": "explicit"}])"));
  CHECK(error_of(j).find("/traffic/0: explicit pattern without \"flows\"") != std::string::npos);
  j = k4(json::parse(R"([{"name": "x", "pattern": "permutation", "flows": []}])"));
  CHECK(error_of(j).find("/traffic/0/flows: \"flows\" given; expected \"pattern\": \"explicit\"") != std::string::npos);
}

TEST_CASE("explicit flows from CSV, provenance and measurements", "[fabric][explicit][provenance]") {
  TempDir dir;
  const std::string csv = "src,dst,bytes,start_s,path\n0,4,1e9,0,0/0/0\n1,5,1e9,0.5,0/0/0\n\n\"2\",3,1e9,0,\n";
  dir.write("flows.csv", csv);
  dir.write("measured.csv",
            "what,where,measured,unit,modelled\n"
            "\"slowest flow, 2 hosts\",lab rack A,1.8,s,/traffic/0/results/dmodk/slowest_s\n");
  auto j = k4(json::parse(R"([{"name": "from csv", "pattern": "explicit", "flows": "flows.csv"}])"));
  j["measurements"] = "measured.csv";
  const std::string scen = dir.write("fabric.json", j.dump());
  const auto s = load_fabric_scenario(scen);
  const auto p = run_signoff(s, "floorsim fabric fabric.json --out x");
  CHECK(p["traffic"][0]["results"]["dmodk"]["slowest_s"].get<double>() == Approx(1.5));
  const auto& pv = p["provenance"];
  CHECK(pv["command_line"] == "floorsim fabric fabric.json --out x");
  CHECK(!pv["floorsim_version"].get<std::string>().empty());
  CHECK(!pv["commit"].get<std::string>().empty());
  REQUIRE(pv["inputs"].size() == 3);
  CHECK(pv["inputs"][0]["path"] == scen);
  CHECK(pv["inputs"][1]["path"] == (dir.path / "flows.csv").string());
  CHECK(pv["inputs"][1]["sha256"] == floorsim::io::sha256_hex(csv));
  CHECK(pv["inputs"][1]["bytes"] == csv.size());
  const auto& m = p["measured"];
  REQUIRE(m.size() == 1);
  CHECK(m[0]["what"] == "slowest flow, 2 hosts");
  CHECK(m[0]["modelled_value"].get<double>() == Approx(1.5));
  CHECK(m[0]["measured_over_modelled"].get<double>() == Approx(1.2));
  CHECK(signoff_markdown(p).find("| slowest flow, 2 hosts | lab rack A | 1.8 | s |") != std::string::npos);

  // A pointer to nothing, and a bad CSV row, each name their line.
  dir.write("measured.csv", "what,where,measured,unit,modelled\nx,y,1,s,/traffic/9/slowest_s\n");
  try {
    (void)run_signoff(load_fabric_scenario(scen));
    FAIL("a measurement naming no figure was accepted");
  } catch (const floorsim::InputError& e) {
    CHECK(std::string(e.what()).find("measured.csv:2: modelled \"/traffic/9/slowest_s\" names no number") != std::string::npos);
  }
  dir.write("flows.csv", "src,dst,bytes\n0,4,1e9\n0,x,1\n");
  try {
    (void)load_fabric_scenario(scen);
    FAIL("a bad flow row was accepted");
  } catch (const floorsim::InputError& e) {
    CHECK(std::string(e.what()).find("flows.csv:3: src and dst must be host indices") != std::string::npos);
  }
}

TEST_CASE("profiles solved together, each at its own start", "[fabric][explicit]") {
  auto j = k4(json::parse(R"([{"name": "a", "pattern": "explicit", "flows": [{"src": 0, "dst": 4, "bytes": 1e9, "path": [0, 0, 0]}]},
                               {"name": "b", "pattern": "explicit",
                                "flows": [{"src": 1, "dst": 5, "bytes": 1e9, "start_s": 0.5, "path": [0, 0, 0]}]}])"));
  j["mixes"] = json::parse(R"([{"name": "a+b", "profiles": ["a", "b"]}])");
  const auto p = run_signoff(parse_fabric_scenario(j, "f.json"));
  const auto& m = p["mixes"][0];
  CHECK(m["profiles"][0]["slowest_s"].get<double>() == Approx(1.5));
  CHECK(m["profiles"][0]["alone_slowest_s"].get<double>() == Approx(1.0));
  CHECK(m["profiles"][0]["slowdown"].get<double>() == Approx(1.5));
  CHECK(m["profiles"][1]["slowest_s"].get<double>() == Approx(1.5));
  j["mixes"] = json::parse(R"([{"name": "x", "profiles": ["a", "c"]}])");
  CHECK(error_of(j).find("/mixes/0/profiles/1: no traffic profile named \"c\"") != std::string::npos);
}

TEST_CASE("per-hop latency enters completion times", "[fabric][latency]") {
  auto j = k4(json::parse(R"([{"name": "one", "pattern": "explicit", "flows": [{"src": 0, "dst": 4, "bytes": 1e9}]}])"));
  j["topology"]["tiers"] = json::parse(R"([{"gbps": 8, "latency_s": 1e-6}, {"gbps": 8, "latency_s": 2e-6},
                                           {"gbps": 8, "latency_s": 5e-6}])");
  const double plain = run_signoff(parse_fabric_scenario(j, "f.json"))["traffic"][0]["results"]["dmodk"]["slowest_s"];
  j["path_latency"] = true;
  const double with = run_signoff(parse_fabric_scenario(j, "f.json"))["traffic"][0]["results"]["dmodk"]["slowest_s"];
  CHECK(plain == Approx(1.0));
  // Six hops: two on each tier.
  CHECK(with - plain == Approx(2 * (1e-6 + 2e-6 + 5e-6)).epsilon(1e-6));
}
