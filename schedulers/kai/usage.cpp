#include "schedulers/kai/usage.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace floorsim::kai {

double tumbling_window_start(double now_s, double start_s, double window_s) {
  if (start_s >= now_s || window_s <= 0) return std::min(start_s, now_s);
  // The last boundary start + k * window strictly before now (k >= 0).
  const double k = std::ceil((now_s - start_s) / window_s) - 1;
  return start_s + std::max(0.0, k) * window_s;
}

double UsageHistory::decay(double dt) const { return p_.half_life_s > 0 ? std::exp2(-dt / p_.half_life_s) : 1.0; }

double UsageHistory::integral(double dt) const {
  if (p_.half_life_s <= 0) return dt;
  return p_.half_life_s / std::numbers::ln2 * -std::expm1(-dt * std::numbers::ln2 / p_.half_life_s);
}

void UsageHistory::sums_at(const Segment& g, double t, std::vector<double>& out) const {
  const double dt = t - g.t0, d = decay(dt), i = integral(dt);
  out.resize(n_);
  for (size_t c = 0; c < n_; ++c) out[c] = g.s[c] * d + g.rate[c] * i;
}

void UsageHistory::record(double now_s, std::span<const double> rates) {
  if (!seg_.empty() && std::equal(rates.begin(), rates.end(), seg_.back().rate.begin())) return;  // same series
  Segment g{now_s, std::vector<double>(n_, 0.0), std::vector<double>(rates.begin(), rates.end())};
  if (!seg_.empty()) sums_at(seg_.back(), now_s, g.s);
  if (!seg_.empty() && seg_.back().t0 == now_s) seg_.back() = std::move(g);  // two passes at one instant
  else seg_.push_back(std::move(g));
}

double UsageHistory::window_start(double now_s) const {
  if (p_.window == WindowType::Tumbling) return tumbling_window_start(now_s, p_.tumbling_start_s, p_.window_s);
  return now_s - p_.window_s;
}

void UsageHistory::window_sums(double now_s, std::vector<double>& out) {
  out.assign(n_, 0.0);
  if (seg_.empty()) return;
  const double w0 = std::min(window_start(now_s), now_s);
  // Segments wholly before the window are never needed again (window starts only move on).
  while (seg_.size() > 1 && seg_[1].t0 <= w0) seg_.pop_front();
  sums_at(seg_.back(), now_s, at_now_);
  // Before the first record nothing was allocated: the integral up to w0 is 0 there.
  if (w0 < seg_.front().t0) at_start_.assign(n_, 0.0);
  else sums_at(seg_.front(), w0, at_start_);
  const double d = decay(now_s - w0);
  for (size_t c = 0; c < n_; ++c) out[c] = std::max(0.0, at_now_[c] - d * at_start_[c]);
}

}  // namespace floorsim::kai
