// Conformance group 12 of spec kueue §9: fair sharing (PR/preemption_fair_test.go and
// S/scheduler_fs_test.go), on the pure preemption search and the admission cycle.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "schedulers/kueue/core.hpp"

using namespace floorsim::kueue;

namespace {

struct FsFixture {
  Model m;
  AdmittedSet adm;
  Preemption pre;
  std::map<std::string, NodeId> node;
  std::map<uint32_t, std::string> names;
  uint32_t uid = 1;
  std::map<std::string, int> count;

  explicit FsFixture(double a_weight = 1) {
    m.fair_sharing = true;
    NodeId root = m.tree.add_cohort("all");
    for (const char* n : {"a", "b", "c", "preemptible"}) {
      NodeId q = m.tree.add_cq(n);
      m.tree.set_quota(q, 0, std::string(n) == "preemptible" ? 0 : 3);
      m.tree.set_parent(q, root);
      node[n] = q;
    }
    REQUIRE(m.tree.finalize());
    m.cq.assign(m.tree.size(), CqConfig{});
    for (auto& [n, q] : node) {
      m.cq[q].groups = {ResourceGroup{{0}, {0}}};
      m.cq[q].preemption.within = Policy::LowerPriority;
      m.cq[q].preemption.reclaim = Policy::Any;
    }
    m.cq[node["a"]].fair_weight = a_weight;
    adm.reset(m.tree.size());
  }
  // n one-cpu workloads in CQ q, named q1..qn.
  void fill(const std::string& q, int n) {
    for (int i = 0; i < n; ++i) {
      Admitted a;
      a.uid = uid++;
      a.key = a.uid;
      a.cq = node.at(q);
      a.usage.add(0, 1);
      a.reserved_s = 0;
      adm.insert(a);
      m.tree.add(a.cq, a.usage);
      names[a.key] = q + std::to_string(++count[q]);
    }
  }
  std::set<std::string> incoming(const std::string& q, Qty cpu) {
    Preemptor in;
    in.cq = node.at(q);
    in.uid = 999;
    in.queue_ts = 100;
    in.usage.add(0, cpu);
    in.need = fr_bit(0);
    std::vector<Target> t;
    const auto before = m.tree.usage_array();
    pre.fair_targets(m, m.tree, adm, in, t);
    REQUIRE(m.tree.usage_array() == before);
    std::set<std::string> out;
    for (const auto& x : t) out.insert(names.at(adm[x.slot].key));
    return out;
  }
};

using S = std::set<std::string>;

}  // namespace

TEST_CASE("kueue §9.12 fair preemption: reclaim within nominal", "[kueue][conformance][fairsharing]") {
  FsFixture f;
  f.fill("a", 3);
  f.fill("b", 5);
  f.fill("c", 1);
  // b has the highest share; c is within nominal, so it takes b's next candidate.
  CHECK(f.incoming("c", 1) == S{"b1"});
}

TEST_CASE("kueue §9.12 fair preemption: S2-a share_pre <= share_target_after (111 <= 111)", "[kueue][conformance][fairsharing]") {
  FsFixture f;
  f.fill("a", 3);
  f.fill("b", 5);
  f.fill("c", 1);
  const NodeId a = f.node["a"], b = f.node["b"];
  Usage one;
  one.add(0, 1);
  CHECK(dominant_resource_share(f.m, f.m.tree, a, &one) == 111);  // 1 borrowed of 9 lendable
  CHECK(dominant_resource_share(f.m, f.m.tree, b) == 222);
  CHECK(f.incoming("a", 1) == S{"b1"});
}

TEST_CASE("kueue §9.12 fair preemption: no victim when it would invert the shares", "[kueue][conformance][fairsharing]") {
  FsFixture f;
  f.fill("a", 3);
  f.fill("b", 5);
  CHECK(f.incoming("a", 2).empty());
}

TEST_CASE("kueue §9.12 fair preemption: weight 2 takes two victims", "[kueue][conformance][fairsharing]") {
  FsFixture f(2);
  f.fill("a", 3);
  f.fill("b", 6);
  CHECK(f.incoming("a", 2) == S{"b1", "b2"});
}

TEST_CASE("kueue §9.12 fair sharing admission: lowest share first", "[kueue][conformance][fairsharing]") {
  Model m;
  m.fair_sharing = true;
  NodeId eng = m.tree.add_cohort("eng");
  NodeId alpha = m.tree.add_cq("eng-alpha");
  NodeId beta = m.tree.add_cq("eng-beta");
  NodeId shared = m.tree.add_cq("eng-shared");
  for (NodeId q : {alpha, beta, shared}) m.tree.set_parent(q, eng);
  m.tree.set_quota(alpha, 0, 50);
  m.tree.set_quota(beta, 0, 50);
  m.tree.set_quota(shared, 0, 10);
  REQUIRE(m.tree.finalize());
  m.cq.assign(m.tree.size(), CqConfig{});
  for (NodeId q : {alpha, beta, shared}) m.cq[q].groups = {ResourceGroup{{0}, {0}}};
  Core c(m, CoreSettings{}, 16);
  Usage u50, u55;
  u50.add(0, 50);
  u55.add(0, 55);
  c.assume_admitted(1, alpha, 0, 0, 1, u50, 0);
  c.assume_admitted(2, beta, 0, 0, 2, u55, 0);
  Request r1{}, r5{};
  r1[0] = 1;
  r5[0] = 5;
  c.enqueue(3, beta, 0, 1, 3, r1);   // older
  c.enqueue(4, alpha, 0, 2, 4, r5);  // share 45 < beta's 54
  std::vector<CycleRecord> rec;
  std::vector<Core::Eviction> ev;
  c.cycle(10, nullptr, rec, ev);
  REQUIRE(rec.size() == 2);
  CHECK(rec[0].key == 4);
  CHECK(rec[0].outcome == Outcome::Admitted);
  CHECK(rec[1].key == 3);
  CHECK(rec[1].outcome != Outcome::Admitted);
}
