// Replays KTH-SP2 (100 nodes x 1 GPU) under the slurm model (multifactor priority with age,
// fair-share and job size, main loop + backfill) and under easy_backfill, and prints jobs/s and
// their ratio. Target (issue 3): slurm within 3x of easy_backfill. Figures only, never asserted.
//
//   bench_slurm [TRACE.swf] [--reps N] [--max-jobs N] [--only slurm|easy_backfill] [--shape NxG]
// --only runs one model (for instruction counts under valgrind --tool=callgrind); --shape
// replays on N nodes of G GPUs (default 100x1, KTH's own; 13x8 is a quant cluster's shape).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "schedulers/registry.hpp"
#include "sim/core/engine.hpp"
#include "traces/trace.hpp"

using namespace floorsim;

int main(int argc, char** argv) {
  std::string path = std::string(FLOORSIM_SOURCE_DIR) + "/traces/data/pwa/KTH-SP2-1996-2.1-cln.swf.gz";
  int reps = 3;
  size_t max_jobs = 0;
  std::string only;
  int nodes = 100, gpus = 1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--max-jobs") && i + 1 < argc) max_jobs = static_cast<size_t>(std::atoll(argv[++i]));
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--shape") && i + 1 < argc) {
      if (std::sscanf(argv[++i], "%dx%d", &nodes, &gpus) != 2 || nodes < 1 || gpus < 1) {
        std::fprintf(stderr, "bench_slurm: --shape %s: expected NODESxGPUS, e.g. 13x8\n", argv[i]);
        return 2;
      }
    }
    else path = argv[i];
  }
  traces::ReadOptions ro;
  ro.max_jobs = max_jobs;
  auto data = traces::read_trace(path, traces::Format::Swf, ro);
  const Workload& w = data.workload;
  const ClusterConfig cl = uniform_cluster("sp", nodes, gpus);
  const double jobs = static_cast<double>(w.jobs.size());
  std::printf("trace %s: %zu jobs, %d nodes x %d GPU, best of %d\n", path.c_str(), w.jobs.size(), nodes, gpus, reps);
  std::printf("%-16s %12s %12s %10s %14s\n", "model", "jobs/s", "events/s", "passes", "mean_wait_s");
  const cfg::json slurm_block = {{"type", "slurm"},
                                 {"priority_type", "multifactor"},
                                 {"priority_weight_age", 1000},
                                 {"priority_weight_fairshare", 10000},
                                 {"priority_weight_jobsize", 1000}};
  double rate[2] = {0, 0};
  int k = 0;
  for (const auto& block : {cfg::json{{"type", "easy_backfill"}}, slurm_block}) {
    const std::string type = block["type"];
    if (!only.empty() && only != type) {
      ++k;
      continue;
    }
    const SchedulerEntry* e = find_scheduler(type);
    const cfg::json resolved = cfg::resolve(block, *e->params(), "/scheduler", "bench");
    SchedulerContext ctx{w, cl, ".", "bench", 1};
    double best = 1e30, wait = 0;
    EngineStats st;
    for (int r = 0; r < reps; ++r) {
      auto sched = e->make(resolved, ctx);
      const auto t0 = std::chrono::steady_clock::now();
      EngineConfig ec;
      ec.keep_timeline = false;
      Engine eng(w, cl, *sched, ec);
      eng.run();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (s < best) {
        best = s;
        st = eng.stats();
        double tot = 0;
        for (size_t j = 0; j < w.jobs.size(); ++j)
          if (eng.runs()[j].first_start_s >= 0) tot += eng.runs()[j].first_start_s - w.jobs[j].submit_s;
        wait = tot / jobs;
      }
    }
    rate[k++] = jobs / best;
    std::printf("%-16s %12.0f %12.0f %10llu %14.1f\n", type.c_str(), jobs / best, st.events / best,
                static_cast<unsigned long long>(st.passes), wait);
  }
  if (only.empty()) std::printf("slurm / easy_backfill speed: %.2fx slower (target <= 3x)\n", rate[0] / rate[1]);
  return 0;
}
