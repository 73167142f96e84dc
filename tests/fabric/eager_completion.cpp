// See eager_completion.hpp: the step-every-flow reference for complete().
#include "eager_completion.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace floorsim::fabric::test {

namespace {

// Per-step bookkeeping of a CompletionTrace: link loads of this step, and each flow's current
// and longest stretch under one bottleneck.
class Tracer {
 public:
  Tracer(const FlowSet& s, CompletionTrace* t) : s_(s), t_(t) {
    if (!t_) return;
    t_->link_peak_bytes_per_s.assign(s.links(), 0);
    t_->link_saturated_s.assign(s.links(), 0);
    t_->flow_bottleneck.assign(s.flows(), MaxMinSolver::kNoLink);
    load_.assign(s.links(), 0);
    cur_link_.assign(s.flows(), MaxMinSolver::kNoLink);
    cur_s_.assign(s.flows(), 0);
    best_s_.assign(s.flows(), -1);
    open_.assign(s.links(), kNoSegment);
    limits_.assign(s.links(), 0);
  }
  void step(const std::vector<uint32_t>& active, const std::vector<double>& rates, const MaxMinSolver& solver,
            double t, double t_next) {
    if (!t_) return;
    const double dt = t_next - t;
    used_.clear();
    ++epoch_;
    for (uint32_t f : active) {
      const uint32_t bl = solver.limiting_link(f);
      if (bl != MaxMinSolver::kNoLink) limits_[bl] = epoch_;
      cur_s_[f] = bl == cur_link_[f] ? cur_s_[f] + dt : dt;
      cur_link_[f] = bl;
      if (cur_s_[f] > best_s_[f]) {
        best_s_[f] = cur_s_[f];
        t_->flow_bottleneck[f] = bl;
      }
      if (std::isinf(rates[f])) continue;
      for (uint32_t i = s_.flow_offsets[f]; i < s_.flow_offsets[f + 1]; ++i) {
        const uint32_t l = s_.flow_links[i];
        if (load_[l] == 0) used_.push_back(l);
        load_[l] += rates[f];
      }
    }
    for (uint32_t l : used_) {
      t_->link_peak_bytes_per_s[l] = std::max(t_->link_peak_bytes_per_s[l], load_[l]);
      const bool full = load_[l] >= s_.link_capacity_bytes_per_s[l] * (1 - 1e-9);
      if (full) t_->link_saturated_s[l] += dt;
      segment(l, t, t_next, load_[l], full && limits_[l] == epoch_);
      load_[l] = 0;
    }
  }
  // Closes every open segment; sorts them by link, then time.
  void finish() {
    if (!t_) return;
    auto& v = t_->link_segments;
    std::stable_sort(v.begin(), v.end(), [](const LinkSegment& a, const LinkSegment& b) {
      return a.link != b.link ? a.link < b.link : a.from_s < b.from_s;
    });
  }

 private:
  static constexpr uint32_t kNoSegment = ~0u;
  // Extends the link's open segment when nothing changed since it (same load, same bottleneck
  // state, no idle gap); otherwise opens a new one.
  void segment(uint32_t l, double t, double t_next, double load, bool bottleneck) {
    auto& v = t_->link_segments;
    const uint32_t o = open_[l];
    if (o != kNoSegment && v[o].to_s == t && v[o].bytes_per_s == load && v[o].bottleneck == bottleneck) {
      v[o].to_s = t_next;
      return;
    }
    open_[l] = static_cast<uint32_t>(v.size());
    v.push_back({l, t, t_next, load, bottleneck});
  }
  std::vector<uint32_t> open_, limits_;
  uint32_t epoch_ = 0;
  const FlowSet& s_;
  CompletionTrace* t_;
  std::vector<double> load_, cur_s_, best_s_;
  std::vector<uint32_t> used_, cur_link_;
};

}  // namespace

Completion complete_eager(const FlowSet& s, MaxMinSolver& solver, CompletionTrace* trace) {
  const size_t n = s.flows();
  Completion c;
  c.finish_s.assign(n, 0);
  c.link_bytes.assign(s.links(), 0);
  if (n == 0) return c;
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  auto start = [&](uint32_t f) { return s.flow_start_s.empty() ? 0.0 : s.flow_start_s[f]; };
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return start(a) < start(b); });
  std::vector<double> rem(s.flow_size_bytes.begin(), s.flow_size_bytes.end());
  if (rem.size() != n) throw std::invalid_argument("flow_size_bytes must have one entry per flow");
  std::vector<double> rates(n, 0);
  std::vector<uint32_t> active, still;
  size_t next = 0;
  Tracer tracer(s, trace);
  double t = start(order[0]);
  c.first_s = t;
  while (next < n || !active.empty()) {
    if (active.empty()) t = std::max(t, start(order[next]));
    while (next < n && start(order[next]) <= t) {
      const uint32_t f = order[next++];
      if (rem[f] <= 0) {
        c.finish_s[f] = t;  // empty flow: done on arrival
      } else {
        active.push_back(f);
      }
    }
    if (active.empty()) continue;
    solver.solve(s, active, rates);
    ++c.solves;
    c.flows_solved += active.size();
    double dt = std::numeric_limits<double>::infinity();
    for (uint32_t f : active) dt = std::min(dt, rem[f] / rates[f]);
    // Rounding can leave a flow a few bytes below zero after a step that did not count it done;
    // it finishes now (dt 0), never at a negative step, which would repeat forever.
    dt = std::max(dt, 0.0);
    const bool arrival_first = next < n && start(order[next]) < t + dt;
    const double t_next = arrival_first ? start(order[next]) : t + dt;
    const double step = t_next - t;
    tracer.step(active, rates, solver, t, t_next);
    still.clear();
    for (uint32_t f : active) {
      const double r = rates[f];
      const bool done = !arrival_first && (rem[f] <= 0 || rem[f] / r <= dt * (1 + 1e-12));
      const double moved = done ? rem[f] : (std::isinf(r) ? rem[f] : r * step);
      for (uint32_t i = s.flow_offsets[f]; i < s.flow_offsets[f + 1]; ++i) c.link_bytes[s.flow_links[i]] += moved;
      if (done) {
        rem[f] = 0;
        c.finish_s[f] = t_next;
      } else {
        rem[f] -= moved;
        still.push_back(f);
      }
    }
    active.swap(still);
    t = t_next;
  }
  c.makespan_s = t;
  tracer.finish();
  return c;
}

}  // namespace floorsim::fabric::test
