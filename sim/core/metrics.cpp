#include "sim/core/metrics.hpp"

#include <algorithm>
#include <cmath>

namespace floorsim {

void ClassLedger::init(std::vector<int32_t> floors, bool keep_timeline) {
  floors_ = std::move(floors);
  keep_timeline_ = keep_timeline;
  ensure(static_cast<StrId>(floors_.empty() ? 0 : floors_.size() - 1));
}

void ClassLedger::ensure(StrId k) {
  if (k < alloc_.size()) return;
  const size_t n = static_cast<size_t>(k) + 1;
  alloc_.resize(n, 0);
  demand_.resize(n, 0);
  alloc_s_.resize(n, 0);
  entitled_s_.resize(n, 0);
  delivered_s_.resize(n, 0);
  changed_.resize(n, 0);
  active_.resize(n, 0);
}

void ClassLedger::advance(SimTime now) {
  if (!started_) {
    started_ = true;
    last_ = now;
    return;
  }
  const double dt = now - last_;
  if (dt <= 0) return;
  for (StrId k : active_list_) {
    if (alloc_[k] == 0 && demand_[k] == 0) continue;
    const double a = static_cast<double>(alloc_[k]);
    const double f = k < floors_.size() ? floors_[k] : 0;
    const double entitled = std::min(f, static_cast<double>(demand_[k]));
    alloc_s_[k] += a * dt;
    entitled_s_[k] += entitled * dt;
    delivered_s_[k] += std::min(a, entitled) * dt;
  }
  last_ = now;
}

void ClassLedger::record(SimTime now) {
  std::sort(changed_list_.begin(), changed_list_.end());  // stable row order per timestamp
  for (StrId k : changed_list_) {
    changed_[k] = 0;
    if (keep_timeline_) timeline_.push_back({now, k, alloc_[k], demand_[k]});
  }
  changed_list_.clear();
}

WaitStats wait_stats(std::vector<double> w) { return wait_stats_in_place(w); }

WaitStats wait_stats_in_place(std::span<double> w) {
  WaitStats s;
  s.n = w.size();
  if (w.empty()) return s;
  std::sort(w.begin(), w.end());
  double sum = 0;
  for (double x : w) sum += x;
  s.mean = sum / static_cast<double>(w.size());
  auto rank = [&](double p) {
    const size_t r = static_cast<size_t>(std::ceil(p * static_cast<double>(w.size())));
    return w[std::min(w.size() - 1, r == 0 ? 0 : r - 1)];
  };
  s.p50 = rank(0.50);
  s.p95 = rank(0.95);
  s.p99 = rank(0.99);
  s.max = w.back();
  return s;
}

nlohmann::json to_json(const WaitStats& w) {
  return {{"mean", w.mean}, {"p50", w.p50}, {"p95", w.p95}, {"p99", w.p99}, {"max", w.max}};
}

}  // namespace floorsim
