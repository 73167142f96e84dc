// GPU vs CPU equality (only in a FLOORSIM_CUDA=ON build; skipped with a warning when no device).
#include <catch2/catch.hpp>

#include "kernels/contention.hpp"
#include "kernels/job_runtime.hpp"
#include "kernels/var_mc.hpp"
#include "kernels_test_util.hpp"

#if defined(FLOORSIM_HAVE_CUDA)
using namespace floorsim::kernels;

TEST_CASE("CUDA batch contention equals the OMP batch (1e-9 relative)", "[kernels][cuda]") {
  if (!cuda::device_available()) {
    WARN("built with CUDA but no GPU present: GPU equality not checked");
    return;
  }
  const auto b = test::random_batch(200, 77);
  const auto c = omp::batch_contention(b);
  const auto g = cuda::batch_contention(b);
  const double d_rate = test::max_rel_diff(c.flow_rate_bytes_per_s, g.flow_rate_bytes_per_s);
  const double d_fin = test::max_rel_diff(c.flow_completion_s, g.flow_completion_s);
  const double d_util = test::max_rel_diff(c.tier_utilisation, g.tier_utilisation);
  const double d_min = test::max_rel_diff(c.min_rate_bytes_per_s, g.min_rate_bytes_per_s);
  WARN("GPU vs CPU max relative difference: rates " << d_rate << ", completion " << d_fin << ", util " << d_util);
  CHECK(d_rate < 1e-9);
  CHECK(d_fin < 1e-9);
  CHECK(d_util < 1e-9);
  CHECK(d_min < 1e-9);
}

TEST_CASE("CUDA job runtime and VaR agree with the OMP backend", "[kernels][cuda]") {
  if (!cuda::device_available()) return;
  JobBatch j;
  j.paths = {1e6, 2e5};
  j.risk_scenarios = {1, 10};
  j.instruments = {1000, 300};
  j.gpus = {1, 16};
  j.device_revaluations_per_s = {1e9, 3e9};
  j.comm_bytes_per_gpu = {1e9, 4e9};
  j.serial_fraction = {0.1, 0.02};
  const std::vector<double> bn = {1e10, 3e9, 0.0};
  const auto c = omp::batch_job_runtime(j, bn), g = cuda::batch_job_runtime(j, bn);
  CHECK(test::max_rel_diff(c.runtime_s, g.runtime_s) < 1e-12);
  // Same counter-based random numbers; math libraries differ by ulps only.
  const VarPortfolio p = VarPortfolio::synthetic(8, 32, 0.3, 9);
  const VarResult vc = omp::monte_carlo_var(p, 100000, 5), vg = cuda::monte_carlo_var(p, 100000, 5);
  CHECK(vg.var == Approx(vc.var).epsilon(1e-9));
  CHECK(vg.mean_loss == Approx(vc.mean_loss).epsilon(1e-9));
}
#endif
