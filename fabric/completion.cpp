// Flow completion times under max-min sharing with arrivals and departures (maxmin.hpp's
// complete()): an event-driven loop in which an event costs what it changes, not the number of
// active flows.
//
// - Lazy progress: a flow keeps the bytes it had left when its rate last changed and the time
//   of that change; its finish time (that time + those bytes / its rate) sits in a min-heap.
//   An event re-solves only the flows it can affect (LinkFlows), and only the flows whose rate
//   or bottleneck actually changed are brought up to date and re-queued.
// - Lazy trace: a link's load, bottleneck state, saturated time and load segment are
//   recomputed only when one of its flows changed (LazyTracer).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <span>
#include <stdexcept>
#include <utility>

#include "fabric/maxmin.hpp"

namespace floorsim::fabric {

namespace {

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
  // One flat array of slots, each link's as many as flows cross it in the whole set (no
  // vector per link: a k=64 fabric has 786,432 links). The arrays are the caller's (`b`), kept
  // between runs so that a run writes into memory already mapped.
  LinkFlows(const FlowSet& s, LinkFlowBuffers& b)
      : s_(s), b_(b) {
    b_.first.assign(s.links() + 1, 0);
    b_.size.assign(s.links(), 0);
    b_.slots.resize(s.flow_links.size());
    b_.pos.resize(s.flow_links.size());
    b_.owner.resize(s.flow_links.size());
    b_.link_seen.assign(s.links(), 0);
    b_.flow_seen.assign(s.flows(), 0);
    for (auto* v : {&b_.seed_flows, &b_.seed_links, &b_.out, &b_.fixed, &b_.stack}) v->clear();
    for (uint32_t l : s.flow_links) ++b_.first[l + 1];
    for (size_t l = 0; l < s.links(); ++l) b_.first[l + 1] += b_.first[l];
    for (uint32_t f = 0; f < s.flows(); ++f)
      for (uint32_t i = s.flow_offsets[f]; i < s.flow_offsets[f + 1]; ++i) b_.owner[i] = f;
  }
  void add(uint32_t f) {
    for (uint32_t i = s_.flow_offsets[f]; i < s_.flow_offsets[f + 1]; ++i) {
      const uint32_t l = s_.flow_links[i];
      b_.pos[i] = b_.size[l]++;
      b_.slots[b_.first[l] + b_.pos[i]] = i;
    }
    b_.seed_flows.push_back(f);
  }
  // `rate`: the flow's rate until it departed.
  void remove(uint32_t f, double rate) {
    departed_rate_ = std::min(departed_rate_, rate);
    for (uint32_t i = s_.flow_offsets[f]; i < s_.flow_offsets[f + 1]; ++i) {
      const uint32_t l = s_.flow_links[i];
      const uint32_t moved = b_.slots[b_.first[l] + --b_.size[l]];
      b_.slots[b_.first[l] + b_.pos[i]] = moved;
      b_.pos[moved] = b_.pos[i];
      b_.seed_links.push_back(l);
    }
  }
  // The active flows that the arrivals and departures since the last call can affect, given
  // the active flows' current rates; fixed() is then the slower flows on their links.
  const std::vector<uint32_t>& affected(const std::vector<double>& rates) {
    ++epoch_;
    b_.out.clear();
    b_.fixed.clear();
    b_.stack.clear();
    const double below = b_.seed_flows.empty() ? departed_rate_ : -std::numeric_limits<double>::infinity();
    for (uint32_t f : b_.seed_flows) visit_flow(f);
    for (uint32_t l : b_.seed_links) visit_link(l);
    while (!b_.stack.empty()) {
      const uint32_t l = b_.stack.back();
      b_.stack.pop_back();
      for (uint32_t i : on_link(l)) {
        const uint32_t f = b_.owner[i];
        if (rates[f] >= below) {
          visit_flow(f);
        } else if (b_.flow_seen[f] != epoch_) {
          b_.flow_seen[f] = epoch_;
          b_.fixed.push_back(f);
        }
      }
    }
    b_.seed_flows.clear();
    b_.seed_links.clear();
    departed_rate_ = std::numeric_limits<double>::infinity();
    return b_.out;
  }
  const std::vector<uint32_t>& fixed() const { return b_.fixed; }
  // The active flows on link l, as occurrence indices into flow_links (owner() names the flow).
  std::span<const uint32_t> on_link(uint32_t l) const { return {b_.slots.data() + b_.first[l], b_.size[l]}; }
  uint32_t owner(uint32_t occurrence) const { return b_.owner[occurrence]; }

 private:
  void visit_link(uint32_t l) {
    if (b_.link_seen[l] == epoch_) return;
    b_.link_seen[l] = epoch_;
    b_.stack.push_back(l);
  }
  void visit_flow(uint32_t f) {
    if (b_.flow_seen[f] == epoch_) return;
    b_.flow_seen[f] = epoch_;
    b_.out.push_back(f);
    for (uint32_t i = s_.flow_offsets[f]; i < s_.flow_offsets[f + 1]; ++i) visit_link(s_.flow_links[i]);
  }
  const FlowSet& s_;
  LinkFlowBuffers& b_;  // the index and work lists (maxmin.hpp says what each array holds)
  uint32_t epoch_ = 0;
  double departed_rate_ = std::numeric_limits<double>::infinity();
};

// A CompletionTrace kept up to date event by event, touching only the links whose flows
// changed (mark()) and the flows whose bottleneck changed (limit(), depart()). A link's load is
// re-summed from its flows' rates when marked (never by adding differences, which would drift),
// so an unchanged link keeps its open segment exactly as a from-scratch sum would merge it.
class LazyTracer {
 public:
  LazyTracer(const FlowSet& s, CompletionTrace* t) : s_(s), t_(t) {
    if (!t_) return;
    t_->link_segments.clear();
    t_->link_peak_bytes_per_s.assign(s.links(), 0);
    t_->link_saturated_s.assign(s.links(), 0);
    t_->flow_bottleneck.assign(s.flows(), MaxMinSolver::kNoLink);
    open_.assign(s.links(), kNoSegment);
    limiting_.assign(s.links(), 0);
    full_.assign(s.links(), 0);
    full_since_.assign(s.links(), 0);
    marked_.assign(s.links(), 0);
    cur_link_.assign(s.flows(), MaxMinSolver::kNoLink);
    since_s_.assign(s.flows(), 0);
    best_s_.assign(s.flows(), -1);
  }
  bool on() const { return t_ != nullptr; }
  // Flow f's links may carry a different load from now on.
  void mark_flow(uint32_t f) {
    for (uint32_t i = s_.flow_offsets[f]; i < s_.flow_offsets[f + 1]; ++i) {
      const uint32_t l = s_.flow_links[i];
      if (marked_[l]) continue;
      marked_[l] = 1;
      dirty_.push_back(l);
    }
  }
  // Flow f is limited by `link` from time t (`fresh`: it has just arrived).
  void limit(uint32_t f, uint32_t link, double t, bool fresh) {
    if (!fresh) {
      if (link == cur_link_[f]) return;
      close_stretch(f, t);
      if (cur_link_[f] != MaxMinSolver::kNoLink) --limiting_[cur_link_[f]];
    }
    cur_link_[f] = link;
    since_s_[f] = t;
    if (link != MaxMinSolver::kNoLink) ++limiting_[link];
    mark_flow(f);
  }
  void depart(uint32_t f, double t) {
    close_stretch(f, t);
    if (cur_link_[f] != MaxMinSolver::kNoLink) --limiting_[cur_link_[f]];
    mark_flow(f);
  }
  // The marked links' state from time t on (the flows on them and their rates as now).
  void flush(double t, const LinkFlows& lf, const std::vector<double>& rates) {
    for (uint32_t l : dirty_) {
      marked_[l] = 0;
      double load = 0;
      bool used = false;
      for (uint32_t i : lf.on_link(l)) {
        const double r = rates[lf.owner(i)];
        if (std::isinf(r)) continue;
        load += r;
        used = true;
      }
      const bool full = used && load >= s_.link_capacity_bytes_per_s[l] * (1 - 1e-9);
      if (full_[l]) t_->link_saturated_s[l] += t - full_since_[l];
      if (full) full_since_[l] = t;
      full_[l] = full;
      if (used) t_->link_peak_bytes_per_s[l] = std::max(t_->link_peak_bytes_per_s[l], load);
      const bool bottleneck = full && limiting_[l] > 0;
      auto& v = t_->link_segments;
      const uint32_t o = open_[l];
      if (o != kNoSegment) {
        if (used && v[o].bytes_per_s == load && v[o].bottleneck == bottleneck) continue;
        v[o].to_s = t;
        open_[l] = kNoSegment;
      }
      if (!used) continue;
      open_[l] = static_cast<uint32_t>(v.size());
      v.push_back({l, t, t, load, bottleneck});
    }
    dirty_.clear();
  }
  // After the last departure (every link flushed empty): drops the zero-length segments of
  // loads that changed twice at one instant and sorts by link, then time.
  void finish() {
    if (!t_) return;
    auto& v = t_->link_segments;
    v.erase(std::remove_if(v.begin(), v.end(), [](const LinkSegment& g) { return !(g.to_s > g.from_s); }), v.end());
    std::stable_sort(v.begin(), v.end(), [](const LinkSegment& a, const LinkSegment& b) {
      return a.link != b.link ? a.link < b.link : a.from_s < b.from_s;
    });
  }

 private:
  static constexpr uint32_t kNoSegment = ~0u;
  // The flow's stretch under its current bottleneck ends at t; the longest stretch (the first
  // of equal ones) names its bottleneck.
  void close_stretch(uint32_t f, double t) {
    const double len = t - since_s_[f];
    if (len > best_s_[f]) {
      best_s_[f] = len;
      t_->flow_bottleneck[f] = cur_link_[f];
    }
  }
  const FlowSet& s_;
  CompletionTrace* t_;
  std::vector<uint32_t> open_, limiting_, dirty_, cur_link_;  // limiting_: flows it limits now
  std::vector<uint8_t> full_, marked_;
  std::vector<double> full_since_, since_s_, best_s_;
};

// A flow's lazy progress: `left_bytes` at `since_s`, sent at `rate` since then.
struct Progress {
  double left_bytes = 0, since_s = 0, rate = 0, finish_s = 0;
  bool active = false, solved = false;  // solved: has had a rate
};

}  // namespace

Completion complete(const FlowSet& s, MaxMinSolver& solver, CompletionTrace* trace, bool incremental) {
  LinkFlowBuffers links;
  return complete(s, solver, links, trace, incremental);
}

Completion complete(const FlowSet& s, CompletionScratch& scratch, CompletionTrace* trace, bool incremental) {
  return complete(s, scratch.solver, scratch.links, trace, incremental);
}

Completion complete(const FlowSet& s, MaxMinSolver& solver, LinkFlowBuffers& links, CompletionTrace* trace,
                    bool incremental) {
  const size_t n = s.flows();
  Completion c;
  c.finish_s.assign(n, 0);
  c.link_bytes.assign(s.links(), 0);
  LazyTracer tracer(s, trace);
  if (n == 0) return c;
  if (s.flow_size_bytes.size() != n) throw std::invalid_argument("flow_size_bytes must have one entry per flow");
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  auto start = [&](uint32_t f) { return s.flow_start_s.empty() ? 0.0 : s.flow_start_s[f]; };
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return start(a) < start(b); });
  std::vector<Progress> p(n);
  std::vector<double> rates(n, 0);                // the solver's output; p[f].rate the rate in force
  std::vector<uint32_t> active, active_pos(n, 0), arrived;  // active: for from-scratch solves
  using Entry = std::pair<double, uint32_t>;      // (finish_s, flow); stale entries skipped
  std::vector<Entry> heap;
  const auto later = std::greater<Entry>();
  size_t next = 0;
  LinkFlows lf(s, links);
  double t = start(order[0]);
  c.first_s = t;
  while (next < n || !active.empty()) {
    if (active.empty() && start(order[next]) > t) {
      if (tracer.on()) tracer.flush(t, lf, rates);  // the last departures emptied the links
      t = start(order[next]);
    }
    arrived.clear();
    while (next < n && start(order[next]) <= t) {
      const uint32_t f = order[next++];
      if (s.flow_size_bytes[f] <= 0) {
        c.finish_s[f] = t;  // empty flow: done on arrival
        continue;
      }
      active_pos[f] = static_cast<uint32_t>(active.size());
      active.push_back(f);
      arrived.push_back(f);
      lf.add(f);
      p[f] = {s.flow_size_bytes[f], t, 0, 0, true, false};
    }
    if (active.empty()) continue;
    const auto& affected = lf.affected(rates);
    const std::span<const uint32_t> solved = incremental ? std::span<const uint32_t>(affected) : active;
    // A departure that can change no rate (the departed were the fastest on their links, as
    // when equal flows finish in rate order) leaves nothing to solve: skip the solver's set-up
    // (it would still sort the fixed flows). Counted as a solve all the same.
    if (!solved.empty())
      solver.solve(s, solved, rates, incremental ? std::span<const uint32_t>(lf.fixed()) : std::span<const uint32_t>());
    ++c.solves;
    c.flows_solved += solved.size();
    // Only flows whose rate changed move their progress and finish time; a flow re-solved to
    // the same rate (bit for bit) is left as it was, so incremental and from-scratch solves
    // take the same steps.
    for (uint32_t f : solved) {
      Progress& q = p[f];
      const double r = rates[f];
      const bool fresh = !q.solved;
      q.solved = true;
      if (tracer.on()) tracer.limit(f, solver.limiting_link(f), t, fresh);
      if (!fresh && r == q.rate) continue;
      if (!fresh && t > q.since_s) {
        q.left_bytes -= q.rate * (t - q.since_s);
        q.since_s = t;
      }
      q.rate = r;
      // An unconstrained flow (no link) or one rounding left a few bytes short finishes now.
      q.finish_s = std::isinf(r) || q.left_bytes <= 0 ? t : q.since_s + q.left_bytes / r;
      ++c.rate_changes;
      heap.push_back({q.finish_s, f});
      std::push_heap(heap.begin(), heap.end(), later);
      if (tracer.on()) tracer.mark_flow(f);
    }
    if (tracer.on()) tracer.flush(t, lf, rates);
    auto stale = [&](const Entry& e) { return !p[e.second].active || p[e.second].finish_s != e.first; };
    while (!heap.empty() && stale(heap.front())) {
      std::pop_heap(heap.begin(), heap.end(), later);
      heap.pop_back();
    }
    const double t_done = heap.empty() ? std::numeric_limits<double>::infinity() : std::max(heap.front().first, t);
    if (next < n && start(order[next]) < t_done) {
      t = start(order[next]);  // an arrival first: nobody departs
      continue;
    }
    // Every flow finishing within the tie window departs now, in one event: 1e-12 of the step
    // (as bytes left / rate did when every flow was stepped) plus a few ulps of the time
    // itself, the rounding of a finish time kept as an absolute time.
    const double window = t_done + (t_done - t) * 1e-12 + std::abs(t_done) * 8 * DBL_EPSILON;
    while (!heap.empty() && heap.front().first <= window) {
      const auto [fin, f] = heap.front();
      std::pop_heap(heap.begin(), heap.end(), later);
      heap.pop_back();
      Progress& q = p[f];
      if (!q.active || q.finish_s != fin) continue;
      q.active = false;
      c.finish_s[f] = t_done;
      lf.remove(f, q.rate);
      if (tracer.on()) tracer.depart(f, t_done);
      const uint32_t back = active.back();
      active[active_pos[f]] = back;
      active_pos[back] = active_pos[f];
      active.pop_back();
    }
    t = t_done;
  }
  if (tracer.on()) tracer.flush(t, lf, rates);
  c.makespan_s = t;
  // Every flow carried its whole size over each of its links: summed in flow order, so the
  // totals do not depend on the order events touched the flows.
  for (uint32_t f = 0; f < n; ++f)
    for (uint32_t i = s.flow_offsets[f]; i < s.flow_offsets[f + 1]; ++i) c.link_bytes[s.flow_links[i]] += s.flow_size_bytes[f];
  tracer.finish();
  return c;
}

}  // namespace floorsim::fabric
