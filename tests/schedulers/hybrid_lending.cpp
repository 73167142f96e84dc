// The lending rule of a hybrid cluster (schedulers/hybrid/lending.hpp), table-tested: the idle
// timer, lending only up to the borrower's unmet demand, going home when the borrower has
// nothing pending, and reclaim by drain and by preemption.
#include <catch2/catch.hpp>

#include "schedulers/hybrid/lending.hpp"

using namespace floorsim;
using namespace floorsim::hybrid;

namespace {

// Two Slurm-home nodes (0, 1) and two Kubernetes-home nodes (2, 3), 8 GPUs each.
std::vector<NodeState> four_nodes() {
  std::vector<NodeState> n(4);
  for (size_t i = 0; i < 4; ++i) n[i].home = n[i].holder = i < 2 ? Side::Slurm : Side::Kubernetes;
  return n;
}
const std::vector<int32_t> kCap = {8, 8, 8, 8};
LendParams lending(Reclaim r = Reclaim::Drain) {
  LendParams p;
  p.enabled = true;
  p.lend_after_s = 300;
  p.reclaim = r;
  p.reclaim_grace_s = 60;
  return p;
}
Demand none() { return {}; }
Demand wants(int64_t gpus) { return {true, gpus}; }

}  // namespace

TEST_CASE("hybrid lending: an idle node is lent only after lend_after_s", "[hybrid][lending]") {
  const std::vector<uint8_t> idle = {1, 0, 0, 0};
  auto s0 = lend_step(lending(), 1000, {none(), wants(8)}, idle, kCap, four_nodes());
  CHECK(s0.nodes[0].idle_since_s == 1000);
  CHECK(s0.lent.empty());
  CHECK(s0.wake_s == 1300);  // the timer asks for a pass when it runs out
  auto s1 = lend_step(lending(), 1299, {none(), wants(8)}, idle, kCap, s0.nodes);
  CHECK(s1.lent.empty());
  auto s2 = lend_step(lending(), 1300, {none(), wants(8)}, idle, kCap, s1.nodes);
  REQUIRE(s2.lent == std::vector<NodeIdx>{0});
  CHECK(s2.nodes[0].holder == Side::Kubernetes);
  CHECK(usable_by(s2.nodes[0], Side::Kubernetes));
  CHECK_FALSE(usable_by(s2.nodes[0], Side::Slurm));
}

TEST_CASE("hybrid lending: a busy spell restarts the idle timer", "[hybrid][lending]") {
  auto s0 = lend_step(lending(), 0, {none(), wants(8)}, std::vector<uint8_t>{1, 0, 0, 0}, kCap, four_nodes());
  auto s1 = lend_step(lending(), 200, {none(), wants(8)}, std::vector<uint8_t>{0, 0, 0, 0}, kCap, s0.nodes);
  CHECK(s1.nodes[0].idle_since_s == -1);
  auto s2 = lend_step(lending(), 250, {none(), wants(8)}, std::vector<uint8_t>{1, 0, 0, 0}, kCap, s1.nodes);
  auto s3 = lend_step(lending(), 400, {none(), wants(8)}, std::vector<uint8_t>{1, 0, 0, 0}, kCap, s2.nodes);
  CHECK(s3.lent.empty());  // idle since 250, not 0
  CHECK(s3.wake_s == 550);
}

TEST_CASE("hybrid lending: nothing is lent while the home side has pending work, or to a side without any", "[hybrid][lending]") {
  const std::vector<uint8_t> idle = {1, 1, 0, 0};
  auto a = lend_step(lending(), 0, {none(), wants(8)}, idle, kCap, four_nodes());
  CHECK(lend_step(lending(), 1000, {wants(0), wants(8)}, idle, kCap, a.nodes).lent.empty());
  CHECK(lend_step(lending(), 1000, {none(), none()}, idle, kCap, a.nodes).lent.empty());
  LendParams off = lending();
  off.enabled = false;
  CHECK(lend_step(off, 1000, {none(), wants(8)}, idle, kCap, a.nodes).lent.empty());
}

TEST_CASE("hybrid lending: lends no more than the borrower's unmet demand", "[hybrid][lending]") {
  const std::vector<uint8_t> idle = {1, 1, 0, 0};
  auto a = lend_step(lending(), 0, {none(), wants(4)}, idle, kCap, four_nodes());
  auto b = lend_step(lending(), 300, {none(), wants(4)}, idle, kCap, a.nodes);
  CHECK(b.lent == std::vector<NodeIdx>{0});
  auto c = lend_step(lending(), 300, {none(), wants(9)}, idle, kCap, a.nodes);
  CHECK(c.lent == std::vector<NodeIdx>({0, 1}));
}

TEST_CASE("hybrid lending: an idle borrowed node goes home when the borrower has nothing pending", "[hybrid][lending]") {
  auto n = four_nodes();
  n[0].holder = Side::Kubernetes;
  auto s = lend_step(lending(), 100, {none(), none()}, std::vector<uint8_t>{1, 0, 0, 0}, kCap, n);
  CHECK(s.returned == std::vector<NodeIdx>{0});
  CHECK(s.nodes[0].holder == Side::Slurm);
  // Busy with borrowed work: it stays lent.
  auto t = lend_step(lending(), 100, {none(), none()}, std::vector<uint8_t>{0, 0, 0, 0}, kCap, n);
  CHECK(t.returned.empty());
  CHECK(t.nodes[0].holder == Side::Kubernetes);
}

TEST_CASE("hybrid lending: drain reclaim closes the node, then hands it home when the borrowed work ends", "[hybrid][lending]") {
  auto n = four_nodes();
  n[0].holder = n[1].holder = Side::Kubernetes;
  // Slurm needs 8 GPUs: one busy lent node is reclaimed (node order), not both.
  auto s = lend_step(lending(), 500, {wants(8), wants(2)}, std::vector<uint8_t>{0, 0, 0, 0}, kCap, n);
  CHECK(s.reclaim_started == std::vector<NodeIdx>{0});
  CHECK(s.preempt_now.empty());
  CHECK(s.nodes[0].reclaiming);
  CHECK_FALSE(usable_by(s.nodes[0], Side::Slurm));
  CHECK_FALSE(usable_by(s.nodes[0], Side::Kubernetes));
  CHECK(s.nodes[1].holder == Side::Kubernetes);
  // Still busy: still draining, and the node being reclaimed counts, so no second reclaim.
  auto t = lend_step(lending(), 600, {wants(8), wants(2)}, std::vector<uint8_t>{0, 0, 0, 0}, kCap, s.nodes);
  CHECK(t.reclaim_started.empty());
  CHECK(t.nodes[0].reclaiming);
  // The borrowed job ended: the node is home.
  auto u = lend_step(lending(), 900, {wants(8), wants(2)}, std::vector<uint8_t>{1, 0, 0, 0}, kCap, t.nodes);
  CHECK(u.reclaimed == std::vector<NodeIdx>{0});
  CHECK(usable_by(u.nodes[0], Side::Slurm));
  CHECK_FALSE(u.nodes[0].reclaiming);
}

TEST_CASE("hybrid lending: an idle lent node is reclaimed first, at once", "[hybrid][lending]") {
  auto n = four_nodes();
  n[0].holder = n[1].holder = Side::Kubernetes;
  auto s = lend_step(lending(), 500, {wants(8), wants(2)}, std::vector<uint8_t>{0, 1, 0, 0}, kCap, n);
  CHECK(s.reclaim_started == std::vector<NodeIdx>{1});
  CHECK(s.reclaimed == std::vector<NodeIdx>{1});
  CHECK(usable_by(s.nodes[1], Side::Slurm));
  CHECK(s.nodes[0].holder == Side::Kubernetes);
}

TEST_CASE("hybrid lending: preempt reclaim asks for the borrowed jobs to be requeued", "[hybrid][lending]") {
  auto n = four_nodes();
  n[2].holder = Side::Slurm;  // a Kubernetes node lent to Slurm
  auto s = lend_step(lending(Reclaim::Preempt), 500, {wants(0), wants(8)}, std::vector<uint8_t>{0, 0, 0, 0}, kCap, n);
  CHECK(s.reclaim_started == std::vector<NodeIdx>{2});
  CHECK(s.preempt_now == std::vector<NodeIdx>{2});
  CHECK(s.nodes[2].reclaim_since_s == 500);
  // The next step does not ask again.
  auto t = lend_step(lending(Reclaim::Preempt), 520, {wants(0), wants(8)}, std::vector<uint8_t>{0, 0, 0, 0}, kCap, s.nodes);
  CHECK(t.preempt_now.empty());
}
