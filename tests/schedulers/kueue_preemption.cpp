// Conformance cases 1-8 of spec kueue §9 (kueue PR/preemption_test.go fixture), exercising
// the pure preemption target search and flavor assignment with cpu in generic units.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "schedulers/kueue/model.hpp"

using namespace floorsim::kueue;

namespace {

PreemptionConfig pc(Policy within, Policy reclaim, bool bwc = false, bool thr = false, int32_t t = 0) {
  PreemptionConfig p;
  p.within = within;
  p.reclaim = reclaim;
  p.borrow_within_cohort = bwc;
  p.has_threshold = thr;
  p.threshold = t;
  return p;
}

// The PR/preemption_test.go fixture: one resource (cpu), one flavor (default).
struct Fixture {
  Model m;
  AdmittedSet adm;
  Preemption pre;
  FlavorAssigner fa;
  std::map<std::string, NodeId> node;
  std::map<uint32_t, std::string> names;
  uint32_t next_uid = 1;

  NodeId cq(const std::string& name, Qty nominal, Qty bl = kNoLimit, Qty ll = kNoLimit, PreemptionConfig p = {},
            NodeId parent = kNoNode) {
    NodeId n = m.tree.add_cq(name);
    m.tree.set_quota(n, 0, nominal, bl, ll);
    if (parent != kNoNode) m.tree.set_parent(n, parent);
    if (static_cast<int>(m.cq.size()) <= n) m.cq.resize(n + 1);
    m.cq[n].preemption = p;
    m.cq[n].groups = {ResourceGroup{{0}, {0}}};
    node[name] = n;
    return n;
  }
  NodeId cohort(const std::string& name, NodeId parent = kNoNode, Qty nominal = 0) {
    NodeId n = m.tree.add_cohort(name);
    m.tree.set_quota(n, 0, nominal);
    if (parent != kNoNode) m.tree.set_parent(n, parent);
    if (static_cast<int>(m.cq.size()) <= n) m.cq.resize(n + 1);
    node[name] = n;
    return n;
  }
  void build() {
    m.tree = m.tree;  // no-op; keeps the layout obvious
    REQUIRE(m.tree.finalize());
    m.cq.resize(m.tree.size());
    adm.reset(m.tree.size());
  }
  // Admits a workload named `name` into `cqname` (priority p, cpu q, reserved at time t).
  void admit(const std::string& name, const std::string& cqname, int32_t p, Qty q, double t = 0) {
    Admitted a;
    a.uid = next_uid++;
    a.key = a.uid;
    a.cq = node.at(cqname);
    a.priority = p;
    a.queue_ts = t;
    a.reserved_s = t;
    a.usage.add(0, q);
    adm.insert(a);
    m.tree.add(a.cq, a.usage);
    names[a.key] = name;
  }
  Preemptor incoming(const std::string& cqname, int32_t p, Qty q, double ts = 100) {
    Preemptor in;
    in.cq = node.at(cqname);
    in.priority = p;
    in.queue_ts = ts;
    in.uid = 1000;
    in.usage.add(0, q);
    in.need = fr_bit(0);
    return in;
  }
  // Runs flavor assignment then target selection like the scheduler's nominate step.
  std::set<std::string> targets(const Preemptor& in, std::map<std::string, Reason>* reasons = nullptr,
                                Mode* mode = nullptr) {
    Request req{};
    req[0] = in.usage.qty[0];
    const auto before = m.tree.usage_array();
    Assignment a = fa.assign(m, m.tree, adm, pre, in, req);
    if (mode) *mode = a.mode;
    std::set<std::string> out;
    if (!a.representative_preempt()) return out;
    Preemptor p2 = in;
    p2.usage = a.usage;
    p2.need = a.need_preemption;
    std::vector<Target> t;
    pre.classical_targets(m, m.tree, adm, p2, t);
    REQUIRE(m.tree.usage_array() == before);  // the search leaves the snapshot unchanged
    for (const auto& x : t) {
      out.insert(names.at(adm[x.slot].key));
      if (reasons) (*reasons)[names.at(adm[x.slot].key)] = x.reason;
    }
    return out;
  }
};

// Builds the full preemption_test.go fixture.
void build_fixture(Fixture& f) {
  f.cq("standalone", 6, kNoLimit, kNoLimit, pc(Policy::LowerPriority, Policy::Never));
  NodeId cohort = f.cohort("cohort");
  f.cq("c1", 6, 6, kNoLimit, pc(Policy::LowerPriority, Policy::LowerPriority), cohort);
  f.cq("c2", 6, 6, kNoLimit, pc(Policy::Never, Policy::Any), cohort);
  NodeId lend = f.cohort("cohort-lend");
  f.cq("lend1", 6, kNoLimit, 4, pc(Policy::LowerPriority, Policy::LowerPriority), lend);
  f.cq("lend2", 6, kNoLimit, 2, pc(Policy::LowerPriority, Policy::LowerPriority), lend);
  f.cq("preventStarvation", 6, kNoLimit, kNoLimit, pc(Policy::LowerOrNewerEqualPriority, Policy::Never));
  NodeId shared = f.cohort("with_shared_cq");
  f.cq("a_standard", 1, 12, kNoLimit, pc(Policy::Never, Policy::LowerPriority, true, true, 0), shared);
  f.cq("b_standard", 1, 12, kNoLimit, pc(Policy::LowerPriority, Policy::Any, true, true, 0), shared);
  f.cq("a_best_effort", 1, 12, kNoLimit, pc(Policy::Never, Policy::Never), shared);
  f.cq("b_best_effort", 0, 13, kNoLimit, pc(Policy::Never, Policy::Never), shared);
  f.cq("shared", 10, kNoLimit, kNoLimit, pc(Policy::Never, Policy::Never), shared);
  f.build();
}

using S = std::set<std::string>;

}  // namespace

TEST_CASE("kueue §9.1 preempt lowest priority", "[kueue][conformance]") {
  Fixture f;
  build_fixture(f);
  f.admit("low", "standalone", -1, 2);
  f.admit("mid", "standalone", 0, 2);
  f.admit("high", "standalone", 1, 2);
  std::map<std::string, Reason> r;
  CHECK(f.targets(f.incoming("standalone", 1, 2), &r) == S{"low"});
  CHECK(r["low"] == Reason::InClusterQueue);
}

TEST_CASE("kueue §9.2 minimal set excludes low priority (fill-back)", "[kueue][conformance]") {
  Fixture f;
  build_fixture(f);
  f.admit("low", "standalone", -1, 1);
  f.admit("mid", "standalone", 0, 2);
  f.admit("high", "standalone", 1, 3);
  CHECK(f.targets(f.incoming("standalone", 1, 2)) == S{"mid"});
}

TEST_CASE("kueue §9.3 preempt newer workloads with the same priority", "[kueue][conformance]") {
  Fixture f;
  build_fixture(f);
  const double now = 1000;
  f.admit("wl1", "preventStarvation", 2, 2, now);
  f.admit("wl2", "preventStarvation", 1, 2, now);
  f.admit("wl3", "preventStarvation", 1, 2, now);
  CHECK(f.targets(f.incoming("preventStarvation", 1, 2, now - 15)) == S{"wl2"});
  // The same incoming workload created after them may not preempt them.
  CHECK(f.targets(f.incoming("preventStarvation", 1, 2, now + 15)).empty());
}

TEST_CASE("kueue §9.4 reclaim quota from borrower", "[kueue][conformance]") {
  Fixture f;
  build_fixture(f);
  f.admit("c1-low", "c1", -1, 3);
  f.admit("c2-mid", "c2", 0, 3);
  f.admit("c2-high", "c2", 1, 6);
  std::map<std::string, Reason> r;
  CHECK(f.targets(f.incoming("c1", 1, 3), &r) == S{"c2-mid"});
  CHECK(r["c2-mid"] == Reason::InCohortReclamation);
}

TEST_CASE("kueue §9.5 no reclaim from same priority; ReclaimFromAny", "[kueue][conformance]") {
  {
    Fixture f;
    build_fixture(f);
    f.admit("c1-1", "c1", 0, 2);
    f.admit("c2-1", "c2", 0, 4);
    f.admit("c2-2", "c2", 0, 4);
    CHECK(f.targets(f.incoming("c1", 0, 4)).empty());
  }
  {
    Fixture f;
    build_fixture(f);
    f.admit("c1-p0", "c1", 0, 4);
    f.admit("c1-p1", "c1", 1, 4);
    f.admit("c2", "c2", 0, 2);
    CHECK(f.targets(f.incoming("c2", 0, 4)) == S{"c1-p0"});
  }
}

TEST_CASE("kueue §9.6 reclaim quota from lender", "[kueue][conformance]") {
  Fixture f;
  build_fixture(f);
  f.admit("lend1-low", "lend1", -1, 3);
  f.admit("lend2-mid", "lend2", 0, 3);
  f.admit("lend2-high", "lend2", 1, 4);
  CHECK(f.targets(f.incoming("lend1", 1, 3)) == S{"lend2-mid"});
}

TEST_CASE("kueue §9.7 preempt from all ClusterQueues in cohort-lend; lending limit caps", "[kueue][conformance]") {
  {
    Fixture f;
    build_fixture(f);
    f.admit("lend1-low", "lend1", -1, 3);
    f.admit("lend1-mid", "lend1", 0, 2);
    f.admit("lend2-low", "lend2", -1, 3);
    f.admit("lend2-mid", "lend2", 0, 4);
    CHECK(f.targets(f.incoming("lend1", 0, 4)) == S{"lend2-low", "lend1-low"});
  }
  {
    Fixture f;
    build_fixture(f);
    f.admit("lend2", "lend2", 0, 10);
    const NodeId l1 = f.node.at("lend1");
    CHECK(f.m.tree.potential_available(l1, 0) == 8);  // 2 guaranteed + 6 in the cohort
    Mode mode;
    CHECK(f.targets(f.incoming("lend1", 0, 9), nullptr, &mode).empty());
    CHECK(mode == Mode::NoFit);
  }
}

TEST_CASE("kueue §9.8 borrowWithinCohort with maxPriorityThreshold", "[kueue][conformance]") {
  {  // (a) reclaim while borrowing from a lower-priority borrower
    Fixture f;
    build_fixture(f);
    f.admit("a_be", "a_best_effort", -1, 10);
    f.admit("b_be", "b_best_effort", -1, 1);
    std::map<std::string, Reason> r;
    CHECK(f.targets(f.incoming("a_standard", 0, 10), &r) == S{"a_be"});
    CHECK(r["a_be"] == Reason::InCohortReclaimWhileBorrowing);
  }
  {  // (b) candidate above the threshold: only without borrowing, and the preemptor borrows
    Fixture f;
    build_fixture(f);
    f.admit("b_std", "b_standard", 1, 10);
    CHECK(f.targets(f.incoming("a_standard", 2, 10)).empty());
  }
  {  // (c) preemptor fits in its nominal quota: hierarchical reclaim, threshold irrelevant
    Fixture f;
    build_fixture(f);
    f.admit("b_std", "b_standard", 1, 13);
    std::map<std::string, Reason> r;
    CHECK(f.targets(f.incoming("a_standard", 2, 1), &r) == S{"b_std"});
    CHECK(r["b_std"] == Reason::InCohortReclamation);
  }
}

TEST_CASE("kueue §2 quota arithmetic on the lending fixture", "[kueue]") {
  Fixture f;
  build_fixture(f);
  const NodeId l1 = f.node.at("lend1"), l2 = f.node.at("lend2"), co = f.node.at("cohort-lend");
  CHECK(f.m.tree.guaranteed(l1, 0) == 2);
  CHECK(f.m.tree.guaranteed(l2, 0) == 4);
  CHECK(f.m.tree.subtree_quota(co, 0) == 6);
  f.admit("x", "lend1", 0, 3);  // 2 local, 1 bubbles up
  CHECK(f.m.tree.usage(co, 0) == 1);
  CHECK(f.m.tree.available(l1, 0) == 5);
  CHECK(f.m.tree.available(l2, 0) == 4 + 5);
  auto s = f.adm.in_cq(l1)[0];
  f.m.tree.remove(l1, f.adm[s].usage);
  CHECK(f.m.tree.usage(co, 0) == 0);
  CHECK(f.m.tree.usage(l1, 0) == 0);
}
