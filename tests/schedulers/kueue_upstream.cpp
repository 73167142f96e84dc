// Kueue's and KAI's own example manifests (tests/schedulers/data/upstream, SOURCES.md there),
// read unchanged through the same path `floorsim run` uses: every file is accepted, and what
// floorsim does not model is named in a warning.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "schedulers/kai/kai_scheduler.hpp"
#include "schedulers/kueue/manifest.hpp"
#include "schedulers/kueue/manifest_model.hpp"
#include "sim/core/error.hpp"

namespace fs = std::filesystem;
using namespace floorsim;

namespace {

const fs::path kDir = fs::path(FLOORSIM_SOURCE_DIR) / "tests/schedulers/data/upstream";

std::vector<std::string> corpus() {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(kDir))
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// The warnings for one file, or throws InputError as `run` would refuse it.
std::vector<std::string> read_file(const std::string& f) {
  kueue::Manifests mf;
  kueue::load_manifest_file(f, f, mf);
  std::vector<std::string> warnings = mf.warnings;
  if (!mf.flavors.empty() || !mf.cluster_queues.empty() || !mf.cohorts.empty() || !mf.local_queues.empty())
    warnings = kueue::build_model(mf, f).warnings;
  if (!mf.kai_queues.empty()) {
    warnings.clear();
    kai::load_queues({f}, warnings);
  }
  return warnings;
}

bool warns(const std::vector<std::string>& w, const std::string& what) {
  return std::any_of(w.begin(), w.end(), [&](const std::string& s) { return s.find(what) != std::string::npos; });
}

}  // namespace

TEST_CASE("upstream Kueue and KAI example manifests are all read", "[kueue][kai][upstream]") {
  const auto files = corpus();
  REQUIRE(files.size() == 33);
  std::vector<std::string> refused;
  for (const auto& f : files) {
    try {
      read_file(f);
    } catch (const InputError& e) {
      refused.push_back(e.what());
    }
  }
  INFO("refused: " << refused.size() << " of " << files.size());
  for (const auto& r : refused) UNSCOPED_INFO(r);
  CHECK(refused.empty());
}

TEST_CASE("upstream manifests: what is not simulated is named", "[kueue][kai][upstream]") {
  const std::string ex = (kDir / "kueue/site/static/examples").string();
  // Topology and topologyName are modelled (topology-aware scheduling): no warning names them.
  CHECK_FALSE(warns(read_file(ex + "/tas/sample-queues.yaml"), "topologyName"));
  CHECK_FALSE(warns(read_file(ex + "/tas/sample-queues.yaml"), "kind Topology"));
  {
    kueue::Manifests tmf;
    kueue::load_manifest_file(ex + "/tas/sample-queues.yaml", "tas.yaml", tmf);
    REQUIRE(tmf.topologies.size() == 1);
    CHECK(tmf.topologies[0].levels ==
          std::vector<std::string>{"cloud.provider.com/topology-block", "cloud.provider.com/topology-rack", "kubernetes.io/hostname"});
    const auto tb = kueue::build_model(tmf, "s.json");
    CHECK(tb.model.cq[tb.cq_by_name.at("tas-cluster-queue")].active);
    // Without its Topology the TAS flavor's ClusterQueue is inactive (Kueue: TopologyNotFound).
    tmf.topologies.clear();
    const auto nb = kueue::build_model(tmf, "s.json");
    CHECK_FALSE(nb.model.cq[nb.cq_by_name.at("tas-cluster-queue")].active);
    CHECK(warns(nb.warnings, "there is no Topology default for TAS flavor tas-flavor"));
  }
  CHECK(warns(read_file(ex + "/multikueue/multikueue-setup.yaml"), "(MultiKueue) is not modelled"));
  CHECK(warns(read_file(ex + "/provisioning/provisioning-setup.yaml"), "(ProvisioningRequest): provisioning is modelled as a delay"));
  CHECK(warns(read_file(ex + "/jobs/sample-job.yaml"), "kind Job (batch/v1) is a workload"));
  // Any resource name is a quota resource: the DRA example's example.com/gpu and gpu.memory.
  kueue::Manifests mf;
  kueue::load_manifest_file(ex + "/dra/sample-dra-queues.yaml", "dra.yaml", mf);
  const auto b = kueue::build_model(mf, "s.json");
  CHECK(b.model.resource_names == std::vector<std::string>{"nvidia.com/gpu", "cpu", "memory", "example.com/gpu"});
  CHECK(b.model.tree.nominal(b.cq_by_name.at("cluster-queue"), b.model.fr(0, 3)) == 8);
}

namespace {

// pkg/scheduler/flavorassigner/flavorassigner_test.go TestAssignFlavors: the flavors of its
// table, as manifests.
const char* kTaintFlavors = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tainted}
spec:
  nodeTaints: [{key: instance, value: spot, effect: NoSchedule}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: taint_and_toleration}
spec:
  nodeTaints: [{key: instance, value: spot, effect: NoSchedule}]
  tolerations: [{key: instance, operator: Equal, value: spot, effect: NoSchedule}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: two}
spec:
  nodeLabels: {type: two}
)";

// The flavor cpu is assigned in, for a `cpu` request in a ClusterQueue whose one resource group
// lists `flavors` (4 cpu each), with the pods' `tolerations`; "" = no fit.
std::string assigned(const std::vector<std::string>& flavors, kueue::Qty cpu, const std::vector<kueue::Toleration>& tolerations) {
  std::string yaml = kTaintFlavors;
  yaml += "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n"
          "  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n";
  for (const auto& f : flavors) yaml += "    - {name: " + f + ", resources: [{name: cpu, nominalQuota: 4}]}\n";
  kueue::Manifests mf;
  kueue::load_manifest_text(yaml, "fa.yaml", mf);
  auto b = kueue::build_model(mf, "s.json");
  kueue::Request req{};
  req[kueue::kCpu] = cpu * 1000;
  req.untolerated = kueue::untolerated_flavors(b.flavors, tolerations);
  kueue::AdmittedSet adm;
  adm.reset(b.model.tree.size());
  kueue::Preemption pre;
  kueue::Preemptor in;
  in.cq = b.cq_by_name.at("cq");
  kueue::FlavorAssigner fa;
  const kueue::Assignment a = fa.assign(b.model, b.model.tree, adm, pre, in, req);
  if (a.mode != kueue::Mode::Fit || a.usage.n == 0) return "";
  return b.model.flavor_names[static_cast<size_t>(b.model.flavor_of(a.usage.fr[0]))];
}

}  // namespace

TEST_CASE("kueue flavorassigner taints: untolerated flavors are skipped", "[kueue][conformance][taints]") {
  const kueue::Toleration spot{"instance", "Equal", "spot", "NoSchedule"};
  // "single flavor, fits tainted flavor": the pods tolerate instance=spot:NoSchedule.
  CHECK(assigned({"tainted"}, 1, {spot}) == "tainted");
  // "single flavor, fits tainted flavor with toleration": the flavor's own toleration.
  CHECK(assigned({"taint_and_toleration"}, 1, {}) == "taint_and_toleration");
  // "multiple flavors, fits while skipping tainted flavor".
  CHECK(assigned({"tainted", "two"}, 3, {}) == "two");
  // Without a toleration and no other flavor: NoMatchingFlavor, no fit.
  CHECK(assigned({"tainted"}, 1, {}).empty());
  // Toleration matching: Exists on the key, a wrong value, a wrong effect.
  CHECK(assigned({"tainted"}, 1, {{"instance", "Exists", "", ""}}) == "tainted");
  CHECK(assigned({"tainted"}, 1, {{"instance", "Equal", "ondemand", "NoSchedule"}}).empty());
  CHECK(assigned({"tainted"}, 1, {{"instance", "Equal", "spot", "NoExecute"}}).empty());
}

TEST_CASE("kueue stopPolicy, admission checks and namespaceSelector in the model", "[kueue][upstream]") {
  const std::string base = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: ns, name: lq}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4}]}]}]
)";
  auto build = [&](const std::string& extra) {
    kueue::Manifests mf;
    kueue::load_manifest_text(base + extra, "m.yaml", mf);
    return kueue::build_model(mf, "s.json");
  };
  // No namespaceSelector: a null selector matches no namespace.
  auto b = build("");
  CHECK(b.lq_held.at("ns/lq") == "NamespaceNotSelected");
  CHECK(warns(b.warnings, "has no spec.namespaceSelector"));
  b = build("  namespaceSelector: {}\n");
  CHECK(b.lq_held.empty());
  CHECK(b.model.cq[b.cq_by_name.at("cq")].active);
  b = build("  namespaceSelector: {}\n  stopPolicy: Hold\n");
  CHECK_FALSE(b.model.cq[b.cq_by_name.at("cq")].active);
  // An admission check naming no AdmissionCheck makes the ClusterQueue inactive.
  b = build("  namespaceSelector: {}\n  admissionChecks: [missing]\n");
  CHECK_FALSE(b.model.cq[b.cq_by_name.at("cq")].active);
  CHECK(warns(b.warnings, "names AdmissionCheck missing, which is not in the manifests"));
}
