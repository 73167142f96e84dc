// complete()'s lazy event loop (issue 25) against the eager reference (eager_completion.hpp):
// every flow stepped and re-solved from scratch at every event. Lazy progress keeps a flow's
// finish time as an absolute time, so the two agree to rounding, not bit for bit: 1e-9
// relative on every figure flows.csv, links.csv and links_over_time.csv print.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "eager_completion.hpp"
#include "fabric/maxmin.hpp"
#include "fabric/routing.hpp"
#include "fabric/traffic.hpp"
#include "same_completion.hpp"

using namespace floorsim::fabric;

namespace {

constexpr double kRel = 1e-9;

bool close(double a, double b, double scale) { return std::abs(a - b) <= kRel * std::max({std::abs(a), std::abs(b), scale}); }

// A link's load at time x from sorted segments (0 outside them).
double load_at(const std::vector<LinkSegment>& v, uint32_t link, double x) {
  auto it = std::lower_bound(v.begin(), v.end(), link, [](const LinkSegment& g, uint32_t l) { return g.link < l; });
  for (; it != v.end() && it->link == link; ++it)
    if (it->from_s <= x && x < it->to_s) return it->bytes_per_s;
  return 0;
}

void check_matches_eager(const FlowSet& fs) {
  MaxMinSolver s1, s2;
  CompletionTrace lazy_t, ref_t;
  const auto lazy = complete(fs, s1, &lazy_t);
  const auto ref = test::complete_eager(fs, s2, &ref_t);
  const double span = ref.makespan_s;
  REQUIRE(close(lazy.makespan_s, ref.makespan_s, 0));
  CHECK(lazy.first_s == ref.first_s);
  REQUIRE(lazy.finish_s.size() == ref.finish_s.size());
  for (size_t f = 0; f < ref.finish_s.size(); ++f) {
    INFO("flow " << f);
    CHECK(close(lazy.finish_s[f], ref.finish_s[f], span));
  }
  double most = 0;
  for (double b : ref.link_bytes) most = std::max(most, b);
  std::vector<double> solid_peak(fs.links(), 0);
  for (const auto& g : ref_t.link_segments)
    if (g.to_s - g.from_s > span * 1e-6) solid_peak[g.link] = std::max(solid_peak[g.link], g.bytes_per_s);
  for (size_t l = 0; l < ref.link_bytes.size(); ++l) {
    INFO("link " << l);
    CHECK(close(lazy.link_bytes[l], ref.link_bytes[l], most));
    // The peak: the eager loop can hold a load for one ulp of time (an arrival a rounding
    // error before a departure) that the tie window merges away; between its peak over
    // segments that last and its peak over all.
    INFO("peak " << lazy_t.link_peak_bytes_per_s[l] << " vs " << ref_t.link_peak_bytes_per_s[l]);
    CHECK(lazy_t.link_peak_bytes_per_s[l] <= ref_t.link_peak_bytes_per_s[l] * (1 + kRel));
    CHECK(lazy_t.link_peak_bytes_per_s[l] >= solid_peak[l] * (1 - kRel));
    CHECK(close(lazy_t.link_saturated_s[l], ref_t.link_saturated_s[l], span));
  }
  // The load over time: equal at the middle of every segment either side drew, and each
  // side's segments carry the link's bytes.
  for (const auto* v : {&ref_t.link_segments, &lazy_t.link_segments})
    for (const auto& g : *v) {
      if (!(g.to_s - g.from_s > span * 1e-6)) continue;  // a sliver: its middle is rounding's
      const double mid = 0.5 * (g.from_s + g.to_s);
      INFO("link " << g.link << " at " << mid);
      CHECK(close(load_at(lazy_t.link_segments, g.link, mid), load_at(ref_t.link_segments, g.link, mid), 0));
    }
  std::vector<double> seg_bytes(fs.links(), 0);
  for (const auto& g : lazy_t.link_segments) seg_bytes[g.link] += g.bytes_per_s * (g.to_s - g.from_s);
  for (size_t l = 0; l < fs.links(); ++l) CHECK(std::abs(seg_bytes[l] - lazy.link_bytes[l]) <= 1e-6 * std::max(most, 1.0));
  // A flow's bottleneck is the link that limited it longest: the same link unless two
  // stretches tie to rounding.
  size_t same = 0;
  for (size_t f = 0; f < fs.flows(); ++f) same += lazy_t.flow_bottleneck[f] == ref_t.flow_bottleneck[f];
  CHECK(same + fs.flows() / 50 >= fs.flows());
  // Repeatable: a second run gives the same bytes.
  CompletionTrace again_t;
  const auto again = complete(fs, s1, &again_t);
  CHECK(again.finish_s == lazy.finish_s);
  CHECK(again.link_bytes == lazy.link_bytes);
  CHECK(again_t.link_segments.size() == lazy_t.link_segments.size());
}

// Flows over 1..4 random distinct links, some with none (unconstrained) or no bytes; sizes and
// capacities drawn from a few values (ties on purpose), `jitter`: a few ulps apart.
FlowSet random_set(uint64_t seed, bool jitter) {
  std::mt19937_64 rng(seed * 7919 + 13);
  FlowSet fs;
  const uint32_t links = 3 + static_cast<uint32_t>(rng() % 30), flows = 1 + static_cast<uint32_t>(rng() % 250);
  auto ulps = [&] { return jitter ? 1 + 2e-16 * static_cast<double>(rng() % 16) : 1.0; };
  for (uint32_t l = 0; l < links; ++l) {
    fs.link_capacity_bytes_per_s.push_back(5e8 * static_cast<double>(1 + rng() % 6) * ulps());
    fs.link_tier.push_back(0);
  }
  fs.flow_offsets.push_back(0);
  for (uint32_t f = 0; f < flows; ++f) {
    const uint32_t len = rng() % 40 == 0 ? 0 : 1 + static_cast<uint32_t>(rng() % std::min(4u, links));
    std::vector<uint32_t> path;
    while (path.size() < len) {
      const auto l = static_cast<uint32_t>(rng() % links);
      if (std::find(path.begin(), path.end(), l) == path.end()) path.push_back(l);
    }
    fs.flow_links.insert(fs.flow_links.end(), path.begin(), path.end());
    fs.flow_offsets.push_back(static_cast<uint32_t>(fs.flow_links.size()));
    fs.flow_size_bytes.push_back(rng() % 50 == 0 ? 0.0 : 2.5e8 * static_cast<double>(1 + rng() % 6) * ulps());
    fs.flow_start_s.push_back(seed % 3 == 0 ? 0.0 : 0.25 * static_cast<double>(rng() % 12));
  }
  return fs;
}

}  // namespace

TEST_CASE("lazy completion matches the eager reference on random flow sets", "[fabric][completion]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    check_matches_eager(random_set(seed, false));
  }
}

TEST_CASE("lazy completion matches the eager reference at near ties", "[fabric][completion]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    check_matches_eager(random_set(seed, true));
  }
}

TEST_CASE("lazy completion matches the eager reference on routed fat-tree traffic", "[fabric][completion]") {
  std::vector<TierSpec> tiers(3, TierSpec{1e9, 0, ""});
  auto t = build_topology("fat_tree", kary_fat_tree(8), tiers);
  apply_taper(t, {1.5, 2.0});
  for (auto pat : {Pattern::Permutation, Pattern::Uniform, Pattern::RingAllReduce})
    for (auto mode : {RoutingMode::DModK, RoutingMode::Ecmp, RoutingMode::Split}) {
      INFO(pattern_name(pat) << " " << routing_name(mode));
      TrafficSpec ts;
      ts.pattern = pat;
      ts.flows_per_host = 2;
      ts.seed = 5;
      check_matches_eager(route_all(t, FailureSet{}, {mode, 5}, make_traffic(t, ts)).set);
    }
}

TEST_CASE("an event brings up to date only the flows whose rate it changed", "[fabric][completion]") {
  // k=8 uniform traffic, all at once: every departure changes the rates of a few flows, while
  // stepping every flow at every event would touch the active flows each time.
  std::vector<TierSpec> tiers(3, TierSpec{1e9, 0, ""});
  const auto t = build_topology("fat_tree", kary_fat_tree(8), tiers);
  TrafficSpec ts;
  ts.pattern = Pattern::Uniform;
  ts.flows_per_host = 3;
  ts.seed = 2;
  const auto set = route_all(t, FailureSet{}, {RoutingMode::DModK, 2}, make_traffic(t, ts)).set;
  MaxMinSolver s1, s2;
  const auto lazy = complete(set, s1);
  const auto ref = test::complete_eager(set, s2);
  CHECK(lazy.rate_changes >= set.flows());  // every flow gets its first rate
  CHECK(lazy.rate_changes * 4 < ref.flows_solved);
}

TEST_CASE("a scratch kept between runs gives what fresh buffers give, bit for bit", "[fabric][completion]") {
  // One CompletionScratch through sets of different sizes (a larger one before a smaller, and
  // back): nothing a run leaves in it (link counts, epochs, the solver's arrays) may reach the
  // next run's figures. The sign-off pack runs every completion through one.
  CompletionScratch kept;
  std::vector<TierSpec> tiers(3, TierSpec{1e9, 0, ""});
  const auto t = build_topology("fat_tree", kary_fat_tree(8), tiers);
  std::vector<FlowSet> sets;
  for (uint64_t seed : {4u, 1u, 9u}) sets.push_back(random_set(seed, seed == 9));
  TrafficSpec ts;
  ts.pattern = Pattern::Uniform;
  ts.flows_per_host = 2;
  sets.push_back(route_all(t, FailureSet{}, {RoutingMode::DModK, 1}, make_traffic(t, ts)).set);
  FailureSet core;
  fail_switch(t, core, 3, 0);
  sets.push_back(route_all(t, core, {RoutingMode::DModK, 1}, make_traffic(t, ts)).set);
  sets.push_back(random_set(5, false));
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < sets.size(); ++i) {
      INFO("pass " << pass << " set " << i);
      MaxMinSolver fresh;
      CompletionTrace a_t, b_t;
      const auto a = complete(sets[i], kept, &a_t);
      const auto b = complete(sets[i], fresh, &b_t);
      test::check_same_figures(a, a_t, b, b_t);
      CHECK(a.solves == b.solves);
      CHECK(a.flows_solved == b.flows_solved);
      CHECK(a.rate_changes == b.rate_changes);
      const auto c = complete(sets[i], kept);  // without a trace, through the same scratch
      CHECK(c.finish_s == b.finish_s);
    }
}
