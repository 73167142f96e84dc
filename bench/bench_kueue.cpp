// Kueue-model replay speed: 100,000 synthetic workloads, 3 ClusterQueues (pricing, risk,
// training) in one cohort with borrowing and reclaim, on 64 nodes x 8 GPUs, through the real
// engine. Prints workloads/s (target: >= 100,000 on one core).
// Usage: bench_kueue [jobs] [seed] [admit_then_place|place_at_admission]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "schedulers/kueue/kueue_scheduler.hpp"
#include "sim/core/engine.hpp"

using namespace floorsim;

static const char* kYaml = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: pricing}
spec:
  namespaceSelector: {}
  cohortName: quant
  preemption: {reclaimWithinCohort: Any, withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: 128, lendingLimit: 64}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: risk}
spec:
  namespaceSelector: {}
  cohortName: quant
  preemption: {reclaimWithinCohort: LowerPriority}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: 192, borrowingLimit: 64}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: training}
spec:
  namespaceSelector: {}
  cohortName: quant
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: 192, borrowingLimit: 192}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: pricing, namespace: default}
spec: {clusterQueue: pricing}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: risk, namespace: default}
spec: {clusterQueue: risk}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: training, namespace: default}
spec: {clusterQueue: training}
)";

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
  const uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const auto dir = std::filesystem::temp_directory_path() / "floorsim-bench-kueue";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "queues.yaml") << kYaml;

  Workload w;
  const StrId cls[3] = {w.strings.intern("pricing"), w.strings.intern("risk"), w.strings.intern("training")};
  const int32_t prio[3] = {200, 100, 0};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, 2), size(0, 3);
  std::exponential_distribution<double> gap(1.0 / 5.0), run(1.0 / 600.0);
  SimTime t = 0;
  for (size_t i = 0; i < n; ++i) {
    JobSpec j;
    j.id = static_cast<int64_t>(i + 1);
    t += gap(rng);
    j.submit_s = t;
    j.runtime_s = 1 + run(rng);
    const int c = pick(rng);
    j.klass = cls[c];
    j.priority = prio[c];
    j.gpus = 1 << size(rng);
    w.jobs.push_back(j);
  }
  ClusterConfig cluster = uniform_cluster("gpu", 64, 8);
  cfg::json p = {{"type", "kueue"}, {"manifests", {"queues.yaml"}}};
  if (argc > 3) p["placement"] = argv[3];
  const cfg::json resolved = cfg::resolve(p, *kueue::kueue_params_spec(), "/scheduler", "bench");
  SchedulerContext ctx{w, cluster, dir.string(), "bench", seed};
  auto sched = kueue::make_kueue(resolved, ctx);
  EngineConfig ec;
  ec.keep_timeline = false;
  Engine e(w, cluster, *sched, ec);
  const auto t0 = std::chrono::steady_clock::now();
  e.run();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t done = 0, by_state[8] = {};
  for (const auto& r : e.runs()) {
    done += r.state == JobState::Completed;
    ++by_state[static_cast<int>(r.state) & 7];
  }
  for (int k = 0; k < 8; ++k)
    if (by_state[k]) std::printf("  state %s: %zu\n", std::string(to_string(static_cast<JobState>(k))).c_str(), by_state[k]);
  std::printf("bench_kueue: %zu workloads (%zu completed), 3 ClusterQueues in one cohort, 512 GPUs\n", n, done);
  std::printf("  passes %llu, starts %llu, preemptions %llu\n", (unsigned long long)e.stats().passes,
              (unsigned long long)e.stats().starts, (unsigned long long)e.stats().preemptions);
  std::printf("  %s\n", sched->report(e.snapshot()).dump().c_str());
  std::printf("  replay %.3f s, %.0f workloads/s\n", s, n / s);
  return 0;
}
