#pragma once
// Host/device pieces of the VaR kernel: counter-based normals and Black-Scholes.
#include <cmath>
#include <cstdint>

#include "kernels/hd.hpp"

namespace floorsim::kernels::FLOORSIM_BACKEND::detail {

FLOORSIM_HD inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in (0, 1): 53 random bits, offset by half a step so log() never sees 0.
FLOORSIM_HD inline double uniform01(uint64_t x) { return (double(x >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

// Two independent standard normals for (seed, path, pair) by Box-Muller.
FLOORSIM_HD inline void normal_pair(uint64_t seed, uint64_t path, uint32_t pair, double& z0, double& z1) {
  const uint64_t key = splitmix64(seed ^ splitmix64(path * 0x100000001B3ull + pair));
  const double u1 = uniform01(splitmix64(key)), u2 = uniform01(splitmix64(key + 1));
  const double r = sqrt(-2.0 * log(u1)), th = 6.283185307179586476925 * u2;
  z0 = r * cos(th);
  z1 = r * sin(th);
}

FLOORSIM_HD inline double norm_cdf(double x) { return 0.5 * erfc(-x * 0.70710678118654752440); }

FLOORSIM_HD inline double bs_price(double s, double k, double r, double vol, double t, bool call) {
  if (t <= 0.0) return call ? (s > k ? s - k : 0.0) : (k > s ? k - s : 0.0);
  const double sq = vol * sqrt(t);
  const double d1 = (log(s / k) + (r + 0.5 * vol * vol) * t) / sq, d2 = d1 - sq;
  const double df = exp(-r * t);
  return call ? s * norm_cdf(d1) - k * df * norm_cdf(d2) : k * df * norm_cdf(-d2) - s * norm_cdf(-d1);
}

}  // namespace floorsim::kernels::FLOORSIM_BACKEND::detail
