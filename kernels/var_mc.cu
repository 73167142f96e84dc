// Monte Carlo VaR kernel (calibration): one path per work item, then a device sort of the losses.
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sort.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/hd.hpp"
#include "kernels/var_mc.hpp"
#include "kernels/var_mc_core.hpp"

namespace floorsim::kernels::FLOORSIM_BACKEND {
namespace {

struct LossOp {
  const double *spot, *vol, *drift, *chol;
  const double *strike, *maturity, *quantity;
  const uint32_t* asset;
  const uint8_t* call;
  uint32_t A, O;
  double rate, horizon, value0;
  uint64_t seed;
  double* loss;

  FLOORSIM_HD void operator()(uint64_t p) const {
    double z[kVarMaxAssets], s[kVarMaxAssets];
    for (uint32_t i = 0; i < A; i += 2) {
      double z0, z1;
      detail::normal_pair(seed, p, i / 2, z0, z1);
      z[i] = z0;
      if (i + 1 < A) z[i + 1] = z1;
    }
    const double sqh = sqrt(horizon);
    for (uint32_t i = 0; i < A; ++i) {
      double x = 0.0;  // correlated normal: row i of the Cholesky factor times z
      for (uint32_t j = 0; j <= i; ++j) x += chol[i * A + j] * z[j];
      s[i] = spot[i] * exp((drift[i] - 0.5 * vol[i] * vol[i]) * horizon + vol[i] * sqh * x);
    }
    double v = 0.0;
    for (uint32_t o = 0; o < O; ++o) {
      const uint32_t a = asset[o];
      v += quantity[o] * detail::bs_price(s[a], strike[o], rate, vol[a], maturity[o] - horizon, call[o] != 0);
    }
    loss[p] = value0 - v;
  }
};

template <class T>
const T* cptr(const thrust::device_vector<T>& v) { return thrust::raw_pointer_cast(v.data()); }

}  // namespace

VarResult monte_carlo_var(const VarPortfolio& pf, uint64_t paths, uint64_t seed) {
  pf.validate();
  if (paths == 0) throw std::invalid_argument("monte carlo var: paths must be >= 1");
  const uint32_t A = static_cast<uint32_t>(pf.assets()), O = static_cast<uint32_t>(pf.options.size());
  const std::vector<double> L = cholesky(pf.correlation, A);
  std::vector<double> strike(O), maturity(O), quantity(O);
  std::vector<uint32_t> asset(O);
  std::vector<uint8_t> call(O);
  double value0 = 0.0;
  for (uint32_t o = 0; o < O; ++o) {
    const VarOption& op = pf.options[o];
    strike[o] = op.strike; maturity[o] = op.maturity_years; quantity[o] = op.quantity;
    asset[o] = op.asset; call[o] = op.call;
    value0 += op.quantity * detail::bs_price(pf.spot[op.asset], op.strike, pf.rate, pf.vol[op.asset],
                                             op.maturity_years, op.call);
  }
  const auto t0 = std::chrono::steady_clock::now();
  thrust::device_vector<double> d_spot(pf.spot), d_vol(pf.vol), d_drift(pf.drift), d_chol(L), d_strike(strike),
      d_mat(maturity), d_qty(quantity), d_loss(paths);
  thrust::device_vector<uint32_t> d_asset(asset);
  thrust::device_vector<uint8_t> d_call(call);
  LossOp op{cptr(d_spot), cptr(d_vol), cptr(d_drift), cptr(d_chol), cptr(d_strike), cptr(d_mat), cptr(d_qty),
            cptr(d_asset), cptr(d_call), A, O, pf.rate, pf.horizon_years, value0, seed,
            thrust::raw_pointer_cast(d_loss.data())};
  thrust::for_each(thrust::device, thrust::counting_iterator<uint64_t>(0), thrust::counting_iterator<uint64_t>(paths),
                   op);
  thrust::sort(thrust::device, d_loss.begin(), d_loss.end());
  std::vector<double> loss(paths);
  thrust::copy(d_loss.begin(), d_loss.end(), loss.begin());
  const auto t1 = std::chrono::steady_clock::now();

  VarResult r;
  r.paths = paths;
  r.value0 = value0;
  r.seconds = std::chrono::duration<double>(t1 - t0).count();
  uint64_t idx = static_cast<uint64_t>(std::ceil(pf.confidence * double(paths)));
  idx = idx == 0 ? 0 : idx - 1;
  r.var = loss[idx];
  double sum = 0.0;  // sequential: same sum whatever the thread count
  for (double x : loss) sum += x;
  r.mean_loss = sum / double(paths);
  return r;
}

}  // namespace floorsim::kernels::FLOORSIM_BACKEND
