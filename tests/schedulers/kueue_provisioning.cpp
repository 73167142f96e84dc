// Kueue model: the ProvisioningRequest admission check (delay, seeded failures, Kueue's retry
// rule) and ResourceFlavors mapped to nodes by their nodeLabels over the cluster's node labels
// (also as Topology levels).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "schedulers/kueue/flavor_nodes.hpp"
#include "schedulers/kueue/kueue_scheduler.hpp"
#include "schedulers/kueue/manifest_model.hpp"
#include "schedulers/kueue/provisioning.hpp"
#include "sim/app/scenario.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/error.hpp"
#include "tests/sim/test_util.hpp"

using namespace floorsim;
using namespace floorsim::kueue;
using floorsim::testing::class_job;
using floorsim::testing::node_names_of;

namespace {

bool warned(const std::vector<std::string>& ws, const std::string& what) {
  for (const auto& w : ws)
    if (w.find(what) != std::string::npos) return true;
  return false;
}
bool warned(const cfg::json& ws, const std::string& what) {
  for (const auto& w : ws)
    if (w.get<std::string>().find(what) != std::string::npos) return true;
  return false;
}

// Two node pools by label: gpu001-002 in h100-pool, gpu003-004 in a100-pool.
ClusterConfig pooled_cluster() {
  ClusterConfig c = uniform_cluster("gpu", 4, 8);
  c.label_sets = {{{"cloud.google.com/gke-nodepool", "h100-pool"}, {"cloud.google.com/gke-accelerator", "nvidia-h100-80gb"}},
                  {{"cloud.google.com/gke-nodepool", "a100-pool"}, {"cloud.google.com/gke-accelerator", "nvidia-tesla-a100"}}};
  c.node_label_set = {0, 0, 1, 1};
  return c;
}

}  // namespace

// syncCheckStates (pkg/controller/admissionchecks/provisioning/controller.go): a failed attempt
// n is retried while n <= backoffLimitCount, after workload.UpdateRequeueState's
// min(base 2^(n-1), max) (its 0.0001 jitter left out); else the check is Rejected.
TEST_CASE("kueue ProvisioningRequest: the retry rule of Kueue's provisioning controller", "[kueue][provisioning][conformance]") {
  struct Row {
    int32_t limit;
    double base_s, max_s;
    uint32_t attempt;
    bool retry;
    double backoff_s;
  };
  const Row rows[] = {
      {3, 60, 1800, 1, true, 60},     // the API defaults: 60 s, 120 s, 240 s, then rejected
      {3, 60, 1800, 2, true, 120},
      {3, 60, 1800, 3, true, 240},
      {3, 60, 1800, 4, false, 0},
      {2, 0, 1800, 1, true, 0},       // site/static/examples/provisioning/provisioning-setup.yaml
      {2, 0, 1800, 2, true, 0},
      {2, 0, 1800, 3, false, 0},
      {0, 60, 1800, 1, false, 0},     // backoffLimitCount 0 switches retries off
      {10, 600, 1800, 3, true, 1800},  // 2400 s capped at backoffMaxSeconds
  };
  for (const Row& r : rows) {
    ProvisioningCheck c;
    c.backoff_limit_count = r.limit;
    c.backoff_base_s = r.base_s;
    c.backoff_max_s = r.max_s;
    const AfterFailure a = after_failure(c, r.attempt);
    INFO("limit " << r.limit << " base " << r.base_s << " attempt " << r.attempt);
    CHECK(a.retry == r.retry);
    CHECK(a.backoff_s == Approx(r.backoff_s));
  }
}

// requiredPodSets: with managedResources, only a workload requesting one of them needs a
// ProvisioningRequest; without, every workload does.
TEST_CASE("kueue ProvisioningRequest: managedResources select the workloads that need a request", "[kueue][provisioning]") {
  using V = std::vector<std::string>;
  CHECK(request_needed({}, {"cpu"}));
  CHECK(request_needed({}, {}));
  CHECK(request_needed(V{"nvidia.com/gpu"}, V{"cpu", "nvidia.com/gpu"}));
  CHECK_FALSE(request_needed(V{"nvidia.com/gpu"}, V{"cpu", "memory"}));
  CHECK_FALSE(request_needed(V{"nvidia.com/gpu"}, V{}));
}

TEST_CASE("kueue ProvisioningRequest: failures are drawn per job and attempt from the seed", "[kueue][provisioning]") {
  CHECK_FALSE(attempt_fails(1, 0, 1, 0.0));
  CHECK(attempt_fails(1, 0, 1, 1.0));
  int fails = 0;
  for (uint32_t j = 0; j < 2000; ++j) {
    const bool f = attempt_fails(7, j, 1, 0.3);
    CHECK(f == attempt_fails(7, j, 1, 0.3));  // the same draw every time
    fails += f;
  }
  CHECK(fails > 500);
  CHECK(fails < 700);
}

namespace {

const char* kProvYaml = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  admissionChecks: [prov]
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: f, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: cfg}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata: {name: cfg}
spec:
  retryStrategy: {backoffLimitCount: 1, backoffBaseSeconds: 60, backoffMaxSeconds: 1800}
)";

}  // namespace

TEST_CASE("kueue ProvisioningRequest: the check's ProvisioningRequestConfig is read from the manifests", "[kueue][provisioning]") {
  const std::string ex = std::string(FLOORSIM_SOURCE_DIR) + "/tests/schedulers/data/upstream/kueue/site/static/examples";
  Manifests mf;
  load_manifest_file(ex + "/provisioning/provisioning-setup.yaml", "provisioning-setup.yaml", mf);
  const BuiltModel b = build_model(mf, "scenario.json");
  REQUIRE(b.cq_provisioning.count("cluster-queue"));
  const ProvisioningCheck& c = b.cq_provisioning.at("cluster-queue");
  CHECK(c.check == "sample-prov");
  CHECK(c.config == "prov-test-config");
  CHECK(c.managed_resources == std::vector<std::string>{"nvidia.com/gpu"});
  CHECK(c.backoff_limit_count == 2);
  CHECK(c.backoff_base_s == 0);
  CHECK(c.backoff_max_s == 1800);
  CHECK(warned(mf.warnings, "spec.provisioningClassName check-capacity.autoscaling.x-k8s.io is not modelled"));
  CHECK(b.model.cq[b.cq_by_name.at("cluster-queue")].active);

  // An AdmissionCheck whose ProvisioningRequestConfig is missing is inactive (BadParametersRef),
  // and so is its ClusterQueue.
  Manifests bad;
  std::string text = kProvYaml;
  text.replace(text.find("name: cfg}"), 10, "name: gone}");
  load_manifest_text(text, "bad.yaml", bad);
  const BuiltModel bb = build_model(bad, "scenario.json");
  CHECK_FALSE(bb.model.cq[bb.cq_by_name.at("cq")].active);
  CHECK(warned(bb.warnings, "ProvisioningRequestConfig gone is not in the manifests"));
}

namespace {

struct ProvRun {
  std::unique_ptr<Scheduler> s;
  std::unique_ptr<Engine> e;
  std::vector<std::string> extra(JobIdx j) const {
    std::vector<std::string> out;
    s->extra_values(j, out);
    return out;
  }
};

ProvRun run_prov(const Workload& w, const ClusterConfig& c, double failure_probability) {
  const auto dir = std::filesystem::temp_directory_path() / "floorsim-kueue-prov";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "q.yaml") << kProvYaml;
  cfg::json p = {{"type", "kueue"},
                 {"manifests", {"q.yaml"}},
                 {"queue_map", {{"*", "default/q"}}},
                 {"provisioning_request", {{"delay_s", 300}, {"failure_probability", failure_probability}}}};
  const cfg::json resolved = cfg::resolve(p, *kueue_params_spec(), "/scheduler", "scenario.json");
  SchedulerContext ctx{w, c, dir.string(), "scenario.json", 1};
  ProvRun r;
  r.s = make_kueue(resolved, ctx);
  EngineConfig ec;
  ec.check_invariants = true;
  r.e = std::make_unique<Engine>(w, c, *r.s, ec);
  r.e->run();
  return r;
}

}  // namespace

TEST_CASE("kueue ProvisioningRequest in the engine: quota held while provisioning; retries, then rejected", "[kueue][provisioning]") {
  Workload w;
  w.jobs.push_back(class_job(w, 1, "a", 0, 1, 8));
  w.jobs.push_back(class_job(w, 2, "a", 0, 1, 8));
  const ClusterConfig c = uniform_cluster("gpu", 2, 8);
  SECTION("every attempt passes: each job starts delay_s after its quota reservation") {
    ProvRun r = run_prov(w, c, 0.0);
    // Job 1 reserves the 8-GPU quota at 0 and starts at 300 on provisioned nodes; job 2 waits
    // for the quota (a free node notwithstanding) until 1300, then provisions for 300 s.
    CHECK(r.e->runs()[0].start_s == 300);
    CHECK(r.e->runs()[1].start_s == 1600);
    CHECK(r.extra(0) == std::vector<std::string>{"cq", "default/q", "0", "1", "0", "300"});
    const auto rep = r.s->report(r.e->snapshot());
    CHECK(rep["provisioning_request"]["attempts"] == 2);
    CHECK(rep["provisioning_request"]["failures"] == 0);
  }
  SECTION("every attempt fails: the quota is released and retried after 60 s, then the workload is deactivated") {
    ProvRun r = run_prov(w, c, 1.0);
    // Job 1: attempt 1 at 0 fails at 300 (retry at 360: job 2 takes the quota then, at 300);
    // job 2: 300 -> 600 fails, retried at 660; job 1: 600 -> 900 fails, past backoffLimitCount 1.
    CHECK(r.e->runs()[0].state == JobState::Unstarted);
    CHECK(r.e->runs()[1].state == JobState::Unstarted);
    CHECK(r.s->reason_name(r.e->runs()[0].reason) == "ProvisioningRejected");
    CHECK(r.extra(0) == std::vector<std::string>{"cq", "default/q", "0", "2", "2", "600"});
    const auto rep = r.s->report(r.e->snapshot());
    CHECK(rep["provisioning_request"]["failures"] == 4);
    CHECK(rep["provisioning_request"]["rejected"] == 2);
  }
}

TEST_CASE("kueue flavors: nodeLabels select the nodes that carry all of them", "[kueue][flavor][labels]") {
  const ClusterConfig c = pooled_cluster();
  std::vector<ResourceFlavorObj> fl(4);
  fl[0].name = "h100";
  fl[0].node_labels = {{"cloud.google.com/gke-accelerator", "nvidia-h100-80gb"}};
  fl[1].name = "a100-pool";
  fl[1].node_labels = {{"cloud.google.com/gke-nodepool", "a100-pool"}, {"cloud.google.com/gke-accelerator", "nvidia-tesla-a100"}};
  fl[2].name = "mismatch";  // each label is some node's, not both on one node
  fl[2].node_labels = {{"cloud.google.com/gke-nodepool", "a100-pool"}, {"cloud.google.com/gke-accelerator", "nvidia-h100-80gb"}};
  fl[3].name = "one-host";
  fl[3].node_labels = {{"kubernetes.io/hostname", "gpu004"}};  // set by Kubernetes on every node
  std::vector<std::string> names;
  for (const auto& f : fl) names.push_back(f.name);
  std::vector<std::string> warnings;
  const auto masks = flavor_node_masks(fl, names, cfg::json::object(), c, "scenario.json", warnings);
  using M = std::vector<uint8_t>;
  CHECK(masks[0] == M{1, 1, 0, 0});
  CHECK(masks[1] == M{0, 0, 1, 1});
  CHECK(masks[2] == M{0, 0, 0, 0});
  CHECK(masks[3] == M{0, 0, 0, 1});
  CHECK(warned(warnings, "ResourceFlavor mismatch spec.nodeLabels"));
  CHECK(warned(warnings, "match no node of the cluster"));
  CHECK(warnings.size() == 1);

  // flavor_nodes given too: the prefix wins, and the warning says so.
  warnings.clear();
  const auto both = flavor_node_masks(fl, names, cfg::json{{"h100", "gpu004"}}, c, "scenario.json", warnings);
  CHECK(both[0] == M{0, 0, 0, 1});
  CHECK(warned(warnings, "ResourceFlavor h100: scheduler.flavor_nodes maps it to the nodes named gpu004*"));

  // A cluster without labels: nodeLabels are not matched (named), the pods may run anywhere.
  warnings.clear();
  const auto bare = flavor_node_masks(fl, names, cfg::json::object(), uniform_cluster("gpu", 4, 8), "scenario.json", warnings);
  CHECK(bare[0].empty());
  CHECK(warned(warnings, "the cluster gives nodes no labels"));
}

TEST_CASE("kueue TAS: Topology levels are the cluster's node labels where it gives them", "[kueue][tas][labels]") {
  const auto dir = std::filesystem::temp_directory_path() / "floorsim-kueue-tas-labels";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tas.yaml") << R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: gke}
spec:
  levels:
  - nodeLabel: cloud.google.com/gke-nodepool
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas}
spec: {topologyName: gke}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: tas, resources: [{name: nvidia.com/gpu, nominalQuota: 64}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
)";
  Workload w;
  // Domains in lexical order of their label values: a100-pool (gpu003, gpu004) first. Laid on
  // the structure instead (one leaf), fill would take gpu001 and train gpu002 + gpu003.
  w.jobs.push_back(class_job(w, 1, "fill", 0, 1, 8));    // gpu003
  w.jobs.push_back(class_job(w, 2, "train", 0, 2, 16));  // one node pool: h100-pool, the one with two free nodes
  const ClusterConfig c = pooled_cluster();
  cfg::json p = {{"type", "kueue"},
                 {"manifests", {"tas.yaml"}},
                 {"queue_map", {{"*", "default/q"}}},
                 {"job_annotations", {{"train", {{"kueue.x-k8s.io/podset-required-topology", "cloud.google.com/gke-nodepool"}}}}}};
  const cfg::json resolved = cfg::resolve(p, *kueue_params_spec(), "/scheduler", "scenario.json");
  SchedulerContext ctx{w, c, dir.string(), "scenario.json", 1};
  auto s = make_kueue(resolved, ctx);
  EngineConfig ec;
  ec.check_invariants = true;
  Engine e(w, c, *s, ec);
  e.run();
  CHECK(node_names_of(e, c, 0) == std::vector<std::string>{"gpu003"});
  CHECK(e.runs()[1].start_s == 0);
  CHECK(node_names_of(e, c, 1) == std::vector<std::string>{"gpu001", "gpu002"});
  CHECK_FALSE(warned(s->report(e.snapshot())["warnings"], "above the structure"));
}

// Kubernetes label syntax (Labels and Selectors: Syntax and character set) and the scenario's
// node labels: the cluster's for every node, a node group's over them.
TEST_CASE("node labels: syntax, and the scenario's cluster and node group labels", "[labels]") {
  struct Row {
    const char* key;
    const char* value;
    bool ok;
  };
  const Row rows[] = {
      {"node.kubernetes.io/instance-type", "p5.48xlarge", true},
      {"cloud.google.com/gke-accelerator", "nvidia-h100-80gb", true},
      {"pool", "", true},                    // an empty value is a value
      {"a/b/c", "x", false},                 // one '/' at most
      {"Cloud.Google.com/pool", "x", false},  // the prefix is a lower-case DNS subdomain
      {"/pool", "x", false},
      {"-pool", "x", false},
      {"pool", "h100 pool", false},
      {"pool", "x-", false},
  };
  CHECK_FALSE(label_value_problem(std::string(64, 'a')).empty());  // 63 characters at most
  for (const Row& r : rows) {
    INFO(r.key << " = " << r.value);
    CHECK((label_key_problem(r.key).empty() && label_value_problem(r.value).empty()) == r.ok);
  }
  const cfg::json doc = cfg::json::parse(R"({
    "cluster": {"labels": {"topology.kubernetes.io/zone": "us-east1-b"},
                "node_groups": [{"prefix": "h", "count": 2, "gpus_per_node": 8, "labels": {"cloud.google.com/gke-nodepool": "h100"}},
                                {"prefix": "a", "count": 1, "gpus_per_node": 8,
                                 "labels": {"topology.kubernetes.io/zone": "us-east1-c"}}]},
    "workload": {"jobs": [{"id": 1, "runtime_s": 10, "gpus": 1}]},
    "scheduler": {"type": "fifo"}})");
  const app::Scenario sc = app::load_scenario(doc, "s.json", ".");
  REQUIRE(sc.cluster.gives_labels());
  CHECK(sc.cluster.labels(1) == NodeLabels{{"cloud.google.com/gke-nodepool", "h100"}, {"topology.kubernetes.io/zone", "us-east1-b"}});
  CHECK(sc.cluster.labels(2) == NodeLabels{{"topology.kubernetes.io/zone", "us-east1-c"}});
  cfg::json bad = doc;
  bad["cluster"]["node_groups"][1]["labels"] = {{"a/b/c", "x"}};
  CHECK_THROWS_WITH(app::load_scenario(bad, "s.json", "."), Catch::Contains("s.json:/cluster/node_groups/1/labels/a~1b~1c"));
  cfg::json plain = doc;
  plain.erase("cluster");
  CHECK_FALSE(app::load_scenario(plain, "s.json", ".").cluster.gives_labels());
}
