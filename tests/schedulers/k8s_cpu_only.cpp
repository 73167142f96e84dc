// CPU-only jobs ("GPU optional") under the Kueue and KAI models, run through the engine with
// invariant checks (free + used = capacity for GPUs, CPUs and memory on every node): admitted
// by cpu / memory quota, placed only where the CPUs and memory are free, sharing nodes with GPU
// jobs, and freeing their CPUs when preempted.
#include <catch2/catch.hpp>

#include <fstream>

#include "schedulers/common/node_resources.hpp"
#include "schedulers/kueue/kueue_scheduler.hpp"
#include "tests/schedulers/kai_harness.hpp"

using namespace floorsim;

namespace {

JobSpec cpu_job(Workload& w, int64_t id, const std::string& klass, SimTime submit, SimTime runtime, int32_t gpus,
                int32_t cpus, int32_t mem_mib = 0, int32_t prio = 0) {
  JobSpec j = kai_test::job(w, id, klass, submit, runtime, gpus, prio);
  j.cpus = cpus;
  if (mem_mib > 0) {
    j.mem_per = JobSpec::MemPer::Node;
    j.mem_mib = mem_mib;
  }
  return j;
}

ClusterConfig cpu_cluster(size_t nodes, int32_t gpus, int32_t cpus, int64_t mem_mib) {
  ClusterConfig c = uniform_cluster("n", nodes, gpus);
  c.node_cpus.assign(nodes, cpus);
  c.node_mem_bytes.assign(nodes, mem_mib << 20);
  return c;
}

// A Kueue ClusterQueue "cq" (LocalQueue default/lq) covering `resources` with `quotas`.
std::string kueue_yaml(const std::string& resources, const std::string& quotas, const std::string& preemption = "") {
  return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n---\n"
         "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n  namespaceSelector: {}\n" +
         preemption + "  resourceGroups:\n  - coveredResources: [" + resources + "]\n    flavors:\n    - name: f\n      resources: [" +
         quotas + "]\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: default}\n"
         "spec: {clusterQueue: cq}\n";
}

const kai_test::Model kKueue{"kueue", kueue::kueue_params_spec, kueue::make_kueue};

struct KueueRun : kai_test::ModelRun {
  void go(const std::string& name, const std::string& yaml, const ClusterConfig& c, cfg::json params = cfg::json::object()) {
    cluster = c;
    params["queue_map"] = {{"*", "default/lq"}};
    run(kKueue, "kueue-cpu-" + name, yaml, std::move(params));
  }
  const JobRun& r(size_t i) const { return engine->runs()[i]; }
};

}  // namespace

TEST_CASE("node resources: CPU-only and GPU shares, rounding, fill", "[k8s][cpu-only]") {
  ClusterConfig c = cpu_cluster(3, 4, 8, 1024);
  std::vector<int32_t> cap_cpus(c.node_cpus), cap_mem(3, 1024), gpus(3, 4);
  std::vector<uint8_t> up(3, 1);
  ClusterView v;
  v.capacity_gpus = gpus;
  v.free_gpus = gpus;
  v.node_up = up;
  v.capacity_cpus = v.free_cpus = cap_cpus;
  v.capacity_mem_mib = v.free_mem_mib = cap_mem;
  placement::NodeResources res;
  res.reset(v);
  Workload w;
  std::vector<NodeShare> out;
  // A CPU-only gang of two pods: 6 CPUs and 300 MiB each, on the first two nodes.
  JobSpec two = cpu_job(w, 1, "a", 0, 1, 0, 12);
  two.nodes = 2;
  REQUIRE(res.first_fit(two, {12000, 600}, gpus, {}, out, 4));
  REQUIRE(out.size() == 2);
  CHECK((out[0].node == 0 && out[0].gpus == 0 && out[0].cpus == 6 && out[0].mem_mib == 300));
  CHECK(out[1].node == 1);
  res.take(out);
  // 100 millicores hold a whole core of the node; the third node is the only one with 3 free.
  CHECK(placement::share_cpus(100, 1, 1) == 1);
  JobSpec one = cpu_job(w, 2, "a", 0, 1, 0, 3);
  REQUIRE(res.first_fit(one, {3000, 0}, gpus, {}, out, 4));
  CHECK(out[0].node == 2);
  // A 4-GPU job asking 8 CPUs, two per GPU: no node has 8 free, and nodes 0 and 1 have 2 CPUs
  // left, so it spreads 1 + 1 + 2 GPUs.
  JobSpec g = cpu_job(w, 3, "a", 0, 1, 4, 0);
  res.take(out);  // node 2: 5 CPUs left
  REQUIRE(res.first_fit(g, {8000, 0}, gpus, {}, out, 4));
  REQUIRE(out.size() == 3);
  CHECK((out[0].node == 0 && out[0].gpus == 1 && out[0].cpus == 2));
  CHECK((out[1].node == 1 && out[1].gpus == 1 && out[1].cpus == 2));
  CHECK((out[2].node == 2 && out[2].gpus == 2 && out[2].cpus == 4));
  // Four CPUs per GPU: one GPU fits (on node 2), not four.
  CHECK_FALSE(res.first_fit(g, {16000, 0}, gpus, {}, out, 4));
  CHECK(out.empty());
  // Asking nothing besides GPUs: exactly placement::first_fit.
  REQUIRE(res.first_fit(g, {}, gpus, {}, out, 4));
  CHECK((out.size() == 1 && out[0].node == 0 && out[0].gpus == 4 && out[0].cpus == 0));
  // fill: shares placed by GPUs get CPUs by GPU share, or fail where they are not free.
  std::vector<NodeShare> tas = {{2, 4}};
  CHECK(res.fill(tas, {4000, 0}, 4));
  CHECK(tas[0].cpus == 4);
  CHECK_FALSE(res.fill(tas, {8000, 0}, 4));
}

TEST_CASE("kueue CPU-only: cpu quota admits, node CPUs place", "[kueue][k8s][cpu-only]") {
  const std::string cpu_only = kueue_yaml("cpu, memory", "{name: cpu, nominalQuota: 12}, {name: memory, nominalQuota: 64Gi}");
  SECTION("the cpu quota binds: the third job waits for quota") {
    KueueRun k;
    for (int i = 0; i < 3; ++i) k.w.jobs.push_back(cpu_job(k.w, i + 1, "etl", 0, 100, 0, 6));
    k.go("quota", cpu_only, cpu_cluster(2, 0, 64, 65536));
    CHECK(k.r(0).first_start_s == 0);
    CHECK(k.r(1).first_start_s == 0);
    CHECK(k.r(2).first_start_s == 100);
    for (int i = 0; i < 3; ++i) CHECK(k.r(i).state == JobState::Completed);
  }
  SECTION("the nodes' CPUs bind: within quota, the third job waits for a node") {
    KueueRun k;
    for (int i = 0; i < 3; ++i) k.w.jobs.push_back(cpu_job(k.w, i + 1, "etl", 0, 100, 0, 4));
    k.go("nodes", cpu_only, cpu_cluster(2, 0, 6, 65536));  // 4 + 4 > 6: one job per node
    CHECK(k.r(0).first_start_s == 0);
    CHECK(k.r(1).first_start_s == 0);
    CHECK(k.r(2).first_start_s == 100);
  }
  SECTION("the memory quota binds") {
    KueueRun k;
    for (int i = 0; i < 3; ++i) k.w.jobs.push_back(cpu_job(k.w, i + 1, "etl", 0, 100, 0, 1, 4096));
    k.go("mem", kueue_yaml("cpu, memory", "{name: cpu, nominalQuota: 12}, {name: memory, nominalQuota: 10Gi}"),
         cpu_cluster(2, 0, 64, 65536));
    CHECK(k.r(0).first_start_s == 0);
    CHECK(k.r(1).first_start_s == 0);
    CHECK(k.r(2).first_start_s == 100);  // 3 x 4 GiB > 10 GiB
  }
  SECTION("a ClusterQueue that does not cover cpu never admits a CPU-only job") {
    KueueRun k;
    k.w.jobs.push_back(cpu_job(k.w, 1, "etl", 0, 100, 0, 1));
    k.go("nocpu", kueue_yaml("nvidia.com/gpu", "{name: nvidia.com/gpu, nominalQuota: 8}"), cpu_cluster(1, 8, 8, 1024));
    CHECK(k.r(0).state == JobState::Unstarted);
    CHECK(k.sched->reason_name(k.r(0).reason) == "NoFit");
  }
}

TEST_CASE("kueue CPU-only: pods no node of their flavor can hold are deactivated (NeverFitsCluster)", "[kueue][k8s][cpu-only]") {
  KueueRun k;
  k.w.jobs.push_back(cpu_job(k.w, 1, "etl", 0, 100, 0, 6));
  ClusterConfig c = cpu_cluster(2, 0, 4, 1024);
  c.node_cpus[1] = 8;  // n002 could hold it, but flavor f is n001 only
  cfg::json p;
  p["flavor_nodes"] = {{"f", "n001"}};
  k.go("neverfits", kueue_yaml("cpu", "{name: cpu, nominalQuota: 16}"), c, p);
  CHECK(k.r(0).state == JobState::Unstarted);
  CHECK(k.sched->reason_name(k.r(0).reason) == "NeverFitsCluster");
}

TEST_CASE("kueue CPU-only and GPU jobs share a node", "[kueue][k8s][cpu-only]") {
  KueueRun k;
  k.w.jobs.push_back(cpu_job(k.w, 1, "train", 0, 100, 8, 0));  // 8 GPUs, 1 cpu per GPU (requests_per_gpu)
  k.w.jobs.push_back(cpu_job(k.w, 2, "etl", 0, 50, 0, 6));
  k.w.jobs.push_back(cpu_job(k.w, 3, "etl", 0, 50, 0, 4));  // 8 + 6 + 4 > 16: waits for job 2
  cfg::json p;
  p["requests_per_gpu"] = {{"cpu", 1}};
  k.go("mixed", kueue_yaml("nvidia.com/gpu, cpu", "{name: nvidia.com/gpu, nominalQuota: 8}, {name: cpu, nominalQuota: 64}"),
       cpu_cluster(1, 8, 16, 65536), p);
  CHECK(k.r(0).first_start_s == 0);
  CHECK(k.r(1).first_start_s == 0);
  CHECK(k.r(2).first_start_s == 50);
}

TEST_CASE("kueue CPU-only: a preempted CPU-only job frees its CPUs", "[kueue][k8s][cpu-only]") {
  KueueRun k;
  k.w.jobs.push_back(cpu_job(k.w, 1, "low", 0, 1000, 0, 8, 0, 0));
  k.w.jobs.push_back(cpu_job(k.w, 2, "high", 100, 100, 0, 8, 0, 10));
  k.go("preempt", kueue_yaml("cpu", "{name: cpu, nominalQuota: 8}", "  preemption: {withinClusterQueue: LowerPriority}\n"),
       cpu_cluster(1, 0, 8, 1024));
  CHECK(k.r(0).preemptions == 1);
  CHECK(k.r(1).first_start_s == 130);  // after the victim's 30 s eviction grace: its 8 CPUs are free
  CHECK(k.r(0).start_s == 230);         // back when the preemptor ends
  CHECK(k.r(0).state == JobState::Completed);
}

namespace {

std::string kai_queue(const std::string& cpu_quota_milli) {
  return "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: q}\nspec:\n  resources:\n"
         "    gpu: {quota: -1, limit: -1, overQuotaWeight: 1}\n    cpu: {quota: " + cpu_quota_milli +
         ", limit: " + cpu_quota_milli + ", overQuotaWeight: 1}\n    memory: {quota: -1, limit: -1, overQuotaWeight: 1}\n";
}

}  // namespace

TEST_CASE("kai CPU-only: the cpu limit binds, node CPUs place, GPU jobs share nodes", "[kai][k8s][cpu-only]") {
  SECTION("the queue's cpu limit binds") {
    kai_test::Run k;
    for (int i = 0; i < 3; ++i) k.w.jobs.push_back(cpu_job(k.w, i + 1, "etl", 0, 100, 0, 6));
    k.cpus_per_node = 64;
    k.go("kai-cpu-limit", kai_queue("12000"), {{"queue_map", {{"*", "q"}}}}, 2, 0);
    CHECK(k.started_at(0) == kai_test::Ids{1, 2});
    CHECK(k.r(3).first_start_s == 100);
  }
  SECTION("node CPUs bind; a GPU job and CPU-only jobs share the node") {
    kai_test::Run k;
    k.w.jobs.push_back(cpu_job(k.w, 1, "train", 0, 100, 8, 0));
    k.w.jobs.push_back(cpu_job(k.w, 2, "etl", 0, 50, 0, 6));
    k.w.jobs.push_back(cpu_job(k.w, 3, "etl", 0, 50, 0, 4));  // 8 + 6 + 4 > 16
    k.cpus_per_node = 16;
    cfg::json p = {{"queue_map", {{"*", "q"}}}, {"requests_per_gpu", {{"cpu", 1}}}};
    k.go("kai-cpu-mixed", kai_queue("-1"), p, 1, 8);
    CHECK(k.started_at(0) == kai_test::Ids{1, 2});
    CHECK(k.r(3).first_start_s == 50);
  }
  SECTION("a preempted CPU-only job frees its CPUs") {
    kai_test::Run k;
    k.w.jobs.push_back(cpu_job(k.w, 1, "low", 0, 1000, 0, 8, 0, 50));
    k.w.jobs.push_back(cpu_job(k.w, 2, "high", 100, 100, 0, 8, 0, 100));
    k.cpus_per_node = 8;
    cfg::json p = {{"queue_map", {{"*", "q"}}}};
    k.go("kai-cpu-preempt", kai_queue("-1"), p, 1, 0);
    CHECK(k.preempted() == kai_test::Ids{1});
    CHECK(k.r(2).first_start_s == 100);
    CHECK(k.r(1).state == JobState::Completed);
    CHECK(k.r(1).start_s == 200);
  }
}

// KAI reclaims by every resource a queue holds (pkg/scheduler/plugins/proportion/reclaimable:
// CanReclaimResources, MaintainFairShareStrategy, GuaranteeDeservedQuotaStrategy compare
// gpu, cpu and memory together; NVIDIA/KAI-Scheduler at 72de64fc8eca10fa8cca26a20156178f3edbe092):
// b takes back its deserved 4 CPUs from a, which ran over it, but not a's own deserved 4.
TEST_CASE("kai CPU-only reclaim: by cpu fair share and deserved quota", "[kai][k8s][cpu-only]") {
  kai_test::Run k;
  k.w.jobs.push_back(cpu_job(k.w, 1, "a", 0, 1000, 0, 4));
  k.w.jobs.push_back(cpu_job(k.w, 2, "a", 0, 1000, 0, 4));
  k.w.jobs.push_back(cpu_job(k.w, 3, "b", 10, 1000, 0, 4));
  k.w.jobs.push_back(cpu_job(k.w, 4, "b", 10, 1000, 0, 4));
  k.cpus_per_node = 8;
  std::string yaml;
  for (const char* q : {"a", "b"})
    yaml += std::string("apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: ") + q +
            "}\nspec:\n  resources:\n    gpu: {quota: 0, limit: -1, overQuotaWeight: 1}\n"
            "    cpu: {quota: 4000, limit: -1, overQuotaWeight: 1}\n---\n";
  k.go("kai-cpu-reclaim", yaml, cfg::json::object(), 1, 0);
  CHECK(k.preempted().size() == 1);       // one of a's jobs, not both
  CHECK(k.r(3).first_start_s == 10);      // b reclaims its deserved CPUs at once
  CHECK(k.r(4).first_start_s >= 1000);    // and no more: a keeps its own deserved 4
}

namespace {

// The load-time fit check as the scenario runs it: the model's own node-ask rule read from
// its resolved block (registry node_ask), then placement::never_fits on the idle cluster.
std::string refusal(const std::string& type, cfg::json block, const JobSpec& js, const ClusterConfig& c) {
  const SchedulerEntry* e = find_scheduler(type);
  REQUIRE(e != nullptr);
  REQUIRE(e->node_ask);
  block["type"] = type;
  block["manifests"] = {"queues.yaml"};
  const cfg::json resolved = cfg::resolve(block, *e->params(), "/scheduler", "test.json");
  return placement::never_fits(js, e->node_ask(resolved)(js), c);
}

struct FitRow {
  const char* what;
  int32_t gpus, nodes, cpus, mem_mib;  // the job (cpus count only for CPU-only jobs unless charge_cpu)
  cfg::json block;                     // scheduler block keys besides type and manifests
  const char* refused;                 // "": placed; else a fragment of the one-line reason
};

}  // namespace

TEST_CASE("load fit check: kueue and kai refuse a job no node could ever hold", "[kueue][kai][k8s][load]") {
  // Two nodes of 8 GPUs, 16 CPUs, 64 GiB.
  const ClusterConfig c = cpu_cluster(2, 8, 16, 65536);
  const std::vector<FitRow> rows = {
      {"CPU-only, fits one node", 0, 1, 16, 0, cfg::json::object(), ""},
      {"CPU-only, more CPUs than any node", 0, 1, 17, 0, cfg::json::object(), "asks for 17 CPUs and 0 MiB of memory on each of 1 node(s); 0 node(s)"},
      {"CPU-only, requests_per_job cpu on top", 0, 1, 10, 0, {{"requests_per_job", {{"cpu", 8}}}}, "asks for 18 CPUs"},
      {"CPU-only gang of 3 pods on 2 nodes", 0, 3, 3, 0, cfg::json::object(), "on each of 3 node(s); 2 node(s)"},
      {"GPU job, per-job cpu fits one node", 8, 1, 0, 0, {{"requests_per_job", {{"cpu", 16}}}}, ""},
      {"GPU job, per-job cpu more than a node", 8, 1, 0, 0, {{"requests_per_job", {{"cpu", 17}}}}, "asks for 17 CPUs and 0 MiB of memory with its 8 GPUs on 1 node(s)"},
      {"GPU job over 2 nodes, split by GPUs fits", 16, 2, 0, 0, {{"requests_per_job", {{"cpu", 32}}}}, ""},
      {"GPU job over 2 nodes, per-GPU cpu too much", 16, 2, 0, 0, {{"requests_per_gpu", {{"cpu", 3}}}}, "(24 CPUs and 0 MiB with 8 GPUs on one node)"},
      {"GPU job, memory per node too much", 4, 1, 0, 70000, cfg::json::object(), "the largest node: 8 GPUs, 16 CPUs, 65536 MiB"},
      // Memory is compared in MiB (bytes rounded up), not through KAI's quota unit (MB), whose
      // double rounding once made 65536 MiB ask 65537.
      {"GPU job asking a node's whole memory", 8, 1, 0, 65536, cfg::json::object(), ""},
      {"GPU job asking one MiB more", 8, 1, 0, 65537, cfg::json::object(), "the largest node: 8 GPUs, 16 CPUs, 65536 MiB"},
      {"GPU job, per-job memory 64Gi", 8, 1, 0, 0, {{"requests_per_job", {{"memory", "64Gi"}}}}, ""},
      {"GPU job, per-job memory 65537Mi", 8, 1, 0, 0, {{"requests_per_job", {{"memory", "65537Mi"}}}}, "65537 MiB"},
      {"GPU job of any node count spreads its memory", 16, 0, 0, 0, {{"requests_per_job", {{"memory", "120Gi"}}}}, ""},
  };
  for (const std::string type : {"kueue", "kai"})
    for (const auto& row : rows) {
      CAPTURE(type, row.what);
      Workload w;
      JobSpec js = cpu_job(w, 7, "a", 0, 10, row.gpus, row.cpus, row.mem_mib);
      js.nodes = row.nodes;
      const std::string why = refusal(type, row.block, js, c);
      if (std::string(row.refused).empty()) {
        CHECK(why.empty());
      } else {
        CHECK_THAT(why, Catch::Contains(row.refused) && Catch::StartsWith("job 7 "));
      }
    }
}

TEST_CASE("load fit check: kai leaves a fractional job packed by GPU share unchecked", "[kai][k8s][load]") {
  const ClusterConfig c = cpu_cluster(1, 1, 4, 1024);
  Workload w;
  JobSpec js = cpu_job(w, 1, "a", 0, 10, 1, 0, 0);
  js.gpu_milli = 500;
  const cfg::json ask = {{"requests_per_job", {{"cpu", 8}}}};
  cfg::json shared = ask;
  shared["gpu_sharing"] = true;
  CHECK(refusal("kai", shared, js, c).empty());  // packed: placed by GPU share only
  CHECK_FALSE(refusal("kai", ask, js, c).empty());  // sharing off: a whole GPU, and its 8 CPUs
  CHECK_FALSE(refusal("kueue", ask, js, c).empty());
}
