// Kueue Topology-Aware Scheduling conformance: cases of Kueue's own table
// TestFindTopologyAssignment, kubernetes-sigs/kueue pkg/cache/tas_cache_test.go at commit
// 02eb5698e49cd440d2509af78545084cecdfe11e (the cases without a TASProfile feature gate: the
// default BestFit profile), against the algorithm of pkg/cache/tas_flavor_snapshot.go at
// commit 0060e03bdaad6e39ce06ed4a7c0a1e10e68580cd. Every pod requests 1 cpu; a leaf's count
// is the pods its allocatable takes (a node's cpu; with no hostname level, the rack's summed cpu,
// or its pods capacity where the request is memory).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "schedulers/kueue/tas.hpp"

using namespace floorsim::kueue;

namespace {

const std::string kBlock = "cloud.com/topology-block", kRack = "cloud.com/topology-rack";

struct Leaf {
  std::vector<std::string> path;
  int32_t fit;
};

// "values:count" of each assigned leaf (its last value), in lexical order; or the reason.
std::string run(const std::vector<std::string>& levels, const std::vector<Leaf>& leaves, tas::Kind kind,
                const std::string& level, int32_t count) {
  std::vector<std::vector<std::string>> paths;
  std::vector<int32_t> fit;
  for (const auto& l : leaves) paths.push_back(l.path), fit.push_back(l.fit);
  const tas::Domains d = tas::build("default", levels, paths);
  const tas::Assignment a = tas::assign(d, fit, {kind, level, count});
  if (!a.fits()) return a.reason;
  std::string out;
  for (const auto& [leaf, pods] : a.leaves) {
    if (!out.empty()) out += " ";
    std::string id;
    for (size_t l = levels.back() == tas::kHostname ? levels.size() - 1 : 0; l < levels.size(); ++l)
      id += (id.empty() ? "" : "/") + paths[leaf][l];
    out += id + ":" + std::to_string(pods);
  }
  return out;
}

// Kueue's defaultNodes: block b1 holds rack r1 (host x1) and r2 (x2, x3, x4); block b2 holds
// r1 (x5) and r2 (x6). cpu 1 each, x6: 2; pods 10 each, x6: 40.
const std::vector<std::string> kThree = {kBlock, kRack, tas::kHostname};
const std::vector<std::string> kTwo = {kBlock, kRack};
const std::vector<Leaf> kDefaultHosts = {{{"b1", "r1", "x1"}, 1}, {{"b1", "r2", "x2"}, 1}, {{"b1", "r2", "x3"}, 1},
                                         {{"b1", "r2", "x4"}, 1}, {{"b2", "r1", "x5"}, 1}, {{"b2", "r2", "x6"}, 2}};
const std::vector<Leaf> kDefaultRacks = {{{"b1", "r1"}, 1}, {{"b1", "r2"}, 3}, {{"b2", "r1"}, 1}, {{"b2", "r2"}, 2}};

}  // namespace

TEST_CASE("kueue TAS: Kueue's findTopologyAssignment table (BestFit)", "[kueue][conformance][tas]") {
  using K = tas::Kind;
  SECTION("minimize the number of used racks before optimizing the number of nodes") {
    const std::vector<Leaf> nodes = {{{"b1", "r1", "x1"}, 2}, {{"b1", "r2", "x2"}, 2}, {{"b1", "r3", "x3"}, 1},
                                     {{"b1", "r3", "x4"}, 1}, {{"b1", "r3", "x5"}, 1}, {{"b1", "r3", "x6"}, 1}};
    CHECK(run(kThree, nodes, K::Required, kBlock, 4) == "x3:1 x4:1 x5:1 x6:1");
  }
  SECTION("choose the node that can accommodate all Pods") {
    const std::vector<Leaf> nodes = {{{"b1", "r1", "x1"}, 2}, {{"b1", "r1", "x2"}, 1}, {{"b1", "r1", "x3"}, 1}};
    CHECK(run(kThree, nodes, K::Required, kBlock, 2) == "x1:2");
  }
  SECTION("no annotation / unconstrained: 6 pods scattered across the datacenter") {
    const std::vector<Leaf> scattered = {{{"b1", "r1", "x1"}, 4}, {{"b1", "r1", "x2"}, 1}, {{"b1", "r1", "x3"}, 1},
                                         {{"b2", "r1", "x4"}, 2}, {{"b2", "r1", "x5"}, 1}};
    CHECK(run(kThree, scattered, K::Unconstrained, "", 6) == "x1:4 x4:2");
  }
  SECTION("unconstrained; a single pod fits into each host") {
    CHECK(run(kThree, kDefaultHosts, K::Unconstrained, "", 1) == "x1:1");
  }
  SECTION("block required; 4 pods fit into one host each (binary trees)") {
    const std::vector<Leaf> binary = {{{"b1", "r1", "x1"}, 1}, {{"b1", "r1", "x2"}, 1}, {{"b1", "r2", "x3"}, 1},
                                      {{"b1", "r2", "x4"}, 1}, {{"b2", "r1", "x5"}, 1}, {{"b2", "r1", "x6"}, 1},
                                      {{"b2", "r2", "x7"}, 1}, {{"b2", "r2", "x8"}, 1}};
    CHECK(run(kThree, binary, K::Required, kBlock, 4) == "x1:1 x2:1 x3:1 x4:1");
  }
  SECTION("host required; single Pod fits in the host") {
    CHECK(run(kThree, kDefaultHosts, K::Required, tas::kHostname, 1) == "x1:1");
  }
  SECTION("rack required") {
    CHECK(run(kTwo, kDefaultRacks, K::Required, kRack, 1) == "b1/r1:1");  // single Pod fits in a rack
    CHECK(run(kTwo, kDefaultRacks, K::Required, kRack, 3) == "b1/r2:3");  // multiple Pods fit in a rack
    CHECK(run(kTwo, kDefaultRacks, K::Required, kRack, 2) == "b2/r2:2");  // multiple Pods fit in some racks
    CHECK(run(kTwo, kDefaultRacks, K::Required, kRack, 4) == "topology \"default\" allows to fit only 3 out of 4 pod(s)");
    // single Pod requiring memory: the racks' pods capacity binds (10, 30, 10, 40).
    const std::vector<Leaf> mem = {{{"b1", "r1"}, 10}, {{"b1", "r2"}, 30}, {{"b2", "r1"}, 10}, {{"b2", "r2"}, 40}};
    CHECK(run(kTwo, mem, K::Required, kRack, 4) == "b1/r1:4");
  }
  SECTION("block preferred; Pods fit in 2 blocks") {
    const std::vector<Leaf> blocks = {{{"b1"}, 2}, {{"b2"}, 1}, {{"b3"}, 4}};
    CHECK(run({kBlock}, blocks, K::Preferred, kBlock, 5) == "b2:1 b3:4");
  }
  SECTION("block required") {
    CHECK(run(kTwo, kDefaultRacks, K::Required, kBlock, 1) == "b2/r1:1");  // fits in a block and a single rack
    CHECK(run(kTwo, kDefaultRacks, K::Required, kBlock, 4) == "b1/r1:1 b1/r2:3");  // spread across two racks
    CHECK(run(kTwo, kDefaultRacks, K::Required, kBlock, 5) == "topology \"default\" allows to fit only 4 out of 5 pod(s)");
    // single Pod which cannot be split (4 cpu): no rack takes it.
    const std::vector<Leaf> none = {{{"b1", "r1"}, 0}, {{"b1", "r2"}, 0}, {{"b2", "r1"}, 0}, {{"b2", "r2"}, 0}};
    CHECK(run(kTwo, none, K::Required, kBlock, 1) == "topology \"default\" doesn't allow to fit any of 1 pod(s)");
  }
  SECTION("rack preferred") {
    CHECK(run(kTwo, kDefaultRacks, K::Preferred, kRack, 4) == "b1/r1:1 b1/r2:3");  // only a block can accommodate it
    CHECK(run(kTwo, kDefaultRacks, K::Preferred, kRack, 6) == "b1/r1:1 b1/r2:3 b2/r2:2");  // only multiple blocks
  }
  SECTION("a level the Topology does not have") {
    CHECK(run(kTwo, kDefaultRacks, K::Required, "zone", 1) == "no requested topology level: zone");
  }
}

// ---- The kueue model with a TAS flavor, through the engine -----------------------------------

#include <filesystem>
#include <fstream>

#include "schedulers/kueue/kueue_scheduler.hpp"
#include "sim/core/engine.hpp"
#include "tests/sim/test_util.hpp"

namespace {

using namespace floorsim;
using floorsim::testing::class_job;
using floorsim::testing::node_names_of;

const char* kTasYaml = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: default}
spec:
  levels:
  - nodeLabel: cloud.provider.com/topology-block
  - nodeLabel: cloud.provider.com/topology-rack
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas-flavor}
spec: {topologyName: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: tas-flavor, resources: [{name: nvidia.com/gpu, nominalQuota: 64}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
)";

}  // namespace

TEST_CASE("kueue TAS in the engine: required rack keeps a gang in one leaf, or it waits", "[kueue][tas]") {
  const auto dir = std::filesystem::temp_directory_path() / "floorsim-kueue-tas";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tas.yaml") << kTasYaml;
  Workload w;
  w.jobs.push_back(class_job(w, 1, "fill", 0, 1, 8));    // implied unconstrained: the first node, gpu001
  w.jobs.push_back(class_job(w, 2, "train", 0, 2, 16));  // rack required: leaf2 (gpu003, gpu004), not gpu002+gpu003
  w.jobs.back().runtime_s = 5000;
  w.jobs.push_back(class_job(w, 3, "train", 1, 2, 16));  // no rack has two free nodes until job 1 ends
  w.jobs.push_back(class_job(w, 4, "train", 2, 1, 8));   // one pod: gpu002
  const ClusterConfig c = uniform_cluster("gpu", 4, 8, 2);
  cfg::json p = {{"type", "kueue"},
                 {"manifests", {"tas.yaml"}},
                 {"queue_map", {{"*", "default/q"}}},
                 {"job_annotations", {{"train", {{"kueue.x-k8s.io/podset-required-topology", "cloud.provider.com/topology-rack"}}}}}};
  const cfg::json resolved = cfg::resolve(p, *kueue::kueue_params_spec(), "/scheduler", "scenario.json");
  SchedulerContext ctx{w, c, dir.string(), "scenario.json", 1};
  auto s = kueue::make_kueue(resolved, ctx);
  EngineConfig ec;
  ec.check_invariants = true;
  Engine e(w, c, *s, ec);
  e.run();
  CHECK(node_names_of(e, c, 0) == std::vector<std::string>{"gpu001"});
  CHECK(e.runs()[1].start_s == 0);
  CHECK(node_names_of(e, c, 1) == std::vector<std::string>{"gpu003", "gpu004"});
  CHECK(e.runs()[3].start_s == 2);
  CHECK(node_names_of(e, c, 3) == std::vector<std::string>{"gpu002"});
  // Job 3 waits (TopologyNotFit) until jobs 1 and 4 free leaf1 at 1000 and 1002.
  CHECK(e.runs()[2].start_s == 1002);
  CHECK(node_names_of(e, c, 2) == std::vector<std::string>{"gpu001", "gpu002"});
  const auto r = s->report(e.snapshot());
  CHECK(r["topology_aware"]["placed"] == 4);
  CHECK(r["topology_aware"]["not_fit_attempts"].get<int>() > 0);
  // The block level has no structure in this scenario: named, and taken as the whole cluster.
  bool warned = false;
  for (const auto& wmsg : r["warnings"]) warned = warned || wmsg.get<std::string>().find("topology-block is above the structure") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("kueue TAS: a topology request no flavor can take is named", "[kueue][tas]") {
  const auto dir = std::filesystem::temp_directory_path() / "floorsim-kueue-tas-level";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tas.yaml") << kTasYaml;
  Workload w;
  w.jobs.push_back(class_job(w, 1, "train", 0, 1, 8));
  const ClusterConfig c = uniform_cluster("gpu", 2, 8, 2);
  cfg::json p = {{"type", "kueue"},
                 {"manifests", {"tas.yaml"}},
                 {"queue_map", {{"*", "default/q"}}},
                 {"job_annotations", {{"train", {{"kueue.x-k8s.io/podset-required-topology", "zone"}}}}}};
  const cfg::json resolved = cfg::resolve(p, *kueue::kueue_params_spec(), "/scheduler", "scenario.json");
  SchedulerContext ctx{w, c, dir.string(), "scenario.json", 1};
  auto s = kueue::make_kueue(resolved, ctx);
  Engine e(w, c, *s, EngineConfig{});
  e.run();
  CHECK(e.runs()[0].state == JobState::Unstarted);
  bool warned = false;
  const auto r = s->report(e.snapshot());
  for (const auto& m : r["warnings"])
    warned = warned || m.get<std::string>().find("no ResourceFlavor's Topology has level zone") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("kueue TAS in the engine: a job with a node count gets one pod per node", "[kueue][tas]") {
  const auto dir = std::filesystem::temp_directory_path() / "floorsim-kueue-tas-pernode";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tas.yaml") << kTasYaml;
  Workload w;
  w.jobs.push_back(class_job(w, 1, "train", 0, 2, 8));  // two pods of 4 GPUs: both would fit one node
  w.jobs.push_back(class_job(w, 2, "any", 0, 0, 12));   // nodes 0: twelve 1-GPU pods
  const ClusterConfig c = uniform_cluster("gpu", 3, 8, 3);
  cfg::json p = {{"type", "kueue"},
                 {"manifests", {"tas.yaml"}},
                 {"queue_map", {{"*", "default/q"}}},
                 {"job_annotations", {{"train", {{"kueue.x-k8s.io/podset-required-topology", "kubernetes.io/hostname"}}}}}};
  SECTION("required hostname cannot hold two nodes' pods: the job waits, never split onto one node") {
    const cfg::json resolved = cfg::resolve(p, *kueue::kueue_params_spec(), "/scheduler", "scenario.json");
    SchedulerContext ctx{w, c, dir.string(), "scenario.json", 1};
    auto s = kueue::make_kueue(resolved, ctx);
    Engine e(w, c, *s, EngineConfig{});
    e.run();
    CHECK(e.runs()[0].state == JobState::Unstarted);
    CHECK(s->reason_name(e.runs()[0].reason) == "TopologyNotFit");
    CHECK(e.runs()[1].start_s == 0);
  }
  SECTION("required rack: two nodes of the one leaf") {
    p["job_annotations"]["train"]["kueue.x-k8s.io/podset-required-topology"] = "cloud.provider.com/topology-rack";
    const cfg::json resolved = cfg::resolve(p, *kueue::kueue_params_spec(), "/scheduler", "scenario.json");
    SchedulerContext ctx{w, c, dir.string(), "scenario.json", 1};
    auto s = kueue::make_kueue(resolved, ctx);
    EngineConfig ec;
    ec.check_invariants = true;
    Engine e(w, c, *s, ec);
    e.run();
    CHECK(node_names_of(e, c, 0) == std::vector<std::string>{"gpu001", "gpu002"});
    // Twelve 1-GPU pods, implied unconstrained: gpu003 (8 free) first, then the smallest node
    // that takes the last 4 (BestFit): gpu001.
    CHECK(e.runs()[1].start_s == 0);
    CHECK(node_names_of(e, c, 1) == std::vector<std::string>{"gpu001", "gpu003"});
  }
}
