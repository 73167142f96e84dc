#include <omp.h>

#include <boost/math/distributions/normal.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "kernels/calibration.hpp"
#include "kernels/var_mc.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;
using namespace floorsim::kernels;

namespace {

VarPortfolio one_call() {
  VarPortfolio p;
  p.spot = {100};
  p.vol = {0.3};
  p.drift = {0.08};
  p.correlation = {1};
  p.options = {VarOption{0, 105, 0.5, 10, true}};
  p.rate = 0.02;
  p.horizon_years = 10.0 / 252;
  p.confidence = 0.99;
  return p;
}

}  // namespace

TEST_CASE("Black-Scholes: textbook value and put-call parity", "[kernels][var]") {
  // Hull's example: S=42, K=40, r=10%, sigma=20%, T=0.5 -> call 4.76, put 0.81.
  CHECK(black_scholes(42, 40, 0.1, 0.2, 0.5, true) == Approx(4.76).margin(0.005));
  CHECK(black_scholes(42, 40, 0.1, 0.2, 0.5, false) == Approx(0.81).margin(0.005));
  const double c = black_scholes(100, 90, 0.03, 0.25, 1.3, true), p = black_scholes(100, 90, 0.03, 0.25, 1.3, false);
  CHECK(c - p == Approx(100 - 90 * std::exp(-0.03 * 1.3)).epsilon(1e-12));
}

TEST_CASE("single long call: Monte Carlo VaR matches the closed form", "[kernels][var]") {
  // The loss is decreasing in S_h, so VaR_q = V0 - BS(S_{1-q}) with S_{1-q} the lognormal
  // quantile of the spot at the horizon.
  const VarPortfolio p = one_call();
  const double h = p.horizon_years, s = p.vol[0];
  const double z = boost::math::quantile(boost::math::normal(), 1 - p.confidence);
  const double s_q = 100 * std::exp((p.drift[0] - 0.5 * s * s) * h + s * std::sqrt(h) * z);
  const double v0 = 10 * black_scholes(100, 105, p.rate, s, 0.5, true);
  const double exact = v0 - 10 * black_scholes(s_q, 105, p.rate, s, 0.5 - h, true);
  const VarResult r = omp::monte_carlo_var(p, 400000, 7);
  CHECK(r.value0 == Approx(v0).epsilon(1e-12));
  INFO("MC VaR " << r.var << " vs closed form " << exact);
  CHECK(r.var == Approx(exact).epsilon(0.02));
  CHECK(r.var > 0);
}

TEST_CASE("correlated portfolio: VaR matches an independent high-sample Monte Carlo", "[kernels][var]") {
  VarPortfolio p;
  p.spot = {100, 50, 80};
  p.vol = {0.2, 0.35, 0.25};
  p.drift = {0.05, 0.07, 0.03};
  const double rho01 = 0.6, rho02 = -0.3, rho12 = 0.2;
  p.correlation = {1, rho01, rho02, rho01, 1, rho12, rho02, rho12, 1};
  p.options = {{0, 100, 1.0, 5, true}, {1, 45, 0.5, -3, false}, {2, 85, 0.75, 4, true}, {1, 55, 2.0, 2, true}};
  p.rate = 0.01;
  p.horizon_years = 5.0 / 252;
  // Reference: std::mt19937_64 + std::normal_distribution, hand-written correlation.
  const std::vector<double> L = cholesky(p.correlation, 3);
  std::mt19937_64 rng(123);
  std::normal_distribution<double> n01;
  double v0 = 0;
  for (const auto& o : p.options) v0 += o.quantity * black_scholes(p.spot[o.asset], o.strike, p.rate, p.vol[o.asset], o.maturity_years, o.call);
  const int N = 1000000;
  std::vector<double> loss(N);
  for (int i = 0; i < N; ++i) {
    const double z[3] = {n01(rng), n01(rng), n01(rng)};
    double s[3];
    for (int a = 0; a < 3; ++a) {
      double x = 0;
      for (int b = 0; b <= a; ++b) x += L[a * 3 + b] * z[b];
      s[a] = p.spot[a] * std::exp((p.drift[a] - 0.5 * p.vol[a] * p.vol[a]) * p.horizon_years + p.vol[a] * std::sqrt(p.horizon_years) * x);
    }
    double v = 0;
    for (const auto& o : p.options) v += o.quantity * black_scholes(s[o.asset], o.strike, p.rate, p.vol[o.asset], o.maturity_years - p.horizon_years, o.call);
    loss[i] = v0 - v;
  }
  std::sort(loss.begin(), loss.end());
  const double ref = loss[static_cast<size_t>(std::ceil(0.99 * N)) - 1];
  const VarResult r = omp::monte_carlo_var(p, 400000, 99);
  INFO("kernel VaR " << r.var << " vs reference " << ref);
  CHECK(r.var == Approx(ref).epsilon(0.03));
}

TEST_CASE("VaR is identical whatever the thread count", "[kernels][var][determinism]") {
  const VarPortfolio p = VarPortfolio::synthetic(8, 24, 0.3, 5);
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  const VarResult a = omp::monte_carlo_var(p, 20000, 3);
  omp_set_num_threads(2);
  const VarResult b = omp::monte_carlo_var(p, 20000, 3);
  omp_set_num_threads(before);
  CHECK(a.var == b.var);
  CHECK(a.mean_loss == b.mean_loss);
  const VarResult c = omp::monte_carlo_var(p, 20000, 4);
  CHECK(c.var != a.var);  // the seed matters
}

TEST_CASE("portfolio validation", "[kernels][var]") {
  VarPortfolio p = one_call();
  p.correlation = {1, 0.5, 0.5, 1};
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("correlation"));
  p = one_call();
  p.options[0].maturity_years = 0.01;  // before the horizon
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("maturity"));
  CHECK_THROWS_WITH(cholesky({1, 2, 2, 1}, 2), Catch::Contains("positive definite"));
}

TEST_CASE("calibration runs, writes JSON and reads it back", "[kernels][calibration]") {
  CalibrationParams cp;
  cp.paths = 20000;
  cp.assets = 4;
  cp.options = 8;
  cp.threads = 2;
  const Calibration c = run_calibration(cp);
  CHECK(c.device == "cpu-omp");
  CHECK(c.threads == 2);
  CHECK(c.paths_per_s > 0);
  CHECK(c.revaluations_per_s == Approx(c.paths_per_s * 8));
  const auto dir = std::filesystem::temp_directory_path() / ("floorsim-kernels-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "cal.json") << calibration_json(c);
  const Calibration back = load_calibration(dir / "cal.json");
  CHECK(back.device == c.device);
  CHECK(back.revaluations_per_s == Approx(c.revaluations_per_s).epsilon(1e-12));
  CHECK(back.var_99 == Approx(c.var_99).epsilon(1e-12));
  std::ofstream(dir / "bad.json") << R"({"device": "cpu-omp", "threads": 2, "paths": 10})";
  CHECK_THROWS_AS(load_calibration(dir / "bad.json"), InputError);
  CHECK_THROWS_WITH(load_calibration(dir / "bad.json"), Catch::Contains("bad.json:/assets"));
  std::ofstream(dir / "junk.json") << "{ not json";
  CHECK_THROWS_WITH(load_calibration(dir / "junk.json"), Catch::Contains("not valid JSON"));
  std::filesystem::remove_all(dir);
}
