#include "fabric/maxmin.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace floorsim::fabric {

void MaxMinSolver::solve(const FlowSet& s, std::vector<double>& rates) {
  const size_t n = s.flows();
  if (all_.size() != n) {
    all_.resize(n);
    std::iota(all_.begin(), all_.end(), 0u);
  }
  solve(s, all_, rates);
}

void MaxMinSolver::solve(const FlowSet& s, std::span<const uint32_t> active, std::vector<double>& rates,
                         std::span<const uint32_t> fixed) {
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  if (rates.size() < s.flows()) rates.resize(s.flows());
  if (link_pos_.size() < s.links()) link_pos_.resize(s.links(), kNone);
  if (frozen_.size() < s.flows()) frozen_.resize(s.flows(), 0);
  if (frozen_link_.size() < s.flows()) frozen_link_.resize(s.flows(), kNoLink);
  rounds_ = 0;

  // Links touched by the active flows, with their unfrozen-flow counts.
  touched_.clear();
  unfrozen_.clear();
  for (uint32_t f : active) {
    frozen_[f] = 0;
    const uint32_t b = s.flow_offsets[f], e = s.flow_offsets[f + 1];
    if (b == e) {  // no fabric link: unconstrained
      rates[f] = std::numeric_limits<double>::infinity();
      frozen_[f] = 1;
      frozen_link_[f] = kNoLink;
      continue;
    }
    for (uint32_t i = b; i < e; ++i) {
      const uint32_t l = s.flow_links[i];
      if (link_pos_[l] == kNone) {
        link_pos_[l] = static_cast<uint32_t>(touched_.size());
        touched_.push_back(l);
        unfrozen_.push_back(0);
      }
      unfrozen_[link_pos_[l]] += 1;
    }
  }
  const size_t nt = touched_.size();
  remaining_.resize(nt);
  share_.resize(nt);
  floor_.assign(nt, -std::numeric_limits<double>::infinity());
  for (size_t k = 0; k < nt; ++k) remaining_[k] = s.link_capacity_bytes_per_s[touched_[k]];
  subtract_fixed(s, fixed, rates);

  // Transpose: touched link -> its active flows.
  lf_off_.assign(nt + 1, 0);
  for (size_t k = 0; k < nt; ++k) lf_off_[k + 1] = lf_off_[k] + static_cast<uint32_t>(unfrozen_[k]);
  lf_fill_.assign(lf_off_.begin(), lf_off_.end() - 1);
  lf_flows_.resize(lf_off_[nt]);
  for (uint32_t f : active)
    for (uint32_t i = s.flow_offsets[f]; i < s.flow_offsets[f + 1]; ++i)
      lf_flows_[lf_fill_[link_pos_[s.flow_links[i]]]++] = f;

  // The smallest share by a min-heap of (share, position), refreshed only for the links whose
  // counters a freeze changed: the same rounds as scanning every live link each round (shares
  // are recomputed by the same formula; a round takes every link at the minimum, in position
  // order), without the scan.
  // live_ holds the round marks and next_live_ the links a round changed.
  using Entry = std::pair<double, uint32_t>;
  std::vector<Entry> heap_;
  heap_.reserve(nt);
  auto& mark_ = live_;
  auto& changed_ = next_live_;
  for (uint32_t k = 0; k < nt; ++k) {
    share_[k] = std::max(remaining_[k] / unfrozen_[k], floor_[k]);
    heap_.push_back({share_[k], k});
  }
  std::make_heap(heap_.begin(), heap_.end(), std::greater<Entry>());
  mark_.assign(nt, 0);
  uint32_t epoch = 0;
  auto valid = [&](const Entry& e) { return unfrozen_[e.second] > 0 && e.first == share_[e.second]; };
  while (!heap_.empty()) {
    if (!valid(heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<Entry>());
      heap_.pop_back();
      continue;
    }
    ++rounds_;
    ++epoch;
    const double m = heap_.front().first;
    hit_.clear();
    while (!heap_.empty() && heap_.front().first == m) {
      const Entry e = heap_.front();
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<Entry>());
      heap_.pop_back();
      if (valid(e) && mark_[e.second] != epoch) {
        mark_[e.second] = epoch;
        hit_.push_back(e.second);
      }
    }
    // A flow on several links of the round is frozen by the one of lowest id (its bottleneck
    // in the trace), whatever order the links were touched in: the same for any active subset.
    std::sort(hit_.begin(), hit_.end(), [&](uint32_t a, uint32_t b) { return touched_[a] < touched_[b]; });
    ++epoch;  // marks below: links whose share changed this round
    changed_.clear();
    for (uint32_t k : hit_) {
      for (uint32_t i = lf_off_[k]; i < lf_off_[k + 1]; ++i) {
        const uint32_t f = lf_flows_[i];
        if (frozen_[f]) continue;
        frozen_[f] = 1;
        frozen_link_[f] = touched_[k];
        rates[f] = m;
        for (uint32_t j = s.flow_offsets[f]; j < s.flow_offsets[f + 1]; ++j) {
          const uint32_t pk = link_pos_[s.flow_links[j]];
          remaining_[pk] -= m;
          unfrozen_[pk] -= 1;
          floor_[pk] = m;
          if (mark_[pk] != epoch) {
            mark_[pk] = epoch;
            changed_.push_back(pk);
          }
        }
      }
    }
    for (uint32_t pk : changed_) {
      if (unfrozen_[pk] <= 0) continue;
      share_[pk] = std::max(remaining_[pk] / unfrozen_[pk], floor_[pk]);
      heap_.push_back({share_[pk], pk});
      std::push_heap(heap_.begin(), heap_.end(), std::greater<Entry>());
    }
  }
  for (uint32_t l : touched_) link_pos_[l] = kNone;  // reset only what we touched
}

void MaxMinSolver::subtract_fixed(const FlowSet& s, std::span<const uint32_t> fixed, const std::vector<double>& rates) {
  if (fixed.empty()) return;
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  // In the order a solve over every flow would have frozen them: by rate, one at a time.
  sorted_fixed_.assign(fixed.begin(), fixed.end());
  std::sort(sorted_fixed_.begin(), sorted_fixed_.end(), [&](uint32_t a, uint32_t b) { return rates[a] < rates[b]; });
  for (uint32_t f : sorted_fixed_)
    for (uint32_t i = s.flow_offsets[f]; i < s.flow_offsets[f + 1]; ++i) {
      const uint32_t pk = link_pos_[s.flow_links[i]];
      if (pk == kNone) continue;
      remaining_[pk] -= rates[f];
      floor_[pk] = rates[f];
    }
}

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

// The active flows on each link, kept as flows arrive and depart, so that an event re-solves
// only the flows whose rates it can change; the rates stay bit for bit those of a solve over
// every active flow (MaxMinSolver::solve's steps, maxmin.hpp):
// - Arrivals: the connected component(s), through shared links, of the flows that arrived and
//   of the links that departing flows left. Progressive filling on one component never reads
//   another's links (a round subtracts its level only on the links of the flows it freezes,
//   and a link's floor is its own last level), so other components keep their rates.
// - Departures only (r = the slowest departed flow's rate): rates come out in non-decreasing
//   round order, and every round below r chose links the departed flows did not cross (their
//   shares were above the level, and a departure only raises them), so a solve without the
//   departed flows repeats those rounds exactly: every flow slower than r keeps its rate. The
//   flows at r or above that share links with the departed ones, directly or through other
//   such flows, are re-solved; the slower flows on their links are passed as fixed, and the
//   solver subtracts them by rate, one at a time, as those early rounds did.
class LinkFlows {
 public:
  explicit LinkFlows(const FlowSet& s)
      : s_(s), on_link_(s.links()), pos_(s.flow_links.size()), owner_(s.flow_links.size()),
        link_seen_(s.links(), 0), flow_seen_(s.flows(), 0) {
    for (uint32_t f = 0; f < s.flows(); ++f)
      for (uint32_t i = s.flow_offsets[f]; i < s.flow_offsets[f + 1]; ++i) owner_[i] = f;
  }
  void add(uint32_t f) {
    for (uint32_t i = s_.flow_offsets[f]; i < s_.flow_offsets[f + 1]; ++i) {
      auto& v = on_link_[s_.flow_links[i]];
      pos_[i] = static_cast<uint32_t>(v.size());
      v.push_back(i);
    }
    seed_flows_.push_back(f);
  }
  // `rate`: the flow's rate until it departed.
  void remove(uint32_t f, double rate) {
    departed_rate_ = std::min(departed_rate_, rate);
    for (uint32_t i = s_.flow_offsets[f]; i < s_.flow_offsets[f + 1]; ++i) {
      const uint32_t l = s_.flow_links[i];
      auto& v = on_link_[l];
      const uint32_t moved = v.back();
      v[pos_[i]] = moved;
      pos_[moved] = pos_[i];
      v.pop_back();
      seed_links_.push_back(l);
    }
  }
  // The active flows that the arrivals and departures since the last call can affect, given
  // the active flows' current rates; fixed() is then the slower flows on their links.
  const std::vector<uint32_t>& affected(const std::vector<double>& rates) {
    ++epoch_;
    out_.clear();
    fixed_.clear();
    stack_.clear();
    const double below = seed_flows_.empty() ? departed_rate_ : -std::numeric_limits<double>::infinity();
    for (uint32_t f : seed_flows_) visit_flow(f);
    for (uint32_t l : seed_links_) visit_link(l);
    while (!stack_.empty()) {
      const uint32_t l = stack_.back();
      stack_.pop_back();
      for (uint32_t i : on_link_[l]) {
        const uint32_t f = owner_[i];
        if (rates[f] >= below) {
          visit_flow(f);
        } else if (flow_seen_[f] != epoch_) {
          flow_seen_[f] = epoch_;
          fixed_.push_back(f);
        }
      }
    }
    seed_flows_.clear();
    seed_links_.clear();
    departed_rate_ = std::numeric_limits<double>::infinity();
    return out_;
  }
  const std::vector<uint32_t>& fixed() const { return fixed_; }

 private:
  void visit_link(uint32_t l) {
    if (link_seen_[l] == epoch_) return;
    link_seen_[l] = epoch_;
    stack_.push_back(l);
  }
  void visit_flow(uint32_t f) {
    if (flow_seen_[f] == epoch_) return;
    flow_seen_[f] = epoch_;
    out_.push_back(f);
    for (uint32_t i = s_.flow_offsets[f]; i < s_.flow_offsets[f + 1]; ++i) visit_link(s_.flow_links[i]);
  }
  const FlowSet& s_;
  std::vector<std::vector<uint32_t>> on_link_;  // by link: occurrence indices into flow_links
  std::vector<uint32_t> pos_, owner_;           // by occurrence: slot in on_link_, flow
  std::vector<uint32_t> link_seen_, flow_seen_;
  uint32_t epoch_ = 0;
  double departed_rate_ = std::numeric_limits<double>::infinity();
  std::vector<uint32_t> seed_flows_, seed_links_, out_, fixed_, stack_;
};

}  // namespace

Completion complete(const FlowSet& s, MaxMinSolver& solver, CompletionTrace* trace, bool incremental) {
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
  LinkFlows lf(s);
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
        lf.add(f);
      }
    }
    if (active.empty()) continue;
    const auto& affected = lf.affected(rates);
    const std::span<const uint32_t> solved = incremental ? std::span<const uint32_t>(affected) : active;
    solver.solve(s, solved, rates, incremental ? std::span<const uint32_t>(lf.fixed()) : std::span<const uint32_t>());
    ++c.solves;
    c.flows_solved += solved.size();
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
        lf.remove(f, r);
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

DurationStats duration_stats(std::vector<double> d) {
  DurationStats s;
  s.count = d.size();
  if (d.empty()) return s;
  std::sort(d.begin(), d.end());
  s.slowest_s = d.back();
  double sum = 0;
  for (double v : d) sum += v;
  s.mean_s = sum / static_cast<double>(d.size());
  const size_t rank = static_cast<size_t>(std::ceil(0.99 * static_cast<double>(d.size())));
  s.p99_s = d[rank == 0 ? 0 : rank - 1];
  return s;
}

}  // namespace floorsim::fabric
