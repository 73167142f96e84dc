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

  // The smallest share by a min-heap of (share, position). A freeze at level m only raises the
  // shares of the links it touches (m is at most their share and becomes their floor), so a
  // link keeps one entry whose key is a lower bound of its share (key_), and is re-pushed at
  // its share only when that entry reaches the top stale, not at every change; a change that
  // rounding makes a lowering is pushed at once. A valid top is then the minimum: the same
  // rounds as scanning every live link each round (shares recomputed by the same formula; a
  // round takes every link at the minimum, in link id order), with far fewer heap operations.
  // live_ holds the round marks and next_live_ the links a round changed.
  using Entry = std::pair<double, uint32_t>;
  heap_.clear();
  key_.resize(nt);
  auto& mark_ = live_;
  auto& changed_ = next_live_;
  for (uint32_t k = 0; k < nt; ++k) {
    share_[k] = std::max(remaining_[k] / unfrozen_[k], floor_[k]);
    key_[k] = share_[k];
    heap_.push_back({share_[k], k});
  }
  // By share only: entries of equal share are all taken in the same round whatever their order
  // (and hit_ is sorted by link id), so the link position never needs comparing.
  const auto later = [](const Entry& a, const Entry& b) { return a.first > b.first; };
  std::make_heap(heap_.begin(), heap_.end(), later);
  auto push = [&](uint32_t k) {
    key_[k] = share_[k];
    heap_.push_back({share_[k], k});
    std::push_heap(heap_.begin(), heap_.end(), later);
  };
  auto pop = [&] {
    const Entry e = heap_.front();
    std::pop_heap(heap_.begin(), heap_.end(), later);
    heap_.pop_back();
    return e;
  };
  // A popped entry: valid (the link at its share), or dropped; a link's lowest entry found
  // stale is re-pushed at its share.
  auto valid_after_pop = [&](const Entry& e) {
    if (unfrozen_[e.second] <= 0) return false;
    if (e.first == share_[e.second]) return true;
    if (e.first == key_[e.second]) push(e.second);
    return false;
  };
  mark_.assign(nt, 0);
  uint32_t epoch = 0;
  while (!heap_.empty()) {
    const Entry top = heap_.front();
    if (unfrozen_[top.second] <= 0 || top.first != share_[top.second]) {
      valid_after_pop(pop());
      continue;
    }
    ++rounds_;
    ++epoch;
    const double m = top.first;
    hit_.clear();
    while (!heap_.empty() && heap_.front().first == m) {
      const Entry e = pop();
      if (valid_after_pop(e) && mark_[e.second] != epoch) {
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
      if (share_[pk] < key_[pk]) push(pk);  // rounding lowered it: the entry must stay a lower bound
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
