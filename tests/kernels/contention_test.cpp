#include <omp.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "kernels/contention.hpp"
#include "kernels/fat_tree_gen.hpp"
#include "kernels_test_util.hpp"

using namespace floorsim;
using namespace floorsim::kernels;
using kernels::test::max_rel_diff;
using kernels::test::rel_eq;

namespace {

// spec fabric §3 hand case: A = 1, B = 2 GB/s; f1 on A (0.5 GB), f2 on A+B, f3, f4 on B (1 GB).
fabric::FlowSet hand_case() {
  fabric::FlowSet fs;
  fs.link_capacity_bytes_per_s = {1e9, 2e9};
  fs.link_tier = {0, 1};
  fs.flow_offsets = {0};
  gen::add_flow(fs, {0}, 0.5e9, 0);
  gen::add_flow(fs, {0, 1}, 1e9, 0);
  gen::add_flow(fs, {1}, 1e9, 0);
  gen::add_flow(fs, {1}, 1e9, 0);
  return fs;
}

void check_hand(const ContentionResults& r) {
  // Static rates: A shared by f1, f2 -> 0.5 each; B: f2 frozen at 0.5, f3 = f4 = 0.75.
  REQUIRE(r.flow_rate_bytes_per_s.size() == 4);
  CHECK(rel_eq(r.flow_rate_bytes_per_s[0], 0.5e9));
  CHECK(rel_eq(r.flow_rate_bytes_per_s[1], 0.5e9));
  CHECK(rel_eq(r.flow_rate_bytes_per_s[2], 0.75e9));
  CHECK(rel_eq(r.flow_rate_bytes_per_s[3], 0.75e9));
  CHECK(rel_eq(r.flow_completion_s[0], 1.0));
  CHECK(rel_eq(r.flow_completion_s[1], 1.625));
  CHECK(rel_eq(r.flow_completion_s[2], 1.375));
  CHECK(rel_eq(r.flow_completion_s[3], 1.375));
  CHECK(rel_eq(r.slowest_completion_s[0], 1.625));
  CHECK(r.slowest_flow[0] == 1);
  CHECK(rel_eq(r.min_rate_bytes_per_s[0], 0.5e9));
  REQUIRE(r.tiers == 2);
  CHECK(rel_eq(r.tier_utilisation[0], 1.0));  // A carries 1 GB/s of 1
  CHECK(rel_eq(r.tier_utilisation[1], 1.0));  // B carries 0.5 + 0.75 + 0.75 of 2
}

template <class T>
bool bytes_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

}  // namespace

TEST_CASE("hand case of spec fabric §3: reference and OMP batch", "[kernels][contention]") {
  ContentionBatch b;
  b.add(hand_case());
  check_hand(contention_reference(b));
  check_hand(omp::batch_contention(b));
}

TEST_CASE("every scenario of a batch is solved independently", "[kernels][contention]") {
  // The hand case between two different scenarios must give the same answer in every slot.
  ContentionBatch b;
  std::vector<fabric::FlowSet> keep;
  kernels::test::random_batch(3, 11, &keep);
  b.add(keep[0]);
  b.add(hand_case());
  b.add(keep[1]);
  b.add(hand_case());
  const auto r = omp::batch_contention(b);
  for (int slot : {1, 3}) {
    ContentionResults one;
    one.tiers = r.tiers;
    const uint32_t f0 = b.flow_offsets[slot];
    one.flow_rate_bytes_per_s.assign(r.flow_rate_bytes_per_s.begin() + f0, r.flow_rate_bytes_per_s.begin() + f0 + 4);
    one.flow_completion_s.assign(r.flow_completion_s.begin() + f0, r.flow_completion_s.begin() + f0 + 4);
    one.slowest_completion_s = {r.slowest_completion_s[slot]};
    one.slowest_flow = {r.slowest_flow[slot]};
    one.min_rate_bytes_per_s = {r.min_rate_bytes_per_s[slot]};
    one.tier_utilisation.assign(r.tier_utilisation.begin() + slot * r.tiers,
                                r.tier_utilisation.begin() + slot * r.tiers + 2);
    one.tiers = 2;
    check_hand(one);
  }
}

TEST_CASE("OMP batch equals the scalar reference on random fat-tree scenarios", "[kernels][contention]") {
  const auto b = kernels::test::random_batch(60, 2026);
  const auto ref = contention_reference(b);
  const auto got = omp::batch_contention(b);
  CHECK(max_rel_diff(got.flow_rate_bytes_per_s, ref.flow_rate_bytes_per_s) < 1e-9);
  CHECK(max_rel_diff(got.flow_completion_s, ref.flow_completion_s) < 1e-9);
  CHECK(max_rel_diff(got.slowest_completion_s, ref.slowest_completion_s) < 1e-9);
  CHECK(max_rel_diff(got.min_rate_bytes_per_s, ref.min_rate_bytes_per_s) < 1e-9);
  CHECK(max_rel_diff(got.tier_utilisation, ref.tier_utilisation) < 1e-9);
  CHECK(got.slowest_flow == ref.slowest_flow);
}

TEST_CASE("max-min invariants: capacity respected and every flow has a bottleneck", "[kernels][contention]") {
  std::vector<fabric::FlowSet> sets;
  const auto b = kernels::test::random_batch(30, 7, &sets);
  const auto r = omp::batch_contention(b);
  for (size_t s = 0; s < sets.size(); ++s) {
    const auto& fs = sets[s];
    const double* rate = r.flow_rate_bytes_per_s.data() + b.flow_offsets[s];
    std::vector<double> load(fs.links(), 0.0), top(fs.links(), 0.0);
    for (size_t f = 0; f < fs.flows(); ++f)
      for (uint32_t i = fs.flow_offsets[f]; i < fs.flow_offsets[f + 1]; ++i) {
        load[fs.flow_links[i]] += rate[f];
        top[fs.flow_links[i]] = std::max(top[fs.flow_links[i]], rate[f]);
      }
    for (size_t l = 0; l < fs.links(); ++l)
      REQUIRE(load[l] <= fs.link_capacity_bytes_per_s[l] * (1 + 1e-9));
    for (size_t f = 0; f < fs.flows(); ++f) {
      bool bottleneck = false;  // a saturated link on which nobody has a higher rate
      for (uint32_t i = fs.flow_offsets[f]; i < fs.flow_offsets[f + 1]; ++i) {
        const uint32_t l = fs.flow_links[i];
        const double c = fs.link_capacity_bytes_per_s[l];
        if (load[l] >= c * (1 - 1e-9) && top[l] <= rate[f] * (1 + 1e-9)) bottleneck = true;
      }
      REQUIRE(bottleneck);
    }
  }
}

TEST_CASE("batch results do not depend on the thread count", "[kernels][contention][determinism]") {
  const auto b = kernels::test::random_batch(40, 99);
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = omp::batch_contention(b);
  omp_set_num_threads(2);
  const auto two = omp::batch_contention(b);
  omp_set_num_threads(3);  // more threads than this machine's cores: still the same
  const auto three = omp::batch_contention(b);
  omp_set_num_threads(before);
  for (const auto* r : {&two, &three}) {
    CHECK(bytes_equal(one.flow_rate_bytes_per_s, r->flow_rate_bytes_per_s));
    CHECK(bytes_equal(one.flow_completion_s, r->flow_completion_s));
    CHECK(bytes_equal(one.slowest_completion_s, r->slowest_completion_s));
    CHECK(bytes_equal(one.tier_utilisation, r->tier_utilisation));
    CHECK(one.slowest_flow == r->slowest_flow);
  }
}

TEST_CASE("a failed link on a static path: rate 0, never finishes", "[kernels][contention]") {
  fabric::FlowSet fs;
  fs.link_capacity_bytes_per_s = {1e9, 0.0};  // link 1 failed
  fs.link_tier = {0, 1};
  gen::add_flow(fs, {0}, 1e9, 0);
  gen::add_flow(fs, {0, 1}, 1e9, 0);
  ContentionBatch b;
  b.add(fs);
  for (const auto& r : {contention_reference(b), omp::batch_contention(b)}) {
    CHECK(r.flow_rate_bytes_per_s[1] == 0.0);
    CHECK(rel_eq(r.flow_rate_bytes_per_s[0], 1e9));  // the stuck flow takes nothing from link 0
    CHECK(rel_eq(r.flow_completion_s[0], 1.0));
    CHECK(std::isinf(r.flow_completion_s[1]));
    CHECK(std::isinf(r.slowest_completion_s[0]));
    CHECK(r.slowest_flow[0] == 1);
    CHECK(r.min_rate_bytes_per_s[0] == 0.0);
  }
}

TEST_CASE("staggered arrivals re-solve the rates", "[kernels][contention]") {
  // One 1 GB/s link. f0 (1 GB) from 0, f1 (0.5 GB) from 0.5 s: f0 alone moves 0.5 GB by 0.5 s,
  // then both at 0.5 GB/s: f1 done at 1.5 s, f0 has 0 left then too -> both finish at 1.5 s.
  // f2 has no link: unconstrained, done at its start; an empty flow finishes on arrival.
  fabric::FlowSet fs;
  fs.link_capacity_bytes_per_s = {1e9};
  fs.link_tier = {0};
  gen::add_flow(fs, {0}, 1e9, 0.0);
  gen::add_flow(fs, {0}, 0.5e9, 0.5);
  gen::add_flow(fs, {}, 1e9, 0.25);
  gen::add_flow(fs, {0}, 0.0, 0.75);
  ContentionBatch b;
  b.add(fs);
  for (const auto& r : {contention_reference(b), omp::batch_contention(b)}) {
    CHECK(rel_eq(r.flow_completion_s[0], 1.5));
    CHECK(rel_eq(r.flow_completion_s[1], 1.5));
    CHECK(r.flow_completion_s[2] == 0.25);
    CHECK(r.flow_completion_s[3] == 0.75);
    CHECK(std::isinf(r.flow_rate_bytes_per_s[2]));
    CHECK(rel_eq(r.flow_rate_bytes_per_s[0], 1e9 / 3));  // static: three flows on the link
  }
}

TEST_CASE("k=4 fat-tree permutation at full bisection runs every flow at line rate", "[kernels][contention]") {
  // D-mod-K on a shift permutation (dst = src + 4, other pod) is contention-free at 1:1.
  gen::FatTreeSpec spec;
  spec.k = 4;
  fabric::FlowSet fs = gen::fat_tree_links(spec);
  std::mt19937_64 rng(1);
  for (uint32_t h = 0; h < 16; ++h)
    gen::add_flow(fs, gen::fat_tree_route(spec, fs, h, (h + 4) % 16, gen::Routing::DModK, rng), 25e9, 0);
  ContentionBatch b;
  b.add(fs);
  const auto r = omp::batch_contention(b);
  for (double x : r.flow_rate_bytes_per_s) CHECK(rel_eq(x, 25e9));
  CHECK(rel_eq(r.slowest_completion_s[0], 1.0));
  // Per tier, 16 flows use one up and one down link each: all 32 directed links, full.
  for (uint32_t t = 0; t < 3; ++t) CHECK(rel_eq(r.tier_utilisation[t], 1.0));
  // Taper the aggregation uplinks 2:1: the core tier halves every flow's rate.
  spec.agg_taper = 2.0;
  fabric::FlowSet tapered = gen::fat_tree_links(spec);
  tapered.flow_offsets = fs.flow_offsets;
  tapered.flow_links = fs.flow_links;
  tapered.flow_size_bytes = fs.flow_size_bytes;
  tapered.flow_start_s = fs.flow_start_s;
  ContentionBatch bt;
  bt.add(tapered);
  const auto rt = omp::batch_contention(bt);
  for (double x : rt.flow_rate_bytes_per_s) CHECK(rel_eq(x, 12.5e9));
  CHECK(rel_eq(rt.slowest_completion_s[0], 2.0));
}

TEST_CASE("D-mod-K failover routes around a failed uplink", "[kernels][contention]") {
  gen::FatTreeSpec spec;
  spec.k = 4;
  const uint32_t H = 16;
  std::mt19937_64 rng(1);
  fabric::FlowSet healthy = gen::fat_tree_links(spec);
  const auto p = gen::fat_tree_route(spec, healthy, 0, 15, gen::Routing::DModK, rng);
  REQUIRE(p.size() == 6);
  CHECK(p[0] == 0);
  CHECK(p[5] == H + 15);
  spec.failed_links = {p[2]};  // the agg->core link D-mod-K picked
  fabric::FlowSet degraded = gen::fat_tree_links(spec);
  const auto q = gen::fat_tree_route(spec, degraded, 0, 15, gen::Routing::DModK, rng);
  REQUIRE(q.size() == 6);
  CHECK(q != p);
  for (uint32_t l : q) CHECK(degraded.link_capacity_bytes_per_s[l] > 0);
}

TEST_CASE("malformed flow sets are rejected with a message", "[kernels][contention]") {
  fabric::FlowSet fs;
  fs.link_capacity_bytes_per_s = {1e9};
  fs.link_tier = {0};
  gen::add_flow(fs, {3}, 1e9, 0);  // link 3 does not exist
  ContentionBatch b;
  CHECK_THROWS_WITH(b.add(fs), Catch::Contains("out of range"));
  fs.flow_links = {0};
  fs.link_capacity_bytes_per_s = {-1};
  CHECK_THROWS_WITH(b.add(fs), Catch::Contains("capacity"));
  CHECK(b.scenarios() == 0);  // nothing half-added
}

TEST_CASE("empty batch and empty scenario", "[kernels][contention]") {
  ContentionBatch b;
  CHECK(omp::batch_contention(b).slowest_completion_s.empty());
  fabric::FlowSet fs;
  fs.link_capacity_bytes_per_s = {1e9};
  fs.link_tier = {0};
  fs.flow_offsets = {0};
  b.add(fs);
  const auto r = omp::batch_contention(b);
  REQUIRE(r.slowest_completion_s.size() == 1);
  CHECK(r.slowest_completion_s[0] == 0.0);
  CHECK(r.tier_utilisation[0] == 0.0);
}
