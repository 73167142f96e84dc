#include <catch2/catch.hpp>
#include <cmath>

#include "kernels/job_runtime.hpp"
#include "kernels_test_util.hpp"

using namespace floorsim::kernels;
using floorsim::kernels::test::rel_eq;

namespace {
JobBatch two_jobs() {
  JobBatch j;
  // VaR job: 1e6 paths x 1 risk scenario x 1000 instruments at 1e9 revaluations/s on 1 GPU.
  j.paths = {1e6, 1e5};
  j.risk_scenarios = {1, 20};
  j.instruments = {1000, 500};
  j.gpus = {1, 8};
  j.device_revaluations_per_s = {1e9, 2e9};
  j.comm_bytes_per_gpu = {5e9, 10e9};
  j.serial_fraction = {0.1, 0.05};
  return j;
}
}  // namespace

TEST_CASE("job runtime formula by hand", "[kernels][runtime]") {
  const JobBatch j = two_jobs();
  // Scenario bottlenecks: 10 GB/s, 5 GB/s, disconnected.
  const auto r = omp::batch_job_runtime(j, {10e9, 5e9, 0.0});
  REQUIRE(r.runtime_s.size() == 6);
  // Job 0: 1 GPU -> 1e9 / 1e9 = 1 s, no communication in any scenario.
  for (int b = 0; b < 3; ++b) CHECK(rel_eq(r.runtime_s[b * 2 + 0], 1.0));
  // Job 1: 1e9 revaluations / 2e9 = 0.5 s single-GPU; Amdahl 0.05 + 0.95/8 = 0.16875.
  const double compute = 0.5 * 0.16875;
  CHECK(rel_eq(r.compute_s[1], compute));
  CHECK(rel_eq(r.comm_s[1], 1.0));      // 10 GB / 10 GB/s
  CHECK(rel_eq(r.runtime_s[1], compute + 1.0));
  CHECK(rel_eq(r.runtime_s[3], compute + 2.0));  // 5 GB/s fabric
  CHECK(std::isinf(r.runtime_s[5]));              // disconnected fabric
}

TEST_CASE("job runtime: OMP batch equals the scalar reference", "[kernels][runtime]") {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  JobBatch j;
  for (int i = 0; i < 200; ++i) {
    j.paths.push_back(1e3 + 1e6 * u(rng));
    j.risk_scenarios.push_back(1 + std::floor(100 * u(rng)));
    j.instruments.push_back(1 + std::floor(5000 * u(rng)));
    j.gpus.push_back(1 + rng() % 64);
    j.device_revaluations_per_s.push_back(1e8 + 1e10 * u(rng));
    j.comm_bytes_per_gpu.push_back(1e10 * u(rng));
    j.serial_fraction.push_back(u(rng) * 0.3);
  }
  std::vector<double> bottleneck;
  for (int b = 0; b < 17; ++b) bottleneck.push_back(1e9 + 5e10 * u(rng));
  const auto r = omp::batch_job_runtime(j, bottleneck);
  for (size_t b = 0; b < bottleneck.size(); ++b)
    for (size_t k = 0; k < j.jobs(); ++k)
      REQUIRE(rel_eq(r.runtime_s[b * j.jobs() + k], job_runtime_reference(j, k, bottleneck[b]), 1e-12));
}

TEST_CASE("job runtime uses the contention results' bottleneck", "[kernels][runtime]") {
  auto batch = floorsim::kernels::test::random_batch(6, 3);
  const auto c = omp::batch_contention(batch);
  JobBatch j = two_jobs();
  const auto r = omp::batch_job_runtime(j, c.min_rate_bytes_per_s);
  for (size_t b = 0; b < batch.scenarios(); ++b)
    CHECK(rel_eq(r.comm_s[b * 2 + 1], 10e9 / c.min_rate_bytes_per_s[b]));
}

TEST_CASE("job batch validation names the job and field", "[kernels][runtime]") {
  JobBatch j = two_jobs();
  j.gpus[1] = 0;
  CHECK_THROWS_WITH(omp::batch_job_runtime(j, {1e9}), Catch::Contains("job 1") && Catch::Contains("gpus"));
  j = two_jobs();
  j.serial_fraction[0] = 1.5;
  CHECK_THROWS_WITH(j.validate(), Catch::Contains("serial_fraction"));
  j = two_jobs();
  j.instruments.pop_back();
  CHECK_THROWS_WITH(j.validate(), Catch::Contains("instruments"));
}
