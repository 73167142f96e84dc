// Scheduler-cycle conformance cases 9-11 of spec kueue §9 (kueue S/scheduler_test.go), plus
// the queueing rules of spec §3 (StrictFIFO vs BestEffortFIFO, inadmissible retry) and the
// legacy one-borrower-per-cohort rule.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "schedulers/kueue/core.hpp"

using namespace floorsim::kueue;

namespace {

struct Builder {
  Model m;
  std::map<std::string, NodeId> node;
  NodeId cq(const std::string& name, Qty nominal, NodeId parent = kNoNode, Qty bl = kNoLimit, Qty ll = kNoLimit,
            Policy within = Policy::Never, Policy reclaim = Policy::Never) {
    NodeId n = m.tree.add_cq(name);
    m.tree.set_quota(n, 0, nominal, bl, ll);
    if (parent != kNoNode) m.tree.set_parent(n, parent);
    m.cq.resize(n + 1);
    m.cq[n].groups = {ResourceGroup{{0}, {0}}};
    m.cq[n].preemption.within = within;
    m.cq[n].preemption.reclaim = reclaim;
    node[name] = n;
    return n;
  }
  NodeId cohort(const std::string& name, NodeId parent = kNoNode, Qty nominal = 0, Qty ll = kNoLimit) {
    NodeId n = m.tree.add_cohort(name);
    m.tree.set_quota(n, 0, nominal, kNoLimit, ll);
    if (parent != kNoNode) m.tree.set_parent(n, parent);
    m.cq.resize(n + 1);
    node[name] = n;
    return n;
  }
  Core build(CoreSettings s = {}) {
    REQUIRE(m.tree.finalize());
    return Core(m, s, 64);
  }
};

Request cpu(Qty q) {
  Request r{};
  r[0] = q;
  return r;
}
Usage use(Qty q) {
  Usage u;
  u.add(0, q);
  return u;
}

struct Run {
  std::vector<CycleRecord> rec;
  std::vector<Core::Eviction> ev;
  Outcome of(uint32_t key) const {
    Outcome o = Outcome::Inactive;
    for (const auto& r : rec)
      if (r.key == key) o = r.outcome;  // the last record of this key
    return o;
  }
};

Run one_cycle(Core& c, double now = 10) {
  Run r;
  c.cycle(now, nullptr, r.rec, r.ev);
  return r;
}

}  // namespace

TEST_CASE("kueue §9.9 cannot / can borrow if cohort was assigned in the same cycle", "[kueue][conformance]") {
  for (Qty beta_req : {56, 55}) {
    Builder b;
    NodeId eng = b.cohort("eng");
    NodeId alpha = b.cq("eng-alpha", 50, eng, 50);
    NodeId beta = b.cq("eng-beta", 50, eng, 10);
    Core c = b.build();
    c.enqueue(1, alpha, 0, 1, 1, cpu(45));
    c.enqueue(2, beta, 0, 2, 2, cpu(beta_req));
    Run r = one_cycle(c);
    CHECK(r.of(1) == Outcome::Admitted);
    if (beta_req == 56) {
      CHECK(r.of(2) == Outcome::Skipped);  // 55 left in the cohort
    } else {
      CHECK(r.of(2) == Outcome::Admitted);
    }
  }
}

TEST_CASE("kueue legacy rule: one borrowing admission per cohort per cycle", "[kueue]") {
  Builder b;
  NodeId eng = b.cohort("eng");
  NodeId alpha = b.cq("eng-alpha", 50, eng, 50);
  NodeId beta = b.cq("eng-beta", 50, eng, 10);
  CoreSettings s;
  s.legacy_one_borrower_per_cohort = true;
  Core c = b.build(s);
  c.enqueue(1, alpha, 0, 1, 1, cpu(45));
  c.enqueue(2, beta, 0, 2, 2, cpu(55));  // would fit (modern rule admits both)
  Run r = one_cycle(c);
  CHECK(r.of(1) == Outcome::Admitted);
  CHECK(r.of(2) == Outcome::Skipped);
  Run r2 = one_cycle(c);  // next cycle it is alone
  CHECK(r2.of(2) == Outcome::Admitted);
}

TEST_CASE("kueue §9.10 workload exceeds lending limit when borrowing in cohort", "[kueue][conformance]") {
  Builder b;
  NodeId co = b.cohort("lend");
  b.cq("lend-a", 3, co, kNoLimit, 2);
  NodeId lb = b.cq("lend-b", 2, co, kNoLimit, 2);
  Core c = b.build();
  c.assume_admitted(1, lb, 0, 0, 1, use(2), 0);
  c.enqueue(2, lb, 0, 1, 2, cpu(3));
  Run r = one_cycle(c);
  CHECK(r.of(2) == Outcome::NoFit);  // ceiling 4, 2 available
  CHECK(c.tree().available(lb, 0) == 2);
}

TEST_CASE("kueue §9.10 hierarchical cohort respects / allows the lending limit", "[kueue][conformance]") {
  for (Qty ll : {3, 5}) {
    Builder b;
    NodeId root = b.cohort("root");
    NodeId child = b.cohort("child", root);
    b.cq("lender", 10, child, kNoLimit, ll);
    NodeId borrower = b.cq("borrower", 5, child, 10);
    Core c = b.build();
    c.assume_admitted(1, borrower, 0, 0, 1, use(5), 0);
    const Qty want = ll == 3 ? 4 : 5;
    c.enqueue(2, borrower, 0, 1, 2, cpu(want));
    Run r = one_cycle(c);
    if (ll == 3) {
      CHECK(r.of(2) != Outcome::Admitted);
    } else {
      CHECK(r.of(2) == Outcome::Admitted);
    }
  }
}

TEST_CASE("kueue §9.11 capacity blocked / not blocked when the lending CQ has no candidates", "[kueue][conformance]") {
  for (Policy reclaim : {Policy::Any, Policy::LowerPriority}) {
    Builder b;
    NodeId co = b.cohort("co");
    NodeId a = b.cq("A", 2, co, kNoLimit, kNoLimit, Policy::Never, reclaim);
    NodeId bq = b.cq("B", 0, co, kNoLimit, kNoLimit, Policy::Never, reclaim);
    Core c = b.build();
    c.assume_admitted(1, a, 0, 0, 1, use(1), 0);
    c.enqueue(2, a, 0, 1, 2, cpu(2));
    c.enqueue(3, bq, 0, 2, 3, cpu(1));
    Run r = one_cycle(c);
    CHECK(r.of(2) == Outcome::NoCandidates);
    if (reclaim == Policy::Any) {
      CHECK(r.of(3) == Outcome::Admitted);
    } else {
      CHECK(r.of(3) == Outcome::Skipped);  // A reserved its nominal quota for this cycle
    }
    // The reservation lasts one cycle only: nothing stays charged.
    CHECK(c.tree().usage(co, 0) == (reclaim == Policy::Any ? 2 : 1));
  }
}

TEST_CASE("kueue §9.11 hierarchical cohort: workload borrowing less is scheduled first", "[kueue][conformance]") {
  Builder b;
  NodeId root = b.cohort("root");
  NodeId gco = b.cohort("guaranteed-cohort", root, 4);
  NodeId g = b.cq("guaranteed", 0, gco);
  NodeId be = b.cq("best-effort", 0, root);
  Core c = b.build();
  c.enqueue(1, g, 0, 1, 1, cpu(4));
  c.enqueue(2, be, 3, 0, 2, cpu(4));
  Run r = one_cycle(c);
  REQUIRE(r.rec.size() == 2);
  CHECK(r.rec[0].key == 1);
  CHECK(r.rec[0].borrow == 1);
  CHECK(r.rec[1].borrow == 2);
  CHECK(r.of(1) == Outcome::Admitted);
  CHECK(r.of(2) == Outcome::Skipped);
}

TEST_CASE("kueue §3 StrictFIFO head blocks; BestEffortFIFO sets it aside", "[kueue]") {
  for (bool strict : {true, false}) {
    Builder b;
    NodeId q = b.cq("q", 4);
    b.m.cq[q].strict_fifo = strict;
    Core c = b.build();
    c.assume_admitted(1, q, 0, 0, 1, use(2), 0);
    c.enqueue(2, q, 0, 1, 2, cpu(3));  // does not fit
    c.enqueue(3, q, 0, 2, 3, cpu(1));  // would fit
    Run r;
    c.pass(10, nullptr, r.rec, r.ev);
    if (strict) {
      CHECK(r.of(3) == Outcome::Inactive);  // never reached: no record at all
      CHECK(c.tree().usage(q, 0) == 2);
    } else {
      CHECK(r.of(2) == Outcome::NoCandidates);  // within nominal but nothing to preempt
      CHECK(r.of(3) == Outcome::Admitted);       // next cycle, once the head was set aside
      // The inadmissible workload comes back when quota frees in its tree.
      c.release(1);
      Run r2;
      c.pass(20, nullptr, r2.rec, r2.ev);
      CHECK(r2.of(2) == Outcome::Admitted);
    }
  }
}

TEST_CASE("kueue preemptor stays sticky head; victims keep quota until released", "[kueue]") {
  Builder b;
  NodeId q = b.cq("q", 4, kNoNode, kNoLimit, kNoLimit, Policy::LowerPriority);
  Core c = b.build();
  c.assume_admitted(1, q, -1, 0, 1, use(4), 0);
  c.enqueue(2, q, 5, 1, 2, cpu(2));
  Run r;
  c.pass(10, nullptr, r.rec, r.ev);
  REQUIRE(r.ev.size() == 1);
  CHECK(r.ev[0].victim == 1);
  CHECK(r.ev[0].by == 2);
  CHECK(c.is_evicted(1));
  CHECK(c.tree().usage(q, 0) == 4);  // the victim still holds its quota
  Run r2;
  c.pass(11, nullptr, r2.rec, r2.ev);
  CHECK(r2.ev.empty());  // no second eviction of the same victim
  CHECK(r2.of(2) == Outcome::PreemptIssued);
  c.release(1);
  Run r3;
  c.pass(40, nullptr, r3.rec, r3.ev);
  CHECK(r3.of(2) == Outcome::Admitted);
}

TEST_CASE("kueue placement failure leaves a within-quota workload pending", "[kueue]") {
  Builder b;
  NodeId q = b.cq("q", 8);
  Core c = b.build();
  c.enqueue(1, q, 0, 1, 1, cpu(2));
  Run r;
  c.pass(10, [](uint32_t) { return false; }, r.rec, r.ev);
  CHECK(r.of(1) == Outcome::NoNodes);
  CHECK(c.tree().usage(q, 0) == 0);
  CHECK_FALSE(c.is_admitted(1));
  c.retry_waiting_for_nodes();
  Run r2;
  c.pass(20, [](uint32_t) { return true; }, r2.rec, r2.ev);
  CHECK(r2.of(1) == Outcome::Admitted);
}
