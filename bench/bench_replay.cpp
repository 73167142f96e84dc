// Replays KTH-SP2 (28,476 jobs, 100 nodes) under each baseline model and prints jobs/s,
// events/s and memory per job. Targets (issue 2): fifo >= 1,000,000 jobs/s and easy_backfill
// >= 200,000 jobs/s on one core; < 300 bytes per job. Figures only: never a pass/fail test.
//
//   bench_replay [TRACE.swf] [--reps N] [--scale K] [--model M]
//   (--scale K replicates the trace K times; --model runs one model only)
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "schedulers/registry.hpp"
#include "sim/core/engine.hpp"
#include "traces/trace.hpp"

using namespace floorsim;

namespace {

size_t heap_bytes() {
  const auto m = mallinfo2();
  return m.uordblks + m.hblkhd;  // small blocks + mmapped large blocks
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = std::string(FLOORSIM_SOURCE_DIR) + "/traces/data/pwa/KTH-SP2-1996-2.1-cln.swf.gz";
  int reps = 5, scale = 1;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--scale") && i + 1 < argc) scale = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--model") && i + 1 < argc) only = argv[++i];
    else path = argv[i];
  }
  const size_t heap0 = heap_bytes();
  auto data = traces::read_trace(path, traces::Format::Swf, {});
  Workload& w = data.workload;
  if (scale > 1) {  // back-to-back copies, shifted in time, with fresh ids
    const size_t n = w.jobs.size();
    const SimTime span = w.jobs.back().submit_s - w.jobs.front().submit_s + 1;
    for (int k = 1; k < scale; ++k)
      for (size_t i = 0; i < n; ++i) {
        JobSpec j = w.jobs[i];
        j.submit_s += span * k;
        j.id += static_cast<int64_t>(n) * k * 10;
        w.jobs.push_back(j);
      }
  }
  w.jobs.shrink_to_fit();
  const size_t workload_bytes = heap_bytes() - heap0;
  const ClusterConfig cl = uniform_cluster("sp", 100, 1);
  const double jobs = static_cast<double>(w.jobs.size());
  std::printf("trace %s: %zu jobs, 100 nodes x 1 GPU, %d reps (best of)\n", path.c_str(), w.jobs.size(), reps);
  std::printf("workload: %.1f bytes/job (JobSpec %zu bytes + names)\n", workload_bytes / jobs, sizeof(JobSpec));
  std::printf("%-24s %14s %14s %12s %16s\n", "model", "jobs/s", "events/s", "passes", "engine bytes/job");
  for (const char* model : {"fifo", "easy_backfill", "conservative_backfill"}) {
    if (!only.empty() && only != model) continue;
    const SchedulerEntry* e = find_scheduler(model);
    SchedulerContext ctx{w, cl, ".", "", 1};
    double best = 1e30;
    EngineStats st;
    size_t engine_bytes = 0;
    for (int r = 0; r < reps; ++r) {
      auto sched = e->make(cfg::json{{"type", model}}, ctx);
      const size_t h0 = heap_bytes();
      const auto t0 = std::chrono::steady_clock::now();
      EngineConfig ec;
      ec.enforce_time_limit = false;
      ec.keep_timeline = false;
      Engine eng(w, cl, *sched, ec);
      eng.run();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      engine_bytes = heap_bytes() - h0;
      if (s < best) best = s, st = eng.stats();
    }
    std::printf("%-24s %14.0f %14.0f %12llu %16.1f\n", model, jobs / best, st.events / best,
                static_cast<unsigned long long>(st.passes), engine_bytes / jobs);
  }
  std::printf("memory per job (workload + engine state): see the two bytes/job columns; sum them\n");
  return 0;
}
