// Figures for kernels/: batch contention scenarios/s (k=8 fat-tree, 128 flows) on 1 and 2 OMP
// threads and on the GPU when built with FLOORSIM_CUDA=ON and a device is present, the GPU/CPU
// ratio, bytes moved per scenario against memory bandwidth, GPU-vs-CPU max difference, job
// runtime pairs/s and VaR paths/s. Prints; never asserts timing.
// usage: bench_kernels [scenarios_cpu=4096] [scenarios_gpu=262144]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

#include "kernels/contention.hpp"
#include "kernels/fat_tree_gen.hpp"
#include "kernels/job_runtime.hpp"
#include "kernels/var_mc.hpp"

using namespace floorsim::kernels;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// B scenarios of a k=8 fat-tree (128 hosts, one flow per host: a random permutation, D-mod-K
// with failover), each a fabric variant: taper per tier from {1, 4/3, 2, 3}, 0-2 failed uplinks.
// equal_sizes: every flow 1 GB (a collective step: few distinct departures); else 0.1-2 GB.
ContentionBatch k8_batch(uint32_t B, bool equal_sizes, uint64_t seed) {
  ContentionBatch batch;
  std::mt19937_64 rng(seed);
  const double tapers[] = {1.0, 4.0 / 3.0, 2.0, 3.0};
  for (uint32_t b = 0; b < B; ++b) {
    gen::FatTreeSpec spec;
    spec.k = 8;
    spec.edge_taper = tapers[rng() % 4];
    spec.agg_taper = tapers[rng() % 4];
    const uint32_t H = gen::fat_tree_hosts(8), L = gen::fat_tree_links(8);
    for (uint32_t i = 0, n = rng() % 3; i < n; ++i) spec.failed_links.push_back(2 * H + rng() % (L - 2 * H));
    batch.add(gen::random_fat_tree_scenario(spec, 128, gen::Routing::DModK, equal_sizes ? 1e9 : 1e8,
                                            equal_sizes ? 1e9 : 2e9, 0.0, rng()));
  }
  return batch;
}

// Repeats a batch until it has at least B scenarios (the GPU wants far more than the CPU).
[[maybe_unused]] ContentionBatch replicate(const ContentionBatch& in, size_t B) {  // GPU runs only
  ContentionBatch out;
  out.tiers = in.tiers;
  while (out.scenarios() < B) {
    const uint32_t lbase = out.link_offsets.back(), fbase = out.flow_offsets.back(),
                   pbase = out.flow_link_offsets.back();
    for (size_t b = 1; b <= in.scenarios(); ++b) {
      out.link_offsets.push_back(lbase + in.link_offsets[b]);
      out.flow_offsets.push_back(fbase + in.flow_offsets[b]);
    }
    for (size_t f = 1; f < in.flow_link_offsets.size(); ++f) out.flow_link_offsets.push_back(pbase + in.flow_link_offsets[f]);
    auto app = [](auto& dst, const auto& src) { dst.insert(dst.end(), src.begin(), src.end()); };
    app(out.link_capacity_bytes_per_s, in.link_capacity_bytes_per_s);
    app(out.link_tier, in.link_tier);
    app(out.flow_links, in.flow_links);
    app(out.flow_size_bytes, in.flow_size_bytes);
    app(out.flow_start_s, in.flow_start_s);
  }
  return out;
}

[[maybe_unused]] double max_rel(const std::vector<double>& a, const std::vector<double>& b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) {
    if (std::isinf(a[i]) || std::isinf(b[i])) {
      if (a[i] != b[i]) return INFINITY;
      continue;
    }
    const double s = std::max(std::fabs(a[i]), std::fabs(b[i]));
    if (s > 0) m = std::max(m, std::fabs(a[i] - b[i]) / s);
  }
  return m;
}

double host_copy_bandwidth() {  // one-thread memcpy of 256 MiB: a floor for DRAM bandwidth
  const size_t n = size_t(256) << 20;
  std::vector<char> a(n, 1), b(n, 0);
  std::memcpy(b.data(), a.data(), n);
  const auto t0 = Clock::now();
  for (int i = 0; i < 4; ++i) std::memcpy(b.data(), a.data(), n);
  return 2.0 * 4 * n / seconds_since(t0);  // read + write
}

template <class F>
double best_of(int reps, F&& f) {
  double best = INFINITY;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const uint32_t B_cpu = argc > 1 ? std::atoi(argv[1]) : 4096;
  [[maybe_unused]] const size_t B_gpu = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 262144;
  const int hw = omp_get_max_threads();
  std::printf("bench_kernels: batch contention, k=8 fat-tree (128 hosts, 768 directed links), 128 flows per scenario\n");
  std::printf("  omp max threads here: %d\n", hw);
  double cpu2_rate_equal = 0, cpu2_rate_random = 0;
  for (bool equal : {true, false}) {
    const ContentionBatch batch = k8_batch(B_cpu, equal, 1);
    const ContentionBytes by = contention_bytes_per_scenario(batch);
    std::printf("\n[%s sizes] %u scenarios; bytes per scenario: in %.0f, out %.0f, scratch %.0f\n",
                equal ? "equal 1 GB" : "random 0.1-2 GB", B_cpu, by.input_bytes, by.output_bytes, by.scratch_bytes);
    for (int threads : {1, 2}) {
      omp_set_num_threads(threads);
      // CPU seconds as well as wall seconds: on a shared machine the wall figure understates.
      const std::clock_t c0 = std::clock();
      const double s = best_of(3, [&] { omp::batch_contention(batch); });
      const double cpu_s = double(std::clock() - c0) / CLOCKS_PER_SEC / 3;
      const double rate = B_cpu / s;
      if (threads == 2) (equal ? cpu2_rate_equal : cpu2_rate_random) = rate;
      std::printf("  cpu omp %d thread%s: %10.0f scenarios/s wall  (%.3f s; %.0f scenarios per CPU-second; in+out %.2f GB/s)\n",
                  threads, threads > 1 ? "s" : " ", rate, s, B_cpu / cpu_s, rate * (by.input_bytes + by.output_bytes) / 1e9);
    }
    if (hw > 2) {
      omp_set_num_threads(hw);
      const double s = best_of(3, [&] { omp::batch_contention(batch); });
      std::printf("  cpu omp %d threads: %10.0f scenarios/s\n", hw, B_cpu / s);
    }
    omp_set_num_threads(hw);
  }
  std::printf("\n  host memcpy bandwidth (1 thread, read+write): %.1f GB/s\n", host_copy_bandwidth() / 1e9);

#if defined(FLOORSIM_HAVE_CUDA)
  if (!cuda::device_available()) {
    std::printf("\nGPU: built with CUDA but no device present; GPU figures skipped\n");
  } else {
    std::printf("\nGPU: %s, peak memory bandwidth %.0f GB/s\n", cuda::device_name().c_str(),
                cuda::device_memory_bandwidth_bytes_per_s() / 1e9);
    for (bool equal : {true, false}) {
      const ContentionBatch small = k8_batch(B_cpu, equal, 1);
      const ContentionBatch big = replicate(small, B_gpu);
      const ContentionBytes by = contention_bytes_per_scenario(big);
      // Equality first: GPU vs the OMP results on the same scenarios.
      const auto cpu = omp::batch_contention(small);
      const auto gpu = cuda::batch_contention(small);
      const size_t F = small.total_flows(), S = small.scenarios();
      const double d_rate = max_rel(cpu.flow_rate_bytes_per_s, gpu.flow_rate_bytes_per_s, F);
      const double d_fin = max_rel(cpu.flow_completion_s, gpu.flow_completion_s, F);
      const double d_util = max_rel(cpu.tier_utilisation, gpu.tier_utilisation, S * small.tiers);
      const double d_slow = max_rel(cpu.slowest_completion_s, gpu.slowest_completion_s, S);
      std::printf("\n[%s sizes] GPU vs CPU max relative difference: rates %.3g, completion %.3g, slowest %.3g, "
                  "tier util %.3g  (%s 1e-9)\n", equal ? "equal 1 GB" : "random 0.1-2 GB", d_rate, d_fin, d_slow,
                  d_util, std::max({d_rate, d_fin, d_slow, d_util}) < 1e-9 ? "PASS, under" : "FAIL, not under");
      cuda::batch_contention(big);  // warm-up at full size
      ContentionTiming tm, best_tm;
      double best_kernel = INFINITY;
      const double s = best_of(3, [&] {
        cuda::batch_contention(big, &tm);
        if (tm.kernel_s < best_kernel) { best_kernel = tm.kernel_s; best_tm = tm; }
      });
      const double rate_e2e = big.scenarios() / s, rate = big.scenarios() / best_kernel;
      const double cpu2 = equal ? cpu2_rate_equal : cpu2_rate_random;
      const double moved = by.input_bytes + by.output_bytes;
      std::printf("  gpu: %zu scenarios: solve %.4f s -> %.0f scenarios/s; with host<->device copies (up %.3f s, "
                  "down %.3f s) %.0f scenarios/s\n", big.scenarios(), best_kernel, rate, best_tm.upload_s,
                  best_tm.download_s, rate_e2e);
      std::printf("  GPU / 2-thread CPU = %.1fx (solve only), %.1fx (with copies)\n", rate / cpu2, rate_e2e / cpu2);
      std::printf("  bytes moved: in+out %.0f B/scenario -> %.1f GB/s; with one pass over scratch %.0f B -> %.1f GB/s "
                  "(%.1f%% of peak)\n", moved, rate * moved / 1e9, moved + by.scratch_bytes,
                  rate * (moved + by.scratch_bytes) / 1e9,
                  100.0 * rate * (moved + by.scratch_bytes) / cuda::device_memory_bandwidth_bytes_per_s());
    }
  }
#else
  std::printf("\nGPU: not built (configure with -DFLOORSIM_CUDA=ON)\n");
#endif

  // Job runtime: B scenarios x J jobs.
  {
    std::mt19937_64 rng(2);
    std::uniform_real_distribution<double> u(0, 1);
    JobBatch jobs;
    for (int j = 0; j < 64; ++j) {
      jobs.paths.push_back(1e5 + 1e6 * u(rng));
      jobs.risk_scenarios.push_back(1 + std::floor(50 * u(rng)));
      jobs.instruments.push_back(100 + std::floor(5000 * u(rng)));
      jobs.gpus.push_back(1 + rng() % 32);
      jobs.device_revaluations_per_s.push_back(1e9);
      jobs.comm_bytes_per_gpu.push_back(1e9 * u(rng));
      jobs.serial_fraction.push_back(0.05);
    }
    std::vector<double> bottleneck(65536);
    for (auto& x : bottleneck) x = 1e9 + 2e10 * u(rng);
    std::printf("\nbatch job runtime: %zu scenarios x %zu jobs\n", bottleneck.size(), jobs.jobs());
    for (int threads : {1, 2}) {
      omp_set_num_threads(threads);
      const double s = best_of(3, [&] { omp::batch_job_runtime(jobs, bottleneck); });
      std::printf("  cpu omp %d thread%s: %.3g (scenario, job) pairs/s\n", threads, threads > 1 ? "s" : " ",
                  bottleneck.size() * jobs.jobs() / s);
    }
    omp_set_num_threads(hw);
#if defined(FLOORSIM_HAVE_CUDA)
    if (cuda::device_available()) {
      const auto c = omp::batch_job_runtime(jobs, bottleneck);
      const auto g = cuda::batch_job_runtime(jobs, bottleneck);
      const double s = best_of(3, [&] { cuda::batch_job_runtime(jobs, bottleneck); });
      std::printf("  gpu: %.3g pairs/s; GPU vs CPU max relative difference %.3g\n",
                  bottleneck.size() * jobs.jobs() / s, max_rel(c.runtime_s, g.runtime_s, c.runtime_s.size()));
    }
#endif
  }

  // Monte Carlo VaR (the calibration kernel): 16 assets, 64 options.
  {
    const VarPortfolio pf = VarPortfolio::synthetic(16, 64, 0.3, 1);
    std::printf("\nMonte Carlo VaR, 16 assets, 64 options\n");
    for (int threads : {1, 2}) {
      omp_set_num_threads(threads);
      const VarResult r = omp::monte_carlo_var(pf, 50000, 1);
      std::printf("  cpu omp %d thread%s: %.3g paths/s, %.3g revaluations/s (VaR99 %.4f)\n", threads,
                  threads > 1 ? "s" : " ", r.paths_per_s(), r.paths_per_s() * 64, r.var);
    }
    omp_set_num_threads(hw);
#if defined(FLOORSIM_HAVE_CUDA)
    if (cuda::device_available()) {
      const VarResult c = omp::monte_carlo_var(pf, 50000, 1);
      const VarResult g0 = cuda::monte_carlo_var(pf, 50000, 1);
      const VarResult g = cuda::monte_carlo_var(pf, 4000000, 1);
      std::printf("  gpu: %.3g paths/s, %.3g revaluations/s; VaR99 (50k paths) GPU %.10g vs CPU %.10g, rel diff %.3g\n",
                  g.paths_per_s(), g.paths_per_s() * 64, g0.var, c.var, std::fabs(g0.var - c.var) / std::fabs(c.var));
    }
#endif
  }
  return 0;
}
