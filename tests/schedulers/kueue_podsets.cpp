// Kueue workloads with several PodSets, and partial admission, pinned to Kueue's own test
// tables (kubernetes-sigs/kueue at commit ff69552e79ad21652c36caa97038382e55625cf7):
// - pkg/scheduler/flavorassigner/podset_reducer_test.go TestSearch (the reducer alone);
// - pkg/scheduler/scheduler_test.go TestSchedule "partial admission ..." cases (the cycle);
// - pkg/scheduler/flavorassigner/flavorassigner_test.go TestAssignFlavors "multiple specs, fit
//   different flavors" (a flavor per PodSet).
#include <catch2/catch.hpp>

#include <numeric>
#include <string>
#include <vector>

#include "schedulers/kueue/core.hpp"
#include "schedulers/kueue/podsets.hpp"

using namespace floorsim::kueue;

namespace {

struct ReducerCase {
  const char* name;
  std::vector<int32_t> count, min;  // min 0: no minCount (= count)
  int32_t limit;
  bool found;
  int32_t total;
};

PodSet pods(int32_t count, int32_t min_count, Qty cpu_per_pod, int resource = 0) {
  PodSet p;
  p.count = count;
  p.min_count = min_count > 0 ? min_count : count;
  p.per_pod[resource] = cpu_per_pod;
  return p;
}

// One ClusterQueue over `flavors` flavors of one resource, nominal quota each.
Model one_cq(std::vector<Qty> nominal, Policy within = Policy::Never, NodeId* cq = nullptr) {
  Model m;
  m.resources = 1;
  m.flavors = static_cast<int>(nominal.size());
  m.tree = QuotaTree(m.flavors);
  const NodeId n = m.tree.add_cq("cq");
  ResourceGroup g;
  g.resources = {0};
  for (int f = 0; f < m.flavors; ++f) {
    m.tree.set_quota(n, static_cast<FrId>(f), nominal[f], 0, kNoLimit);
    g.flavors.push_back(f);
  }
  m.cq.resize(n + 1);
  m.cq[n].groups = {g};
  m.cq[n].preemption.within = within;
  REQUIRE(m.tree.finalize());
  if (cq) *cq = n;
  return m;
}

struct Cycle {
  std::vector<CycleRecord> rec;
  std::vector<Core::Eviction> ev;
  std::vector<int32_t> counts;  // what the place hook saw for key 1
  Outcome of(uint32_t key) const {
    Outcome o = Outcome::Inactive;
    for (const auto& r : rec)
      if (r.key == key) o = r.outcome;
    return o;
  }
};

Cycle cycle(Core& c) {
  Cycle r;
  c.cycle(10, [&](uint32_t k) {
    if (k == 1) r.counts = c.placing_counts();
    return true;
  }, r.rec, r.ev);
  return r;
}

Request total_of(const PodSets& ps) { return ps.total(); }

}  // namespace

TEST_CASE("kueue podset reducer: TestSearch (podset_reducer_test.go)", "[kueue][podsets][conformance]") {
  const std::vector<ReducerCase> cases = {
      {"empty", {}, {}, 10, false, 0},
      {"partial not available", {1, 2}, {0, 2}, 2, false, 0},
      {"partial available", {5, 5, 5, 5}, {3, 4, 1, 2}, 15, true, 15},
      {"one partial available", {5, 5, 5, 5}, {3, 0, 0, 0}, 19, true, 19},
      {"to min", {5, 5, 5, 5}, {3, 4, 1, 2}, 10, true, 10},
      {"to max", {5, 5, 5, 5}, {3, 4, 1, 2}, 20, true, 20},
      {"no overflow", std::vector<int32_t>(8, 150000), std::vector<int32_t>(8, 1), 150000, true, 150000},
      {"max pods on 1.27", {150000, 1, 1, 1, 1, 1, 1, 1}, {1, 0, 0, 0, 0, 0, 0, 0}, 150000, true, 150000},
      {"podset with replica count 0", {0}, {0}, 0, false, 0},
  };
  for (const auto& tc : cases) {
    SECTION(tc.name) {
      std::vector<int32_t> min = tc.min;
      for (size_t i = 0; i < min.size(); ++i)
        if (min[i] == 0) min[i] = tc.count[i];
      std::vector<int32_t> out;
      const bool found = reduce_podsets(tc.count, min, [&](std::span<const int32_t> c) {
        return std::accumulate(c.begin(), c.end(), int64_t{0}) <= tc.limit;
      }, out);
      CHECK(found == tc.found);
      if (found) CHECK(std::accumulate(out.begin(), out.end(), int64_t{0}) == tc.total);
    }
  }
}

TEST_CASE("kueue partial admission: TestSchedule cases (scheduler_test.go)", "[kueue][podsets][conformance]") {
  SECTION("partial admission single variable pod set: 50 pods of 2 CPUs, minCount 20, 50 CPUs -> 25 pods") {
    NodeId sales;
    Core c(one_cq({50}, Policy::Never, &sales), CoreSettings{}, 8);
    PodSets ps;
    ps.sets = {pods(50, 20, 2)};
    c.set_podsets(1, ps);
    c.enqueue(1, sales, 0, 1, 1, total_of(ps));
    Cycle r = cycle(c);
    CHECK(r.of(1) == Outcome::Admitted);
    CHECK(r.counts == std::vector<int32_t>{25});
    CHECK(c.tree().usage(sales, 0) == 50);
  }
  SECTION("partial admission multiple variable pod sets: 20 + 30 (min 10) + 15 (min 5) pods of 1 CPU -> 20, 20, 10") {
    NodeId sales;
    Core c(one_cq({50}, Policy::Never, &sales), CoreSettings{}, 8);
    PodSets ps;
    ps.sets = {pods(20, 0, 1), pods(30, 10, 1), pods(15, 5, 1)};
    c.set_podsets(1, ps);
    c.enqueue(1, sales, 0, 1, 1, total_of(ps));
    Cycle r = cycle(c);
    CHECK(r.of(1) == Outcome::Admitted);
    CHECK(r.counts == std::vector<int32_t>{20, 20, 10});
  }
  SECTION("partial admission disabled, multiple variable pod sets: not admitted") {
    NodeId sales;
    CoreSettings s;
    s.partial_admission = false;
    Core c(one_cq({50}, Policy::Never, &sales), s, 8);
    PodSets ps;
    ps.sets = {pods(20, 0, 1), pods(30, 10, 1), pods(15, 5, 1)};
    c.set_podsets(1, ps);
    c.enqueue(1, sales, 0, 1, 1, total_of(ps));
    CHECK(cycle(c).of(1) == Outcome::NoFit);
  }
  // eng-beta: example.com/gpu in flavor model-a, nominal 20, withinClusterQueue LowerPriority;
  // "old" (priority -4) holds 10.
  for (int32_t want : {20, 30}) {
    SECTION(want == 20 ? "partial admission single variable pod set, preempt first: 20 pods (min 10) preempt old"
                       : "partial admission single variable pod set, preempt with partial admission: 30 (min 10) -> preempt old for 20") {
      NodeId beta;
      Core c(one_cq({20}, Policy::LowerPriority, &beta), CoreSettings{}, 8);
      Usage old;
      old.add(0, 10);
      c.assume_admitted(2, beta, -4, 0, 2, old, 0);
      PodSets ps;
      ps.sets = {pods(want, 10, 1)};
      c.set_podsets(1, ps);
      c.enqueue(1, beta, 4, 1, 1, total_of(ps));
      Cycle r = cycle(c);
      CHECK(r.of(1) == Outcome::PreemptIssued);  // preemption first, not 10 pods in the free quota
      REQUIRE(r.ev.size() == 1);
      CHECK(r.ev[0].victim == 2);
      c.release(2, 11);  // the victim stops; the preemptor gets 20 pods
      Cycle r2 = cycle(c);
      CHECK(r2.of(1) == Outcome::Admitted);
      CHECK(r2.counts == (want == 20 ? std::vector<int32_t>{} : std::vector<int32_t>{20}));
    }
  }
}

TEST_CASE("kueue podsets: a flavor per PodSet (flavorassigner_test.go)", "[kueue][podsets][conformance]") {
  // "multiple specs, fit different flavors": flavors one (4 CPUs) and two (10); driver asks 5,
  // worker 3: the driver goes to two, the worker to one. As one request (8) both would go to two.
  NodeId cq;
  Core c(one_cq({4, 10}, Policy::Never, &cq), CoreSettings{}, 8);
  PodSets ps;
  ps.sets = {pods(1, 0, 5), pods(1, 0, 3)};
  c.set_podsets(1, ps);
  c.enqueue(1, cq, 0, 1, 1, total_of(ps));
  Cycle r = cycle(c);
  CHECK(r.of(1) == Outcome::Admitted);
  CHECK(c.tree().usage(cq, 0) == 3);  // flavor one
  CHECK(c.tree().usage(cq, 1) == 5);  // flavor two
  // Later PodSets see the earlier ones' usage ("previously considered podsets requests"): 3 + 3
  // CPUs do not both fit in flavor one (4), so the second goes to two.
  NodeId cq2;
  Core c2(one_cq({4, 10}, Policy::Never, &cq2), CoreSettings{}, 8);
  PodSets ps2;
  ps2.sets = {pods(1, 0, 3), pods(1, 0, 3)};
  c2.set_podsets(1, ps2);
  c2.enqueue(1, cq2, 0, 1, 1, total_of(ps2));
  CHECK(cycle(c2).of(1) == Outcome::Admitted);
  CHECK(c2.tree().usage(cq2, 0) == 3);
  CHECK(c2.tree().usage(cq2, 1) == 3);
}

TEST_CASE("kueue podsets: each PodSet preempts on its own flavor (flavorassigner_test.go)", "[kueue][podsets][conformance]") {
  // "each podset requires preemption on a different flavor": flavors one (4 CPUs) and tainted
  // (10), 3 CPUs used in each by lower-priority workloads. The launcher (1 pod of 2 CPUs) does not
  // tolerate tainted; the workers (10 pods of 1 CPU) do. Launcher: Preempt in one. Workers: one is
  // NoFit, "previously considered podsets requests (2) + current podset request (10) > maximum
  // capacity (4)", so they try the next flavor: Preempt in tainted. Usage one 2, tainted 10.
  NodeId cq;
  Model m = one_cq({4, 10}, Policy::LowerPriority, &cq);
  AdmittedSet adm;
  adm.reset(m.tree.size());
  for (FrId f = 0; f < 2; ++f) {
    Admitted a;
    a.key = a.uid = 10 + f;
    a.cq = cq;
    a.usage.add(f, 3);
    m.tree.add(cq, a.usage);
    adm.insert(a);
  }
  PodSet launcher = pods(1, 0, 2);
  launcher.untolerated = uint64_t{1} << 1;
  PodSets ps;
  ps.sets = {launcher, pods(10, 0, 1)};
  Preemption pre;
  FlavorAssigner fa;
  Preemptor in;
  in.cq = cq;
  in.priority = 1;
  in.uid = 1;
  in.queue_ts = 100;
  const Assignment a = assign_podsets(m, m.tree, adm, pre, fa, in, ps, {});
  CHECK(a.mode == Mode::Preempt);
  CHECK(a.usage.get(0) == 2);
  CHECK(a.usage.get(1) == 10);
  CHECK(m.tree.usage(cq, 0) == 3);  // the tree is as it was
  CHECK(m.tree.usage(cq, 1) == 3);
}
