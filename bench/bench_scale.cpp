// Scale: a synthetic 10,000,000-job trace, generated in memory, replayed under fifo and
// easy_backfill on a 1,000-node x 8-GPU cluster. Prints jobs/s, events/s, peak RSS (VmHWM) and
// bytes per job (workload and engine state separately). The bar: it fits in this
// 24 GiB machine. Figures only: never a pass/fail test.
//
//   bench_scale [--jobs N] [--model fifo|easy_backfill] [--nodes K]
//
// The workload is a deterministic mix (splitmix64 draws): 1/2/4/8 GPUs on one node and 16/32-GPU
// gangs on 2/4 nodes, runtimes log-uniform 1 min .. 8 h, time limits 1-3x the runtime, arrivals
// at exponential gaps sized for ~90% offered load, so queues stay bounded and the replay measures
// the engine and the scheduler pass, not an ever-growing backlog.
#include <malloc.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "schedulers/registry.hpp"
#include "sim/core/engine.hpp"

using namespace floorsim;

namespace {

size_t heap_bytes() {
  const auto m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// kB from /proc/self/status (VmHWM = peak resident set, VmRSS = now).
long status_kb(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(key);
  while (std::getline(f, line))
    if (line.compare(0, n, key) == 0 && line.size() > n && line[n] == ':') return std::atol(line.c_str() + n + 1);
  return -1;
}

struct SplitMix {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double unit() { return (next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

Workload synthetic(size_t n, int32_t cluster_gpus) {
  Workload w;
  w.jobs.reserve(n);
  const StrId user = w.strings.intern("u");
  SplitMix rng{42};
  constexpr int32_t kGpus[] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 16, 32};
  constexpr int32_t kNodes[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4};
  const double lo = std::log(60.0), hi = std::log(8 * 3600.0);
  const double mean_runtime = (8 * 3600.0 - 60.0) / (hi - lo);  // log-uniform mean
  double mean_gpus = 0;
  for (int32_t g : kGpus) mean_gpus += g;
  mean_gpus /= std::size(kGpus);
  const double mean_gap = mean_gpus * mean_runtime / (0.9 * cluster_gpus);
  double t = 0;
  for (size_t i = 0; i < n; ++i) {
    JobSpec j;
    j.id = static_cast<int64_t>(i + 1);
    t += -std::log(1.0 - rng.unit()) * mean_gap;
    j.submit_s = std::floor(t);
    j.runtime_s = std::floor(std::exp(lo + (hi - lo) * rng.unit()));
    j.time_limit_s = std::ceil(j.runtime_s * (1 + 2 * rng.unit()));
    const size_t k = rng.next() % std::size(kGpus);
    j.gpus = kGpus[k];
    j.nodes = kNodes[k] > 1 ? kNodes[k] : 0;
    j.user = j.account = j.klass = user;
    w.jobs.push_back(j);
  }
  return w;  // submit times are non-decreasing and ids increasing: already (submit_s, id) order
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = 10'000'000;
  size_t nodes = 1000;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--jobs") && i + 1 < argc) n = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--nodes") && i + 1 < argc) nodes = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--model") && i + 1 < argc) only = argv[++i];
    else {
      std::fprintf(stderr, "usage: bench_scale [--jobs N] [--nodes K] [--model fifo|easy_backfill]\n");
      return 2;
    }
  }
  const ClusterConfig cl = uniform_cluster("gpu", nodes, 8);
  const long rss0 = status_kb("VmRSS");
  const size_t heap0 = heap_bytes();
  const auto g0 = std::chrono::steady_clock::now();
  const Workload w = synthetic(n, static_cast<int32_t>(nodes * 8));
  const double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count();
  const double jobs = static_cast<double>(n);
  const size_t workload_bytes = heap_bytes() - heap0;
  std::printf("synthetic trace: %zu jobs generated in %.1f s; %zu nodes x 8 GPUs; span %.0f days\n", n, gen_s, nodes,
              (w.jobs.back().submit_s - w.jobs.front().submit_s) / 86400);
  std::printf("workload: %.1f bytes/job (JobSpec %zu B); RSS %ld MiB (start %ld MiB)\n", workload_bytes / jobs,
              sizeof(JobSpec), status_kb("VmRSS") / 1024, rss0 / 1024);
  std::printf("%-16s %10s %12s %12s %10s %18s %16s\n", "model", "wall_s", "jobs/s", "events/s", "passes",
              "engine bytes/job", "peak RSS MiB");
  for (const char* model : {"fifo", "easy_backfill"}) {
    if (!only.empty() && only != model) continue;
    const SchedulerEntry* e = find_scheduler(model);
    SchedulerContext ctx{w, cl, ".", "", 1};
    auto sched = e->make(cfg::json{{"type", model}}, ctx);
    EngineConfig ec;
    ec.keep_timeline = false;  // a 10 M-job timeline is an output choice, not engine state
    const size_t h0 = heap_bytes();
    const auto t0 = std::chrono::steady_clock::now();
    Engine eng(w, cl, *sched, ec);
    eng.run();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const size_t engine_bytes = heap_bytes() - h0;
    size_t done = 0;
    for (const auto& r : eng.runs()) done += r.state == JobState::Completed || r.state == JobState::TimedOut;
    std::printf("%-16s %10.1f %12.0f %12.0f %10llu %18.1f %16ld\n", model, s, jobs / s, eng.stats().events / s,
                static_cast<unsigned long long>(eng.stats().passes), engine_bytes / jobs, status_kb("VmHWM") / 1024);
    if (done != n) std::printf("  note: %zu of %zu jobs ended\n", done, n);
  }
  std::printf("peak RSS (VmHWM) of the whole process: %ld MiB = %.0f bytes/job\n", status_kb("VmHWM") / 1024,
              status_kb("VmHWM") * 1024.0 / jobs);
  return 0;
}
