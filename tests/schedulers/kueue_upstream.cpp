// Kueue's and KAI's own example manifests (tests/schedulers/data/upstream, SOURCES.md there),
// read unchanged through the same path `floorsim run` uses: every file is accepted, and what
// floorsim does not model is named in a warning.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "schedulers/kai/kai_scheduler.hpp"
#include "schedulers/kueue/kueue_scheduler.hpp"
#include "schedulers/kueue/manifest.hpp"
#include "schedulers/kueue/manifest_model.hpp"
#include "sim/core/engine.hpp"
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

namespace {

// Nodes for the corpus runs: 8 GPUs, 8 CPUs and 16 GiB each.
ClusterConfig corpus_cluster() {
  ClusterConfig c = uniform_cluster("n", 4, 8);
  c.node_cpus.assign(4, 8);
  c.node_mem_bytes.assign(4, int64_t{16384} << 20);
  return c;
}

struct Ran {
  JobState state;
  SimTime ran_s;
  std::string reason;
};

// Runs `w` under `params` (type and manifests set) with invariant checks: each job's end.
std::vector<Ran> run_corpus(const Workload& w, cfg::json params, const std::shared_ptr<const cfg::ObjectSpec>& spec,
                            bool kai) {
  const ClusterConfig c = corpus_cluster();
  const cfg::json resolved = cfg::resolve(params, *spec, "/scheduler", "corpus.json");
  SchedulerContext ctx{w, c, "", "corpus.json", 1};
  auto s = kai ? kai::make_kai(resolved, ctx) : kueue::make_kueue(resolved, ctx);
  EngineConfig ec;
  ec.check_invariants = true;
  Engine e(w, c, *s, ec);
  e.run();
  std::vector<Ran> out;
  for (const auto& r : e.runs()) out.push_back({r.state, r.end_s - r.start_s, std::string(s->reason_name(r.reason))});
  return out;
}

// The cpu quota (millicores) a ClusterQueue's cohort tree holds in all: its ClusterQueues'
// nominal quotas over every flavor (what the CQ could reach by borrowing).
kueue::Qty cohort_cpu(const kueue::Model& m, kueue::NodeId cq) {
  kueue::Qty sum = 0;
  for (kueue::NodeId n = 0; n < m.tree.size(); ++n)
    if (m.tree.is_cq(n) && m.tree.root(n) == m.tree.root(cq))
      for (int f = 0; f < m.flavors; ++f) sum += m.tree.nominal(n, m.fr(f, kueue::kCpu));
  return sum;
}

bool covers(const kueue::Model& m, kueue::NodeId cq, int kind) {
  for (const auto& g : m.cq[cq].groups)
    if (std::find(g.resources.begin(), g.resources.end(), kind) != g.resources.end()) return true;
  return false;
}

}  // namespace

// Kueue's sample Job (site/static/examples/jobs/sample-job.yaml): parallelism 3, each pod
// requests cpu "1" and memory "200Mi" and sleeps 60 s: a CPU-only job of three pods. It is
// submitted to every LocalQueue of the upstream queue examples whose ClusterQueue is active,
// admits the namespace and covers cpu and memory (elsewhere Kueue itself finds no flavor), and
// must run to completion there on nodes that give CPUs and memory, unless its ClusterQueue's
// whole cohort holds less than its 3 cpu (the kueueviz demo queues: 1 + 300m + 300m), where
// Kueue too finds it no flavor (NoFit).
TEST_CASE("upstream Kueue example queues run Kueue's CPU-only sample Job", "[kueue][upstream][cpu-only]") {
  std::vector<std::vector<std::string>> sets;
  std::vector<std::string> viz;
  for (const auto& f : corpus()) {
    if (f.find("/kueue/") == std::string::npos) continue;
    if (f.find("/kueueviz/") != std::string::npos) viz.push_back(f);  // one demo cluster over several files
    else sets.push_back({f});
  }
  sets.push_back(viz);
  size_t completed = 0, no_fit = 0;
  std::vector<std::string> ran;
  for (const auto& files : sets) {
    kueue::Manifests mf;
    for (const auto& f : files) kueue::load_manifest_file(f, f, mf);
    if (mf.local_queues.empty()) continue;
    const kueue::BuiltModel b = kueue::build_model(mf, "corpus.json");
    Workload w;
    std::vector<kueue::Qty> reach;
    for (const auto& [lq, cq] : b.lq_to_cq) {
      auto n = b.cq_by_name.find(cq);
      if (n == b.cq_by_name.end() || b.lq_held.count(lq) || !b.model.cq[n->second].active ||
          !covers(b.model, n->second, kueue::kCpu) || !covers(b.model, n->second, kueue::kMemory))
        continue;
      JobSpec j;
      j.id = static_cast<int64_t>(w.jobs.size() + 1);
      j.runtime_s = j.time_limit_s = 60;
      j.gpus = 0;
      j.nodes = 3;     // parallelism 3: one pod per node
      j.cpus = 3;      // cpu "1" a pod
      j.mem_per = JobSpec::MemPer::Node;
      j.mem_mib = 200;  // memory "200Mi" a pod
      j.klass = w.strings.intern(lq);  // "namespace/name" names the LocalQueue itself
      w.jobs.push_back(j);
      reach.push_back(cohort_cpu(b.model, n->second));
    }
    if (w.jobs.empty()) continue;
    cfg::json p = {{"type", "kueue"}, {"manifests", files}};
    cfg::json fn = cfg::json::object();
    for (const auto& name : b.model.flavor_names) fn[name] = "n";  // every flavor on the test nodes
    p["flavor_nodes"] = fn;
    p["tolerations"] = {{"*", {"spot=true:NoSchedule"}}};  // the examples' taints
    const auto runs = run_corpus(w, p, kueue::kueue_params_spec(), false);
    for (size_t i = 0; i < runs.size(); ++i) {
      INFO(files.front() << ": LocalQueue " << w.strings.str(w.jobs[i].klass) << ", reason " << runs[i].reason);
      if (reach[i] < 3000) {
        CHECK(runs[i].state == JobState::Unstarted);
        CHECK(runs[i].reason == "NoFit");
        ++no_fit;
        continue;
      }
      CHECK(runs[i].state == JobState::Completed);
      CHECK(runs[i].ran_s == 60);
      ++completed;
    }
    ran.push_back(fs::path(files.front()).filename().string());
  }
  INFO("ran: " << ran.size() << " manifest sets");
  CHECK(ran.size() == 13);
  CHECK(completed == 12);
  CHECK(no_fit == 3);
}

// KAI's CPU-only quickstart pod (docs/quickstart/pods/cpu-only-pod.yaml: cpu 100m, memory
// 250M) in every leaf Queue of the upstream KAI Queue examples runs to completion.
TEST_CASE("upstream KAI example queues run KAI's CPU-only quickstart pod", "[kai][upstream][cpu-only]") {
  size_t queues = 0;
  for (const auto& f : corpus()) {
    if (f.find("/kai/") == std::string::npos) continue;
    std::vector<std::string> warnings;
    kueue::Manifests mf;
    kueue::load_manifest_file(f, f, mf);
    if (mf.kai_queues.empty()) continue;
    const kai::QueueTree t = kai::load_queues({f}, warnings);
    Workload w;
    for (int q = 0; q < t.size(); ++q) {
      if (!t.leaf(q)) continue;
      JobSpec j;
      j.id = static_cast<int64_t>(w.jobs.size() + 1);
      j.runtime_s = j.time_limit_s = 60;
      j.klass = w.strings.intern(t[q].name);
      w.jobs.push_back(j);
    }
    cfg::json p = {{"type", "kai"}, {"manifests", {f}}, {"requests_per_job", {{"cpu", "100m"}, {"memory", "250M"}}}};
    const auto runs = run_corpus(w, p, kai::kai_params_spec(), true);
    for (size_t i = 0; i < runs.size(); ++i) {
      INFO(f << ": Queue " << w.strings.str(w.jobs[i].klass) << ", reason " << runs[i].reason);
      CHECK(runs[i].state == JobState::Completed);
      CHECK(runs[i].ran_s == 60);
    }
    queues += w.jobs.size();
  }
  CHECK(queues == 5);  // leaf Queues of the four KAI files
}
