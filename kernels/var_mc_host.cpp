#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "kernels/hd.hpp"
#include "kernels/var_mc.hpp"
#include "kernels/var_mc_core.hpp"

namespace floorsim::kernels {

void VarPortfolio::validate() const {
  const size_t A = assets();
  auto bad = [](const std::string& m) { throw std::invalid_argument("var portfolio: " + m); };
  if (A == 0 || A > kVarMaxAssets) bad("assets must be 1.." + std::to_string(kVarMaxAssets) + ", got " + std::to_string(A));
  if (vol.size() != A || drift.size() != A) bad("spot, vol and drift need one entry per asset");
  if (correlation.size() != A * A) bad("correlation must be assets x assets");
  for (size_t i = 0; i < A; ++i) {
    if (!(spot[i] > 0) || !(vol[i] > 0) || !std::isfinite(drift[i])) bad("asset " + std::to_string(i) + ": spot and vol must be > 0");
    if (std::fabs(correlation[i * A + i] - 1.0) > 1e-12) bad("correlation diagonal must be 1");
  }
  for (size_t o = 0; o < options.size(); ++o) {
    const VarOption& op = options[o];
    if (op.asset >= A) bad("option " + std::to_string(o) + ": asset index out of range");
    if (!(op.strike > 0) || !(op.maturity_years > horizon_years) || !std::isfinite(op.quantity))
      bad("option " + std::to_string(o) + ": strike must be > 0 and maturity beyond the horizon");
  }
  if (!(horizon_years > 0)) bad("horizon_years must be > 0");
  if (!(confidence > 0 && confidence < 1)) bad("confidence must be in (0, 1)");
}

VarPortfolio VarPortfolio::synthetic(uint32_t assets, uint32_t options, double rho, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  VarPortfolio p;
  for (uint32_t i = 0; i < assets; ++i) {
    p.spot.push_back(100.0);
    p.vol.push_back(0.15 + 0.30 * u(rng));
    p.drift.push_back(0.05);
  }
  p.correlation.assign(size_t(assets) * assets, rho);
  for (uint32_t i = 0; i < assets; ++i) p.correlation[size_t(i) * assets + i] = 1.0;
  for (uint32_t o = 0; o < options; ++o) {
    VarOption op;
    op.asset = o % assets;
    op.strike = 100.0 * (0.8 + 0.4 * u(rng));
    op.maturity_years = 0.1 + 1.9 * u(rng);
    op.call = (o / assets) % 2 == 0;
    op.quantity = u(rng) < 0.8 ? 1.0 : -1.0;  // mostly long, some short
    p.options.push_back(op);
  }
  p.rate = 0.02;
  return p;
}

std::vector<double> cholesky(const std::vector<double>& a, size_t n) {
  std::vector<double> l(n * n, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j <= i; ++j) {
      double s = a[i * n + j];
      for (size_t k = 0; k < j; ++k) s -= l[i * n + k] * l[j * n + k];
      if (i == j) {
        if (!(s > 0)) throw std::invalid_argument("var portfolio: correlation matrix is not positive definite (pivot " +
                                                  std::to_string(i) + "); expected a valid correlation matrix");
        l[i * n + i] = std::sqrt(s);
      } else {
        l[i * n + j] = s / l[j * n + j];
      }
    }
  return l;
}

double black_scholes(double spot, double strike, double rate, double vol, double t, bool call) {
  return omp::detail::bs_price(spot, strike, rate, vol, t, call);
}

}  // namespace floorsim::kernels
