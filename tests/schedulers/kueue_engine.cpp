// Engine-level tests of the Kueue model: a hand-built workload on uniform_cluster, manifests
// from YAML text, run through floorsim::Engine; checks admissions, evictions with the grace
// time (quota kept until the victim stops), requeues, and the ResourceQuota caveat.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "schedulers/kueue/kueue_scheduler.hpp"
#include "schedulers/kueue/manifest.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;

namespace {

std::string temp_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("floorsim-kueue-test-" + name);
  std::filesystem::create_directories(d);
  return d.string();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
}

JobSpec job(Workload& w, int64_t id, const std::string& klass, SimTime submit, SimTime runtime, int32_t gpus,
            int32_t prio = 0) {
  JobSpec j;
  j.id = id;
  j.submit_s = submit;
  j.runtime_s = runtime;
  j.gpus = gpus;
  j.priority = prio;
  j.klass = w.strings.intern(klass);
  return j;
}

const char* kCohortYaml = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: h100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: training
spec:
  namespaceSelector: {}
  cohortName: quant
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: h100
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 4
        borrowingLimit: 4
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: risk
spec:
  namespaceSelector: {}
  cohortName: quant
  preemption:
    reclaimWithinCohort: Any
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: h100
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 4
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: default
spec:
  clusterQueue: training
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: risk
  namespace: default
spec:
  clusterQueue: risk
)";

std::unique_ptr<Scheduler> make(const Workload& w, const ClusterConfig& c, const std::string& dir,
                                cfg::json params = cfg::json::object()) {
  params["type"] = "kueue";
  if (!params.contains("manifests")) params["manifests"] = {"queues.yaml"};
  const cfg::json resolved = cfg::resolve(params, *kueue::kueue_params_spec(), "/scheduler", "scenario.json");
  SchedulerContext ctx{w, c, dir, "scenario.json", 1};
  return kueue::make_kueue(resolved, ctx);
}

}  // namespace

TEST_CASE("kueue engine: reclaim evicts the borrower, which keeps its GPUs for the grace time", "[kueue][engine]") {
  const std::string dir = temp_dir("reclaim");
  write(dir + "/queues.yaml", kCohortYaml);
  Workload w;
  w.jobs.push_back(job(w, 1, "training", 0, 1000, 4));
  w.jobs.push_back(job(w, 2, "training", 1, 1000, 4));  // borrows risk's idle quota
  w.jobs.push_back(job(w, 3, "risk", 100, 200, 4));     // reclaims it
  ClusterConfig c = uniform_cluster("gpu", 2, 4);
  auto s = make(w, c, dir);
  EngineConfig ec;
  ec.check_invariants = true;
  Engine e(w, c, *s, ec);
  e.run();
  const auto& r = e.runs();
  CHECK(r[0].start_s == 0);
  CHECK(r[1].first_start_s == 1);
  CHECK(r[1].preemptions == 1);
  CHECK(r[1].requeues == 1);
  CHECK(r[0].preemptions == 0);
  CHECK(r[2].start_s == Approx(130));   // after the victim's 30 s grace
  // Requeued at 130 with its original timestamp; back when the risk job ends and frees the
  // borrowed quota (training: 4 nominal + 4 borrowed again).
  CHECK(r[1].start_s == Approx(330));
  CHECK(r[2].end_s == Approx(330));
  CHECK(s->report(e.snapshot())["evictions_by_reason"]["InCohortReclamation"] == 1);
}

TEST_CASE("kueue engine: ResourceQuota caveat: within quota but the cluster is full", "[kueue][engine]") {
  const std::string dir = temp_dir("caveat");
  write(dir + "/queues.yaml", R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: default
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 16}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: team, namespace: default}
spec: {clusterQueue: team}
)");
  Workload w;
  w.jobs.push_back(job(w, 1, "team", 0, 100, 8));
  w.jobs.push_back(job(w, 2, "team", 0, 100, 8));  // quota says yes, nodes say no
  ClusterConfig c = uniform_cluster("gpu", 2, 4);
  auto s = make(w, c, dir);
  Engine e(w, c, *s, EngineConfig{});
  e.run();
  CHECK(e.runs()[0].start_s == 0);
  CHECK(e.runs()[1].start_s == Approx(100));
  CHECK(s->reason_name(e.runs()[1].reason) == "NoNodes");
}

TEST_CASE("kueue engine: unmapped jobs stay pending with NoLocalQueue", "[kueue][engine]") {
  const std::string dir = temp_dir("nolq");
  write(dir + "/queues.yaml", kCohortYaml);
  Workload w;
  w.jobs.push_back(job(w, 1, "backtest", 0, 10, 1));
  ClusterConfig c = uniform_cluster("gpu", 1, 4);
  auto s = make(w, c, dir);
  Engine e(w, c, *s, EngineConfig{});
  e.run();
  CHECK(e.runs()[0].state == JobState::Unstarted);
  CHECK(s->reason_name(e.runs()[0].reason) == "NoLocalQueue");
}

TEST_CASE("kueue manifests: unknown fields warn, wrong types fail with file and line", "[kueue][yaml]") {
  kueue::Manifests m;
  kueue::load_manifest_text(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: a
spec:
  namespaceSelector: {}
  colour: blue
  resourceGroups: []
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: high
value: 1000
)", "q.yaml", m);
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0] == "q.yaml:7: unknown field spec.colour (ignored)");
  REQUIRE(m.priority_classes.size() == 1);
  CHECK(m.priority_classes[0].value == 1000);
  kueue::Manifests bad;
  try {
    kueue::load_manifest_text(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: a
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: lots
)", "bad.yaml", bad);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "bad.yaml:13: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota is 'lots'; expected a non-negative "
          "quantity (e.g. 8, 500m, 64Gi)");
  }
  double q;
  CHECK(kueue::parse_quantity("500m", q));
  CHECK(q == Approx(0.5));
  CHECK(kueue::parse_quantity("64Gi", q));
  CHECK(q == Approx(64.0 * 1073741824.0));
  CHECK_FALSE(kueue::parse_quantity("12x", q));
}

// YAML 1.2 wants unique keys; yaml-cpp keeps the first value and drops the later one silently,
// so an edited manifest would be simulated with the value its author replaced.
TEST_CASE("kueue manifests: a key twice in one mapping is an error naming both lines", "[kueue][yaml]") {
  auto error_of = [](const std::string& text) {
    kueue::Manifests m;
    try {
      kueue::load_manifest_text(text, "dup.yaml", m);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: a\nspec:\n  resourceGroups:\n"
                 "  - coveredResources: [cpu]\n    flavors:\n    - name: default\n      resources:\n"
                 "      - name: cpu\n        nominalQuota: 4\n        nominalQuota: 32\n") ==
        "dup.yaml:13: key \"nominalQuota\" appears twice in this mapping (first at line 12); expected each key once");
  CHECK(error_of("kind: ResourceFlavor\nmetadata: {name: h100, 'name': a100}\n").rfind("dup.yaml:2: key \"name\" appears twice", 0) == 0);
  CHECK(error_of("---\nkind: ResourceFlavor\nkind: ClusterQueue\n").rfind("dup.yaml:3: key \"kind\"", 0) == 0);
  // The same key in different mappings, or in the next document, is fine.
  CHECK(error_of("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: a}\n---\n"
                 "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: b}\n") == "");
}

TEST_CASE("kueue engine: partial admission starts a job on fewer GPUs, its runtime scaled", "[kueue][engine][podsets]") {
  const std::string dir = temp_dir("partial");
  write(dir + "/queues.yaml", kCohortYaml);  // training: 4 nominal + 4 borrowable from risk
  for (const std::string runtime : {"scaled", "unchanged"}) {
    Workload w;
    w.jobs.push_back(job(w, 1, "training", 0, 1000, 4));
    w.jobs.push_back(job(w, 2, "training", 0, 1000, 8));  // 4 left in quota: 4 of its 8 pods
    ClusterConfig c = uniform_cluster("gpu", 4, 4);
    cfg::json p = cfg::json::object();
    p["job_annotations"] = {{"training", {{"kueue.x-k8s.io/job-min-parallelism", "2"}}}};
    p["partial_admission_runtime"] = runtime;
    auto s = make(w, c, dir, p);
    EngineConfig ec;
    ec.check_invariants = true;
    Engine e(w, c, *s, ec);
    e.run();
    const auto& r = e.runs();
    CHECK(r[1].start_s == 0);
    CHECK(e.held_gpus(1) == 4);
    // Work conserved: 8 GPUs x 1000 s of work on 4 GPUs takes 2000 s (scaled).
    CHECK(r[1].end_s == Approx(runtime == "scaled" ? 2000 : 1000));
    CHECK(r[1].alloc_gpu_s == Approx(4 * r[1].end_s));
    CHECK(r[1].state == JobState::Completed);
    const auto rep = s->report(e.snapshot());
    CHECK(rep["partial_admissions"] == 1);
    std::vector<std::string> cols = s->extra_columns(), vals;
    s->extra_values(1, vals);
    REQUIRE(cols.back() == "admitted_gpus");
    CHECK(vals.back() == "4");
  }
}
