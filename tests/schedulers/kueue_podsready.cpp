// Kueue model: waitForPodsReady (spec §8), the namespace ResourceQuota as a ceiling (not
// capacity), admit-then-place vs place-at-admission, and admission fair sharing (spec §7).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "schedulers/kueue/core.hpp"
#include "schedulers/kueue/kueue_scheduler.hpp"
#include "sim/core/engine.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;

namespace {

std::string temp_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("floorsim-kueue-podsready-" + name);
  std::filesystem::create_directories(d);
  return d.string();
}

JobSpec job(Workload& w, int64_t id, const std::string& klass, SimTime submit, SimTime runtime, int32_t gpus) {
  JobSpec j;
  j.id = id;
  j.submit_s = submit;
  j.runtime_s = runtime;
  j.gpus = gpus;
  j.klass = w.strings.intern(klass);
  return j;
}

// Two ClusterQueues without a cohort whose nominal quotas (risk 16, training 16) add up to
// more than the 16-GPU cluster, LocalQueues in namespaces risk and training, and a
// ResourceQuota of 8 GPUs on namespace risk (namespace batch also feeds the risk queue).
const char* kYaml = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: risk}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: 16}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: training}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: 16}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: risk, namespace: risk}
spec: {clusterQueue: risk}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: training, namespace: training}
spec: {clusterQueue: training}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: risk-big, namespace: batch}
spec: {clusterQueue: risk}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: risk}
spec:
  hard:
    requests.nvidia.com/gpu: "8"
)";

std::unique_ptr<Scheduler> make(const Workload& w, const ClusterConfig& c, const std::string& dir, cfg::json params) {
  std::ofstream(dir + "/queues.yaml") << kYaml;
  params["type"] = "kueue";
  params["manifests"] = {"queues.yaml"};
  params["queue_map"] = {{"risk", "risk/risk"}, {"training", "training/training"}, {"batch", "batch/risk-big"}};
  const cfg::json resolved = cfg::resolve(params, *kueue::kueue_params_spec(), "/scheduler", "scenario.json");
  SchedulerContext ctx{w, c, dir, "scenario.json", 1};
  return kueue::make_kueue(resolved, ctx);
}

}  // namespace

TEST_CASE("kueue waitForPodsReady: timeout evicts, requeues after 60/120/240/480/960 s", "[kueue][podsready]") {
  const std::string dir = temp_dir("timeout");
  Workload w;
  w.jobs.push_back(job(w, 1, "training", 0, 10000, 8));
  w.jobs.push_back(job(w, 2, "training", 0, 100, 8));  // admitted (quota 16) but no nodes
  ClusterConfig c = uniform_cluster("gpu", 1, 8);
  SECTION("defaults: requeued forever") {
    auto s = make(w, c, dir, cfg::json::object());
    EngineConfig ec;
    ec.check_invariants = true;
    Engine e(w, c, *s, ec);
    e.run();
    // Admitted at 0, 1860, 3780, 5820, 8100 (each time 1800 s later evicted, then backoff
    // 60, 120, 240, 480, 960 s); the fifth requeue at 10860 finds the node free.
    CHECK(e.runs()[1].start_s == Approx(10860));
    const auto r = s->report(e.snapshot());
    CHECK(r["wait_for_pods_ready"]["timeout_evictions"] == 5);
    CHECK(r["wait_for_pods_ready"]["deactivated"] == 0);
  }
  SECTION("backoff_limit_count 2: deactivated after the third timeout") {
    auto s = make(w, c, dir, {{"wait_for_pods_ready", {{"backoff_limit_count", 2}}}});
    Engine e(w, c, *s, EngineConfig{});
    e.run();
    CHECK(e.runs()[1].state == JobState::Unstarted);
    CHECK(s->reason_name(e.runs()[1].reason) == "Deactivated");
    CHECK(s->report(e.snapshot())["wait_for_pods_ready"]["timeout_evictions"] == 3);
  }
  SECTION("disabled: the admitted workload waits for nodes while holding its quota") {
    auto s = make(w, c, dir, {{"wait_for_pods_ready", {{"enable", false}}}});
    Engine e(w, c, *s, EngineConfig{});
    e.run();
    CHECK(e.runs()[1].start_s == Approx(10000));
    CHECK(s->report(e.snapshot())["wait_for_pods_ready"]["timeout_evictions"] == 0);
  }
  SECTION("place_at_admission: never admitted before nodes are free, so no timeout") {
    auto s = make(w, c, dir, {{"placement", "place_at_admission"}});
    Engine e(w, c, *s, EngineConfig{});
    e.run();
    CHECK(e.runs()[1].start_s == Approx(10000));
    CHECK(s->report(e.snapshot())["wait_for_pods_ready"]["timeout_evictions"] == 0);
  }
}

TEST_CASE("kueue waitForPodsReady: an admitted workload's quota blocks its queue until the timeout", "[kueue][podsready]") {
  const std::string dir = temp_dir("quota-held");
  Workload w;
  w.jobs.push_back(job(w, 1, "batch", 0, 5000, 16));     // fills the 16-GPU cluster
  w.jobs.push_back(job(w, 2, "training", 0, 100, 16));   // admitted (quota 16), pods wait
  w.jobs.push_back(job(w, 3, "training", 10, 100, 4));   // NoFit: job 2 holds the quota
  ClusterConfig c = uniform_cluster("gpu", 2, 8);
  auto s = make(w, c, dir, cfg::json::object());
  EngineConfig ec;
  ec.check_invariants = true;
  Engine e(w, c, *s, ec);
  e.run();
  // 1800: job 2 times out, its quota goes to job 3 (admitted, waits for nodes); job 2's
  // requeue at 1860 finds no quota. 3600: job 3 times out, job 2 is admitted again; job 1
  // ends at 5000 and job 2 runs; job 3 (back at 3660) gets the quota when job 2 ends.
  CHECK(e.runs()[1].start_s == Approx(5000));
  CHECK(e.runs()[2].start_s == Approx(5100));
  CHECK(s->report(e.snapshot())["wait_for_pods_ready"]["timeout_evictions"] == 2);
}

TEST_CASE("kueue waitForPodsReady: a workload larger than the cluster stops being requeued", "[kueue][podsready]") {
  const std::string dir = temp_dir("never-fits");
  Workload w;
  w.jobs.push_back(job(w, 1, "training", 0, 100, 16));  // quota 16, cluster 8
  ClusterConfig c = uniform_cluster("gpu", 1, 8);
  auto s = make(w, c, dir, cfg::json::object());
  Engine e(w, c, *s, EngineConfig{});
  e.run();
  CHECK(e.runs()[0].state == JobState::Unstarted);
  CHECK(s->reason_name(e.runs()[0].reason) == "NeverFitsCluster");
  // Same for a workload above its namespace's ResourceQuota: its pods can never be created.
  Workload w2;
  w2.jobs.push_back(job(w2, 1, "risk", 0, 100, 12));  // ceiling 8
  ClusterConfig c2 = uniform_cluster("gpu", 2, 8);
  auto s2 = make(w2, c2, dir, cfg::json::object());
  Engine e2(w2, c2, *s2, EngineConfig{});
  e2.run();
  CHECK(s2->reason_name(e2.runs()[0].reason) == "NeverFitsCluster");
}

TEST_CASE("kueue ResourceQuota caveat: a namespace within its ceiling still waits on a full cluster", "[kueue][resourcequota]") {
  const std::string dir = temp_dir("ceiling");
  Workload w;
  w.jobs.push_back(job(w, 1, "training", 0, 1000, 16));  // fills the cluster
  w.jobs.push_back(job(w, 2, "risk", 10, 500, 8));       // within quota and ceiling: NoNodes
  w.jobs.push_back(job(w, 3, "risk", 20, 500, 8));       // within quota, over the ceiling
  ClusterConfig c = uniform_cluster("gpu", 2, 8);
  auto s = make(w, c, dir, cfg::json::object());
  EngineConfig ec;
  ec.check_invariants = true;
  Engine e(w, c, *s, ec);
  e.run();
  const auto& r = e.runs();
  CHECK(r[1].start_s == Approx(1000));
  CHECK(s->reason_name(r[1].reason) == "NoNodes");
  // Pods refused by the ceiling until job 2's pods are gone; the cluster had room from 1000.
  CHECK(r[2].start_s == Approx(1500));
  CHECK(s->reason_name(r[2].reason) == "ResourceQuotaExceeded");
  const auto rep = s->report(e.snapshot());
  CHECK(rep["namespaces"]["risk"]["hard_gpus"] == 8);
  CHECK(rep["namespaces"]["risk"]["peak_gpus"] == 8);
  CHECK(rep["namespaces"]["risk"]["jobs_waited_for_nodes_within_quota"] == 1);
  CHECK(rep["namespaces"]["risk"]["pod_creations_refused"].get<int>() >= 1);
  CHECK(rep["namespaces"]["training"]["hard_gpus"].is_null());
}

TEST_CASE("kueue admission fair sharing: LocalQueue usage decays with the half-life", "[kueue][afs]") {
  using namespace floorsim::kueue;
  Model m;
  const NodeId q = m.tree.add_cq("q");
  m.tree.set_quota(q, 0, 4);
  REQUIRE(m.tree.finalize());
  m.cq.assign(m.tree.size(), CqConfig{});
  m.cq[q].groups = {ResourceGroup{{0}, {0}}};
  m.cq[q].admission_fair_sharing = true;
  auto run = [&](bool afs, double lq1_weight) {
    CoreSettings s;
    s.afs = afs;
    s.afs_half_life_s = 3600;
    s.afs_sampling_s = 300;
    Core c(m, s, 16);
    c.set_local_queue_weights({1, lq1_weight});
    Request r4{};
    r4[0] = 4;
    std::vector<CycleRecord> rec;
    std::vector<Core::Eviction> ev;
    c.enqueue(1, q, 0, 0, 1, r4, 0);  // LocalQueue 0 uses the whole CQ for an hour
    c.pass(0, nullptr, rec, ev);
    REQUIRE(c.is_admitted(1));
    c.release(1, 3600);
    if (afs) {
      // 12 samples of usage 4 with a one-hour half-life: 4 (1 - 0.5) = 2; an hour later 1.
      CHECK(c.lq_usage(0, 3600) == Approx(2));
      CHECK(c.lq_usage(0, 7200) == Approx(1));
    }
    c.enqueue(2, q, 0, 3600, 2, r4, 0);  // older, from the heavy LocalQueue
    c.enqueue(3, q, 0, 3601, 3, r4, 1);  // newer, from the idle one
    rec.clear();
    c.pass(7200, nullptr, rec, ev);
    return c.is_admitted(2) ? 2 : c.is_admitted(3) ? 3 : 0;
  };
  CHECK(run(false, 1) == 2);  // plain order: older first
  CHECK(run(true, 1) == 3);   // AFS: the LocalQueue that consumed less first
}

TEST_CASE("kueue admission fair sharing: entry penalty and LocalQueue weight", "[kueue][afs]") {
  using namespace floorsim::kueue;
  Model m;
  const NodeId q = m.tree.add_cq("q");
  m.tree.set_quota(q, 0, 8);
  REQUIRE(m.tree.finalize());
  m.cq.assign(m.tree.size(), CqConfig{});
  m.cq[q].groups = {ResourceGroup{{0}, {0}}};
  m.cq[q].admission_fair_sharing = true;
  CoreSettings s;
  s.afs = true;
  s.afs_half_life_s = 3600;
  s.afs_sampling_s = 300;
  Core c(m, s, 16);
  c.set_local_queue_weights({1, 2});
  Request r2{};
  r2[0] = 2;
  std::vector<CycleRecord> rec;
  std::vector<Core::Eviction> ev;
  // Both LocalQueues admit 2 within one sampling interval: the penalty (2 a) counts at once,
  // halved by LocalQueue 1's weight 2.
  c.enqueue(1, q, 0, 0, 1, r2, 0);
  c.enqueue(2, q, 0, 1, 2, r2, 1);
  c.pass(10, nullptr, rec, ev);
  const double a = 1 - std::pow(0.5, 300.0 / 3600.0);
  CHECK(c.lq_usage(0, 10) == Approx(2 * a));
  CHECK(c.lq_usage(1, 10) == Approx(a));
  // Next: LocalQueue 1 (lower weighted usage) is served before an older LocalQueue 0 entry.
  c.enqueue(3, q, 0, 2, 3, r2, 0);
  c.enqueue(4, q, 0, 3, 4, r2, 1);
  rec.clear();
  c.cycle(20, nullptr, rec, ev);  // one cycle: one head per CQ
  REQUIRE(rec.size() == 1);
  CHECK(rec[0].key == 4);
}

TEST_CASE("kueue inside the idle pool: no batch workload stays parked when held capacity returns", "[kueue][idle_pool]") {
  const std::string dir = temp_dir("idle-pool");
  std::ofstream(dir + "/q.yaml") << R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: batch}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: 16}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: batch, namespace: default}
spec: {clusterQueue: batch}
)";
  for (const char* placement : {"admit_then_place", "place_at_admission"}) {
    // Two 8-GPU nodes, one held idle for intraday: the batch jobs see one node at a time.
    nlohmann::json d = nlohmann::json::parse(R"({
      "cluster": {"nodes": 2, "gpus_per_node": 8},
      "scheduler": {"type": "kueue", "manifests": ["q.yaml"], "queue_map": {"*": "default/batch"}},
      "idle_pool": {"nodes": 1, "for_class": "intraday", "interval_s": 60},
      "workload": {"jobs": [
        {"id": 1, "submit_s": 0, "runtime_s": 1000, "gpus": 8, "nodes": 1, "class": "batch", "preemptible": true},
        {"id": 2, "submit_s": 0, "runtime_s": 1000, "gpus": 8, "nodes": 1, "class": "batch", "preemptible": true},
        {"id": 3, "submit_s": 10, "runtime_s": 30, "gpus": 8, "class": "intraday"},
        {"id": 4, "submit_s": 20, "runtime_s": 500, "gpus": 4, "nodes": 1, "class": "batch", "preemptible": true},
        {"id": 5, "submit_s": 1500, "runtime_s": 30, "gpus": 8, "class": "intraday"}
      ]}
    })");
    d["scheduler"]["placement"] = placement;
    d["scheduler"]["wait_for_pods_ready"] = {{"enable", false}};
    const auto m = app::run_scenario(app::load_scenario(d, "s.json", dir)).metrics;
    INFO(placement);
    CHECK(m["jobs_by_state"]["COMPLETED"] == 5);
    CHECK(m["classes"]["intraday"]["wait_s"]["max"] == 0.0);
  }
}

TEST_CASE("kueue: a workload started earlier in the same pass can be a victim (preempted, not re-admitted)", "[kueue][engine]") {
  const std::string dir = temp_dir("same-pass-victim");
  std::ofstream(dir + "/q.yaml") << R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq1}
spec:
  namespaceSelector: {}
  cohortName: co
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: 4}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq2}
spec:
  namespaceSelector: {}
  cohortName: co
  preemption: {reclaimWithinCohort: Any}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: 4}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: cq1, namespace: default}
spec: {clusterQueue: cq1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: cq2, namespace: default}
spec: {clusterQueue: cq2}
)";
  for (const char* placement : {"admit_then_place", "place_at_admission"}) {
    Workload w;
    w.jobs.push_back(job(w, 1, "cq1", 0, 1000, 6));  // cycle 1: borrows 2
    w.jobs.push_back(job(w, 2, "cq2", 0, 1000, 1));  // cycle 1: fits
    w.jobs.push_back(job(w, 3, "cq2", 0, 1000, 3));  // cycle 2: reclaims job 1, just started
    ClusterConfig c = uniform_cluster("gpu", 1, 8);
    cfg::json p = {{"type", "kueue"}, {"manifests", {"q.yaml"}}, {"placement", placement}};
    const cfg::json resolved = cfg::resolve(p, *kueue::kueue_params_spec(), "/scheduler", "scenario.json");
    SchedulerContext ctx{w, c, dir, "scenario.json", 1};
    auto s = kueue::make_kueue(resolved, ctx);
    EngineConfig ec;
    ec.check_invariants = true;
    Engine e(w, c, *s, ec);
    e.run();
    INFO(placement);
    CHECK(e.runs()[0].preemptions == 1);
    CHECK(e.runs()[2].start_s == Approx(30));  // after job 1's grace time
    CHECK(e.runs()[0].state == JobState::Completed);
  }
}

TEST_CASE("kueue waitForPodsReady blockAdmission: nothing is admitted while an admitted workload waits", "[kueue][podsready]") {
  const std::string dir = temp_dir("block");
  Workload w;
  w.jobs.push_back(job(w, 1, "training", 0, 10000, 4));  // node 1 (4 of 8 GPUs)
  w.jobs.push_back(job(w, 2, "training", 0, 100, 12));   // admitted; 12 GPUs do not fit the 12 free
  w.jobs.push_back(job(w, 3, "risk", 10, 100, 4));       // would start at once
  w.jobs[1].nodes = 2;                                   // 6 + 6: node 1 has only 4 free
  ClusterConfig c = uniform_cluster("gpu", 2, 8);
  for (bool block : {false, true}) {
    auto s = make(w, c, dir, {{"wait_for_pods_ready", {{"block_admission", block}}}});
    Engine e(w, c, *s, EngineConfig{});
    e.run();
    INFO(block);
    // Without blocking job 3 runs at once; with it, only once job 2's timeout (1800) evicts it.
    CHECK(e.runs()[2].start_s == Approx(block ? 1800 : 10));
    if (block) CHECK(s->report(e.snapshot())["wait_for_pods_ready"]["blocked_passes"].get<int>() > 0);
  }
}

TEST_CASE("kueue flavor_nodes: a workload runs on the nodes of its assigned flavor", "[kueue][flavor]") {
  const std::string dir = temp_dir("flavors");
  std::ofstream(dir + "/q.yaml") << R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: a100}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: q}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: 8}]
    - name: a100
      resources: [{name: nvidia.com/gpu, nominalQuota: 8}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: q}
)";
  Workload w;
  w.jobs.push_back(job(w, 1, "q", 0, 100, 8));  // h100 (first flavor)
  w.jobs.push_back(job(w, 2, "q", 0, 100, 8));  // h100 quota used: a100
  // Node order: the a100 node first, so plain first fit would put job 1 there.
  ClusterConfig c = uniform_cluster("a", 1, 8);
  ClusterConfig h = uniform_cluster("h", 1, 8);
  c.node_names.push_back(h.node_names[0]);
  c.node_gpus.push_back(8);
  c.node_leaf.push_back(0);
  // Record where each job starts.
  cfg::json p = {{"type", "kueue"}, {"manifests", {"q.yaml"}}, {"queue_map", {{"*", "default/q"}}},
                 {"flavor_nodes", {{"h100", "h"}, {"a100", "a"}}}};
  const cfg::json resolved = cfg::resolve(p, *kueue::kueue_params_spec(), "/scheduler", "scenario.json");
  SchedulerContext ctx{w, c, dir, "scenario.json", 1};
  auto s = kueue::make_kueue(resolved, ctx);
  std::vector<std::pair<JobIdx, uint32_t>> starts;
  struct Spy final : public Scheduler {
    Scheduler& in;
    std::vector<std::pair<JobIdx, uint32_t>>& out;
    Spy(Scheduler& i, std::vector<std::pair<JobIdx, uint32_t>>& o) : in(i), out(o) {}
    std::string_view name() const override { return "spy"; }
    void schedule(const Snapshot& v, Decisions& d) override {
      in.schedule(v, d);
      for (const auto& it : d.items())
        if (it.kind == Decisions::Kind::Start) out.push_back({it.job, d.shares(it)[0].node});
    }
    void on_job_event(const JobEvent& ev, const Snapshot& v) override { in.on_job_event(ev, v); }
  } spy(*s, starts);
  Engine e(w, c, spy, EngineConfig{});
  e.run();
  REQUIRE(starts.size() == 2);
  CHECK(starts[0] == std::make_pair(JobIdx{0}, uint32_t{1}));  // h100 -> h001
  CHECK(starts[1] == std::make_pair(JobIdx{1}, uint32_t{0}));  // a100 -> a001
  // A prefix that names no node is an error with the JSON pointer.
  cfg::json bad = p;
  bad["flavor_nodes"] = {{"h100", "x"}};
  const cfg::json rb = cfg::resolve(bad, *kueue::kueue_params_spec(), "/scheduler", "scenario.json");
  CHECK_THROWS_WITH(kueue::make_kueue(rb, ctx), Catch::Contains("/scheduler/flavor_nodes/h100"));
}

TEST_CASE("kueue admission fair sharing from YAML: admissionScope + LocalQueues in two namespaces", "[kueue][afs]") {
  const std::string dir = temp_dir("afs-yaml");
  std::ofstream(dir + "/q.yaml") << R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: shared}
spec:
  namespaceSelector: {}
  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: 8}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: team-a}
spec: {clusterQueue: shared}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: team-b}
spec: {clusterQueue: shared}
)";
  Workload w;
  w.jobs.push_back(job(w, 1, "a", 0, 3600, 8));
  w.jobs.push_back(job(w, 2, "a", 0, 3600, 8));   // older than job 3
  w.jobs.push_back(job(w, 3, "b", 10, 3600, 8));  // team-b has used nothing
  ClusterConfig c = uniform_cluster("gpu", 1, 8);
  for (bool afs : {false, true}) {
    cfg::json p = {{"type", "kueue"}, {"manifests", {"q.yaml"}},
                   {"queue_map", {{"a", "team-a/q"}, {"b", "team-b/q"}}},
                   {"admission_fair_sharing", {{"enable", afs}, {"usage_half_life_s", 3600}}}};
    const cfg::json resolved = cfg::resolve(p, *kueue::kueue_params_spec(), "/scheduler", "scenario.json");
    SchedulerContext ctx{w, c, dir, "scenario.json", 1};
    auto s = kueue::make_kueue(resolved, ctx);
    Engine e(w, c, *s, EngineConfig{});
    e.run();
    INFO(afs);
    CHECK(e.runs()[2].start_s == Approx(afs ? 3600 : 7200));
    CHECK(e.runs()[1].start_s == Approx(afs ? 7200 : 3600));
  }
}
