// Baseline models: exact start times on hand-checked cases.
#include <catch2/catch.hpp>

#include "schedulers/baseline/baseline.hpp"
#include "schedulers/common/placement.hpp"
#include "sim/core/engine.hpp"
#include "tests/sim/test_util.hpp"

using namespace floorsim;
using floorsim::testing::JobBuilder;

namespace {

std::vector<SimTime> starts(Scheduler& s, const Workload& w, const ClusterConfig& cl) {
  Engine e(w, cl, s, EngineConfig{.check_invariants = true});
  e.run();
  std::vector<SimTime> out;
  for (const auto& r : e.runs()) out.push_back(r.first_start_s);
  return out;
}

// One node with 3 GPUs. J4 can backfill under EASY (only the head J2 is protected) and so
// delays J3; conservative backfill protects J3 too.
Workload easy_vs_conservative() {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 100, 2);
  b.add(2, 1, 100, 2);
  b.add(3, 2, 100, 3);
  b.add(4, 3, 1000, 1);
  return w;
}

}  // namespace

TEST_CASE("FIFO, EASY and conservative backfill on the textbook case", "[baseline]") {
  const Workload w = easy_vs_conservative();
  const auto cl = uniform_cluster("n", 1, 3);
  auto fifo = baseline::make_fifo();
  auto easy = baseline::make_easy_backfill();
  auto cons = baseline::make_conservative_backfill();
  CHECK(starts(*fifo, w, cl) == std::vector<SimTime>{0, 100, 200, 300});
  CHECK(starts(*easy, w, cl) == std::vector<SimTime>{0, 100, 1003, 3});
  CHECK(starts(*cons, w, cl) == std::vector<SimTime>{0, 100, 200, 300});
}

TEST_CASE("backfill plans with time limits, not runtimes", "[baseline]") {
  // J1 holds 2 of 4 GPUs, limit 100 but really ends at 20. J2 (4 GPUs) is the head with
  // shadow time 100 (by J1's limit). J3 (2 GPUs, limit 90) ends before 100: backfills at 2.
  // J4 (2 GPUs, limit 120) would not end before the shadow and there are no extra GPUs.
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 20, 2, 100);
  b.add(2, 1, 10, 4, 10);
  b.add(3, 2, 5, 2, 90);
  b.add(4, 3, 5, 2, 120);
  const auto cl = uniform_cluster("n", 1, 4);
  auto easy = baseline::make_easy_backfill();
  const auto s = starts(*easy, w, cl);
  CHECK(s[0] == 0);
  CHECK(s[2] == 2);    // backfilled
  CHECK(s[1] == 20);   // J1 really ends at 20 and J3 at 7: the head starts when both are gone
  CHECK(s[3] == 30);   // J4 waits for the head (no extra GPUs at the shadow time)
}

TEST_CASE("EASY lets a long job use GPUs the head will not need", "[baseline]") {
  // 2 nodes x 4 GPUs. J1 holds node 1 until 100. Head J2 needs 4 GPUs on one node at 100
  // (it fits on node 1 then, or node 2 now -> it starts at once). Make J2 need 6 GPUs spread:
  // at shadow 100 it takes 6 of 8; a 2-GPU job that runs past 100 fits in the extra 2.
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 100, 4);
  b.add(2, 1, 10, 6);
  b.add(3, 2, 500, 2);   // extra GPUs: backfills at 2 although it ends after the shadow
  b.add(4, 3, 500, 2);   // would take GPUs the head needs: waits
  const auto cl = uniform_cluster("n", 2, 4);
  auto easy = baseline::make_easy_backfill();
  const auto s = starts(*easy, w, cl);
  CHECK(s[0] == 0);
  CHECK(s[2] == 2);
  CHECK(s[1] == 100);
  CHECK(s[3] == 110);
}

TEST_CASE("first-fit placement and gang jobs", "[placement]") {
  std::vector<int32_t> free = {2, 8, 8, 4};
  std::vector<NodeShare> p;
  JobSpec j;
  j.gpus = 4;
  REQUIRE(placement::first_fit(j, free, p));
  CHECK(p.size() == 1);
  CHECK(p[0].node == 1);  // first node that holds the whole job
  j.gpus = 20;
  REQUIRE(placement::first_fit(j, free, p));  // spreads greedily when no node holds it
  CHECK(p.size() == 4);
  j.gpus = 16;
  j.nodes = 2;
  REQUIRE(placement::first_fit(j, free, p));  // gang: two nodes with 8 each
  CHECK(p[0].node == 1);
  CHECK(p[1].node == 2);
  j.gpus = 10;
  j.nodes = 2;  // 5 + 5
  REQUIRE(placement::first_fit(j, free, p));
  CHECK((p[0].node == 1 && p[0].gpus == 5 && p[1].node == 2));
  j.gpus = 24;
  j.nodes = 3;
  CHECK_FALSE(placement::first_fit(j, free, p));
  CHECK(p.empty());
}

TEST_CASE("a job never fits on nodes that are down", "[placement]") {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 10, 8);
  b.add(2, 0, 10, 8);
  const auto cl = uniform_cluster("n", 2, 8);
  auto easy = baseline::make_easy_backfill();
  Engine e(w, cl, *easy, EngineConfig{.check_invariants = true});
  e.add_node_events({{0, 1, false}, {50, 1, true}});
  e.run();
  CHECK(e.runs()[0].first_start_s == 0);
  CHECK(e.runs()[1].first_start_s == 10);
}
