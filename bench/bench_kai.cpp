// KAI-model replay speed: 100,000 synthetic workloads, 3 leaf queues (pricing, risk, training)
// under one parent queue with quotas, over-quota weights and a limit, on 64 nodes x 8 GPUs,
// through the real engine. Pricing jobs ask for a quarter or half of a GPU and are packed onto
// shared GPUs. Prints workloads/s (same pattern and load as bench_kueue).
// Usage: bench_kai [jobs] [seed] [--no-fractions]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>

#include "schedulers/kai/kai_scheduler.hpp"
#include "sim/core/engine.hpp"

using namespace floorsim;

static const char* kYaml = R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: quant}
spec:
  resources:
    gpu: {quota: 512, overQuotaWeight: 1, limit: -1}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: pricing}
spec:
  parentQueue: quant
  priority: 200
  resources:
    gpu: {quota: 128, overQuotaWeight: 1, limit: 256}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: risk}
spec:
  parentQueue: quant
  priority: 150
  resources:
    gpu: {quota: 192, overQuotaWeight: 2, limit: -1}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: training}
spec:
  parentQueue: quant
  resources:
    gpu: {quota: 192, overQuotaWeight: 1, limit: -1}
)";

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
  const uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const bool fractions = !(argc > 3 && std::strcmp(argv[3], "--no-fractions") == 0);
  const auto dir = std::filesystem::temp_directory_path() / "floorsim-bench-kai";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "queues.yaml") << kYaml;

  Workload w;
  const StrId cls[3] = {w.strings.intern("pricing"), w.strings.intern("risk"), w.strings.intern("training")};
  const int32_t prio[3] = {125, 100, 50};  // KAI classes inference, build, train
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, 2), size(0, 3);
  std::exponential_distribution<double> gap(1.0 / 5.0), run(1.0 / 600.0);
  SimTime t = 0;
  size_t frac = 0;
  for (size_t i = 0; i < n; ++i) {
    JobSpec j;
    j.id = static_cast<int64_t>(i + 1);
    t += gap(rng);
    j.submit_s = t;
    j.runtime_s = 1 + run(rng);
    j.time_limit_s = j.runtime_s;
    const int c = pick(rng);
    j.klass = cls[c];
    j.priority = prio[c];
    const int s = size(rng);
    j.gpus = 1 << s;
    if (fractions && c == 0 && s < 2) {  // half of pricing: 0.25 or 0.5 of one GPU
      j.gpus = 1;
      j.gpu_milli = s == 0 ? 250 : 500;
      ++frac;
    }
    w.jobs.push_back(j);
  }
  ClusterConfig cluster = uniform_cluster("gpu", 64, 8);
  cfg::json p = {{"type", "kai"}, {"manifests", {"queues.yaml"}}, {"gpu_sharing", true}};
  const cfg::json resolved = cfg::resolve(p, *kai::kai_params_spec(), "/scheduler", "bench");
  SchedulerContext ctx{w, cluster, dir.string(), "bench", seed};
  auto sched = kai::make_kai(resolved, ctx);
  EngineConfig ec;
  ec.keep_timeline = false;
  Engine e(w, cluster, *sched, ec);
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  e.run();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;  // robust on a loaded machine
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t done = 0;
  for (const auto& r : e.runs()) done += r.state == JobState::Completed;
  std::printf("bench_kai: %zu workloads (%zu completed, %zu fractional), 3 leaf queues under one parent, 512 GPUs\n", n,
              done, frac);
  std::printf("  passes %llu, starts %llu, preemptions %llu\n", (unsigned long long)e.stats().passes,
              (unsigned long long)e.stats().starts, (unsigned long long)e.stats().preemptions);
  const auto rep = sched->report(e.snapshot());
  std::printf("  actions %s\n  gpu_sharing %s\n", rep["actions"].dump().c_str(), rep["gpu_sharing"].dump().c_str());
  std::printf("  replay %.3f s wall, %.0f workloads/s; %.3f s CPU, %.0f workloads/s per core\n", secs, n / secs, cpu,
              n / cpu);
  return 0;
}
