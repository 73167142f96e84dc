#pragma once
// Monte Carlo VaR: the calibration kernel. Correlated GBM over one horizon (Cholesky of the
// correlation matrix), full revaluation of a portfolio of European options by Black-Scholes at
// the horizon, loss = V0 - V_h, VaR = the `confidence` quantile of the loss (sorted losses,
// index ceil(confidence * paths) - 1). Random numbers are counter-based (splitmix64 of
// (seed, path, pair) -> Box-Muller), so results do not depend on thread count or device.
#include <cstdint>
#include <string>
#include <vector>

namespace floorsim::kernels {

inline constexpr uint32_t kVarMaxAssets = 64;  // per-path state lives in registers/stack

struct VarOption {
  uint32_t asset = 0;
  double strike = 100, maturity_years = 1, quantity = 1;
  bool call = true;
};

struct VarPortfolio {
  std::vector<double> spot, vol, drift;  // per asset; drift = real-world mu (annual)
  std::vector<double> correlation;       // assets x assets, row-major, symmetric positive definite
  std::vector<VarOption> options;
  double rate = 0.0;                     // risk-free, continuously compounded (for revaluation)
  double horizon_years = 1.0 / 252;      // one trading day
  double confidence = 0.99;

  size_t assets() const { return spot.size(); }
  // Throws std::invalid_argument (what was wrong; what was expected).
  void validate() const;
  // A reproducible test portfolio: A assets (spot 100, vol 15-45%), pairwise correlation rho,
  // O options spread over assets, strikes 80-120%, maturities 0.1-2 years, calls and puts.
  static VarPortfolio synthetic(uint32_t assets, uint32_t options, double rho, uint64_t seed);
};

struct VarResult {
  double var = 0;           // loss quantile at `confidence`
  double mean_loss = 0;
  double value0 = 0;        // portfolio value today
  uint64_t paths = 0;
  double seconds = 0;       // wall time of path generation + revaluation + sort
  double paths_per_s() const { return seconds > 0 ? paths / seconds : 0; }
};

// Lower-triangular Cholesky factor (row-major); throws std::invalid_argument if not PD.
std::vector<double> cholesky(const std::vector<double>& a, size_t n);

// Black-Scholes price (host), for references.
double black_scholes(double spot, double strike, double rate, double vol, double t_years, bool call);

namespace omp {
VarResult monte_carlo_var(const VarPortfolio& p, uint64_t paths, uint64_t seed);
}
#if defined(FLOORSIM_HAVE_CUDA)
namespace cuda {
VarResult monte_carlo_var(const VarPortfolio& p, uint64_t paths, uint64_t seed);
}
#endif

}  // namespace floorsim::kernels
