// Sweep throughput on the default quant night (issue 8 target: >= 50 scenarios/s on 2 cores).
// N points (default 40) that differ only in the workload seed, so every point is the default
// night's size; run with 1 and 2 threads through run_sweep (the same code as `floorsim sweep`,
// writing results.jsonl/.csv to a temporary directory). Prints wall-clock and CPU-time rates
// (CPU time is the figure that survives a loaded machine); asserts nothing.
//   bench_sweep [N]
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "sim/app/sweep.hpp"

using namespace floorsim;
namespace sw = floorsim::app::sweep;

namespace {

double cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 40;
  nlohmann::json seeds = nlohmann::json::array();
  for (int i = 0; i < n; ++i) seeds.push_back(100 + i);
  const nlohmann::json doc = {{"name", "bench"}, {"base", "rehearse"},
                              {"axes", {{{"name", "seed"}, {"pointer", "/seed"}, {"values", seeds}}}}};
  using clk = std::chrono::steady_clock;
  auto t0 = clk::now();
  double c0 = cpu_s();
  const sw::SweepSpec s = sw::load_sweep(doc, "<bench>", ".");
  const double load_wall = std::chrono::duration<double>(clk::now() - t0).count(), load_cpu = cpu_s() - c0;
  std::printf("sweep of the default quant night, %d points (seeds), validation of every point first: %.3f s wall, %.3f s CPU\n", n,
              load_wall, load_cpu);
  const auto tmp = std::filesystem::temp_directory_path() / ("floorsim_bench_sweep_" + std::to_string(::getpid()));
  double rate1 = 0;
  for (unsigned threads : {1u, 2u}) {
    std::filesystem::remove_all(tmp);
    sw::RunOptions o;
    o.threads = threads;
    c0 = cpu_s();
    t0 = clk::now();
    const sw::Summary sum = sw::run_sweep(s, floorsim::io::check_output({tmp.string(), floorsim::io::OutKind::Directory, "sweep", false, {}}), o);
    const double wall = std::chrono::duration<double>(clk::now() - t0).count(), cpu = cpu_s() - c0;
    const double rate = sum.ran / wall;
    if (threads == 1) rate1 = rate;
    std::printf("threads %u: %zu scenarios in %.3f s wall = %.1f scenarios/s (%.1f incl. validation); %.3f s CPU = %.1f scenarios per CPU-s; "
                "speed-up %.2f\n",
                threads, sum.ran, wall, rate, sum.ran / (wall + load_wall), cpu, sum.ran / cpu, rate / rate1);
  }
  std::filesystem::remove_all(tmp);
  return 0;
}
