// KAI-like model, pure functions (spec kueue-kai-model.md §10): fair-share division (flat and
// hierarchical), queue order, and the reclaim / preempt victim searches, table-driven.
// Quantities are milli-GPUs; G(n) = n GPUs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "schedulers/kai/model.hpp"

using namespace floorsim::kai;

namespace {

constexpr Milli G(double gpus) { return static_cast<Milli>(gpus * 1000); }

struct DivCase {
  const char* name;
  Milli total;
  std::vector<ShareInput> in;
  std::vector<Milli> expect;
};

}  // namespace

TEST_CASE("kai fair share: deserved first, then surplus by overQuotaWeight (PP/resource_division)", "[kai]") {
  // ShareInput: {deserved, request, limit, weight, priority}
  const std::vector<DivCase> cases = {
      {"surplus split 1:2, remainder unit to the heavier", G(12),
       {{G(2), G(10), kUnlimited, 1, 100}, {G(2), G(10), kUnlimited, 2, 100}}, {G(4), G(8)}},
      {"a satisfied request leaves the rest to the others", G(12),
       {{G(2), G(3), kUnlimited, 1, 100}, {G(2), G(20), kUnlimited, 1, 100}}, {G(3), G(9)}},
      {"limit caps the share", G(12),
       {{0, G(20), G(4), 1, 100}, {0, G(20), kUnlimited, 1, 100}}, {G(4), G(8)}},
      {"higher queue priority takes the surplus first", G(10),
       {{G(2), G(10), kUnlimited, 1, 200}, {G(2), G(10), kUnlimited, 5, 100}}, {G(8), G(2)}},
      {"weight 0 gets nothing above its quota", G(10),
       {{G(2), G(10), kUnlimited, 0, 100}, {G(2), G(10), kUnlimited, 1, 100}}, {G(2), G(8)}},
      {"deserved -1 = unlimited: whatever is requested", G(8),
       {{kUnlimited, G(5), kUnlimited, 1, 100}, {0, G(10), kUnlimited, 1, 100}}, {G(5), G(3)}},
      {"over-committed quotas are not scaled down", G(4),
       {{G(4), G(4), kUnlimited, 1, 100}, {G(4), G(4), kUnlimited, 1, 100}}, {G(4), G(4)}},
      {"remainders below one unit: one unit each, largest weight first", G(3),
       {{0, G(10), kUnlimited, 1, 100}, {0, G(10), kUnlimited, 1, 100}, {0, G(10), kUnlimited, 2, 100}},
       {0, 0, G(3)}},
      {"fractional requests are met exactly", G(1),
       {{0, G(0.5), kUnlimited, 1, 100}, {0, G(0.25), kUnlimited, 1, 100}}, {G(0.5), G(0.25)}},
      {"idle capacity beyond every request stays undivided", G(16),
       {{G(2), G(3), kUnlimited, 1, 100}, {G(2), G(1), kUnlimited, 1, 100}}, {G(3), G(1)}},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      std::vector<Milli> out(c.in.size());
      divide(c.total, c.in, 1000, out);
      CHECK(out == c.expect);
    }
  }
}

namespace {

// The example's tree: quant{pricing, risk, training} + research, 64 GPUs.
QueueTree quant_tree() {
  QueueTree t;
  const int quant = t.add({"quant", kNoQueue, 100, G(48), kUnlimited, 3});
  t.add({"pricing", quant, 200, G(8), G(16), 1});
  t.add({"risk", quant, 150, G(24), kUnlimited, 2});
  t.add({"training", quant, 100, G(16), G(40), 1});
  t.add({"research", kNoQueue, 100, G(16), kUnlimited, 1});
  REQUIRE(t.finalize());
  return t;
}

}  // namespace

TEST_CASE("kai fair share across the hierarchy, level by level", "[kai]") {
  const QueueTree t = quant_tree();
  std::vector<Milli> fair, req;
  // request per queue: quant(ignored), pricing, risk, training, research
  SECTION("everyone busy: parents get quota, children split the parent's share by priority") {
    const std::vector<Milli> leaf = {0, G(4), G(40), G(40), G(30)};
    fair_shares(t, G(64), leaf, 1000, fair, req);
    CHECK(req[0] == G(84));
    CHECK(fair == std::vector<Milli>{G(48), G(4), G(28), G(16), G(16)});
  }
  SECTION("research idle: its quota flows to quant, then to risk (priority) and training") {
    const std::vector<Milli> leaf = {0, G(4), G(40), G(40), 0};
    fair_shares(t, G(64), leaf, 1000, fair, req);
    CHECK(fair == std::vector<Milli>{G(64), G(4), G(40), G(20), 0});
  }
  SECTION("training's limit caps it even with surplus") {
    const std::vector<Milli> leaf = {0, 0, 0, G(64), 0};
    fair_shares(t, G(64), leaf, 1000, fair, req);
    CHECK(fair[3] == G(40));
  }
}

TEST_CASE("kai queue order (PP/queue_order)", "[kai]") {
  // QueueState: {allocated, fair, deserved, priority, index}
  const QueueState within{G(2), G(4), G(4), 100, 1}, over{G(4), G(4), G(4), 200, 0};
  CHECK(queue_before(within, G(1), over, G(1)));  // stays within fair share beats priority
  const QueueState starved{G(1), G(2), G(4), 100, 1}, fed{G(5), G(6), G(4), 200, 0};
  CHECK(queue_before(starved, G(4), fed, G(4)));  // both over fair share: below deserved first
  const QueueState hi{G(2), G(4), G(2), 200, 1}, lo{G(2), G(4), G(2), 100, 0};
  CHECK(queue_before(hi, G(1), lo, G(1)));
  const QueueState less{G(1), G(4), G(1), 100, 1}, more{G(3), G(4), G(1), 100, 0};
  CHECK(queue_before(less, G(1), more, G(1)));  // smaller allocated / fair share
  const QueueState a{G(1), G(4), G(1), 100, 0}, b{G(1), G(4), G(1), 100, 1};
  CHECK(queue_before(a, G(1), b, G(1)));
  CHECK_FALSE(queue_before(b, G(1), a, G(1)));
}

namespace {

// A small cluster for victim searches: GPU counts per queue, free GPUs, fits = count based.
struct Fixture {
  QueueTree t;
  std::vector<RunningJob> running;
  std::map<uint32_t, std::string> names;
  std::vector<Milli> alloc, fair, np;
  Milli capacity = 0;
  uint32_t next = 1;

  void run(const std::string& name, const std::string& queue, int32_t prio, double gpus, double start = 0) {
    RunningJob r;
    r.key = next++;
    r.queue = t.find(queue);
    r.priority = prio;
    r.preemptible = preemptible_by_priority(prio);
    r.start_s = start;
    r.req = G(gpus);
    running.push_back(r);
    names[r.key] = name;
  }
  // Allocation from the running jobs; fair shares from allocation + pending requests.
  void settle(const std::map<std::string, double>& pending) {
    alloc.assign(t.size(), 0);
    np.assign(t.size(), 0);
    for (const auto& r : running)
      for (int q = r.queue; q != kNoQueue; q = t[q].parent) {
        alloc[q] += r.req;
        if (!r.preemptible) np[q] += r.req;
      }
    std::vector<Milli> leaf(t.size(), 0), req;
    for (int q = 0; q < t.size(); ++q)
      if (t.leaf(q)) leaf[q] = alloc[q];
    for (const auto& [q, g] : pending) leaf[t.find(q)] += G(g);
    fair_shares(t, capacity, leaf, 1000, fair, req);
  }
  Milli free_now() const {
    Milli used = 0;
    for (const auto& r : running) used += r.req;
    return capacity - used;
  }
  std::set<std::string> victims(bool reclaim, const std::string& queue, int32_t prio, double gpus) {
    const Claimant c{t.find(queue), prio, preemptible_by_priority(prio), G(gpus)};
    std::vector<RunningJob> cands;
    if (reclaim) {
      if (!may_reclaim(t, alloc, fair, np, c)) return {};
      reclaim_candidates(t, alloc, fair, running, c, cands);
    } else {
      preempt_candidates(running, c, cands);
    }
    const ReclaimConfig cfg;
    std::vector<uint32_t> chosen;
    const Milli free0 = free_now();
    auto req_of = [&](uint32_t k) {
      for (const auto& r : running)
        if (r.key == k) return r.req;
      return Milli{0};
    };
    const bool ok = select_victims(
        t, cands,
        [&](const RunningJob& cand, std::span<const Milli> removed) {
          return !reclaim || reclaim_victim_ok(t, alloc, fair, removed, c, cand.queue, cand.req, cfg);
        },
        [&](std::span<const uint32_t> ch) {
          Milli f = free0;
          for (uint32_t k : ch) f += req_of(k);
          return f >= c.req;
        },
        chosen);
    std::set<std::string> out;
    if (ok)
      for (uint32_t k : chosen) out.insert(names[k]);
    return out;
  }
};

using Names = std::set<std::string>;

}  // namespace

TEST_CASE("kai reclaim (PP/reclaimable): who may take back what", "[kai]") {
  Fixture f;
  SECTION("reclaim from a queue over its fair share, newest first") {
    f.t.add({"a", kNoQueue, 100, G(4), kUnlimited, 1});
    f.t.add({"b", kNoQueue, 100, G(4), kUnlimited, 1});
    REQUIRE(f.t.finalize());
    f.capacity = G(8);
    for (int i = 0; i < 8; ++i) f.run("b" + std::to_string(i), "b", 50, 1, i);
    f.settle({{"a", 2}});
    CHECK(f.fair[0] == G(2));
    CHECK(f.victims(true, "a", 50, 2) == Names{"b7", "b6"});
  }
  SECTION("no reclaim beyond the reclaimer's fair share") {
    f.t.add({"a", kNoQueue, 100, G(2), kUnlimited, 1});
    f.t.add({"b", kNoQueue, 100, G(6), kUnlimited, 1});
    REQUIRE(f.t.finalize());
    f.capacity = G(8);
    f.run("a0", "a", 50, 2);
    for (int i = 0; i < 6; ++i) f.run("b" + std::to_string(i), "b", 50, 1, i);
    f.settle({{"a", 2}});
    CHECK(f.fair[0] == G(2));
    CHECK(f.victims(true, "a", 50, 2).empty());
  }
  SECTION("non-preemptible jobs (priority >= 100) are never victims") {
    f.t.add({"a", kNoQueue, 100, G(4), kUnlimited, 1});
    f.t.add({"b", kNoQueue, 100, G(4), kUnlimited, 1});
    REQUIRE(f.t.finalize());
    f.capacity = G(8);
    for (int i = 0; i < 8; ++i) f.run("b" + std::to_string(i), "b", 100, 1, i);
    f.settle({{"a", 2}});
    CHECK(f.victims(true, "a", 50, 2).empty());
  }
  SECTION("a victim queue keeps its fair share (MaintainFairShare): only the excess goes") {
    f.t.add({"a", kNoQueue, 100, G(2), kUnlimited, 1});
    f.t.add({"b", kNoQueue, 100, G(6), kUnlimited, 1});
    REQUIRE(f.t.finalize());
    f.capacity = G(8);
    for (int i = 0; i < 7; ++i) f.run("b" + std::to_string(i), "b", 50, 1, i);
    f.settle({{"a", 2}});
    // a: fair 2; b: fair 6, runs 7: one GPU of b is over its share, so a 2-GPU job has 1 free +
    // 1 reclaimable = fits.
    CHECK(f.victims(true, "a", 50, 2) == Names{"b6"});
    // A 3-GPU job would need b below its fair share: a's fair share is 2 anyway, so no.
    CHECK(f.victims(true, "a", 50, 3).empty());
  }
  SECTION("hierarchy: victims are judged at the divergence level") {
    // quant{pricing 2, risk 4} + research 2 on 8 GPUs. risk sits at its quota, research runs 4
    // (2 over). pricing wants 2: risk cannot give (it would drop below its share), research can.
    const int quant = f.t.add({"quant", kNoQueue, 100, G(6), kUnlimited, 1});
    f.t.add({"pricing", quant, 100, G(2), kUnlimited, 1});
    f.t.add({"risk", quant, 100, G(4), kUnlimited, 1});
    f.t.add({"research", kNoQueue, 100, G(2), kUnlimited, 1});
    REQUIRE(f.t.finalize());
    f.capacity = G(8);
    for (int i = 0; i < 4; ++i) f.run("risk" + std::to_string(i), "risk", 50, 1, i);
    for (int i = 0; i < 4; ++i) f.run("res" + std::to_string(i), "research", 50, 1, 10 + i);
    f.settle({{"pricing", 2}});
    CHECK(f.fair[f.t.find("pricing")] == G(2));
    CHECK(f.fair[f.t.find("research")] == G(2));
    CHECK(f.victims(true, "pricing", 50, 2) == Names{"res3", "res2"});
  }
  SECTION("a non-preemptible reclaimer stays within its deserved quota") {
    f.t.add({"a", kNoQueue, 100, G(1), kUnlimited, 5});
    f.t.add({"b", kNoQueue, 100, G(0), kUnlimited, 1});
    REQUIRE(f.t.finalize());
    f.capacity = G(4);
    for (int i = 0; i < 4; ++i) f.run("b" + std::to_string(i), "b", 50, 1, i);
    f.settle({{"a", 2}});
    CHECK(f.victims(true, "a", 100, 1) == Names{"b3"});  // within deserved 1
    CHECK(f.victims(true, "a", 100, 2).empty());         // 2 > deserved 1
  }
}

TEST_CASE("kai preempt (actions/preempt): same queue, strictly lower priority, preemptible", "[kai]") {
  Fixture f;
  f.t.add({"a", kNoQueue, 100, G(6), kUnlimited, 1});
  f.t.add({"b", kNoQueue, 100, G(2), kUnlimited, 1});
  REQUIRE(f.t.finalize());
  SECTION("lowest priority first; non-preemptible and equal priority are safe") {
    f.capacity = G(6);
    f.run("low", "a", 50, 2, 1);
    f.run("mid", "a", 75, 2, 2);
    f.run("inference", "a", 125, 2, 3);
    f.settle({});
    CHECK(f.victims(false, "a", 100, 2) == Names{"low"});
    CHECK(f.victims(false, "a", 50, 2).empty());  // nothing strictly lower than 50
  }
  SECTION("minimal set: a victim whose return still fits is kept (fill back)") {
    f.capacity = G(3);
    f.run("low", "a", 50, 1, 1);
    f.run("mid", "a", 75, 2, 2);
    f.settle({});
    CHECK(f.victims(false, "a", 100, 2) == Names{"mid"});
  }
  SECTION("other queues' jobs are never preempted") {
    f.capacity = G(2);
    f.run("b-low", "b", 50, 2, 1);
    f.settle({});
    CHECK(f.victims(false, "a", 100, 2).empty());
  }
  SECTION("newest first among equal priorities") {
    f.capacity = G(2);
    f.run("old", "a", 50, 1, 1);
    f.run("new", "a", 50, 1, 5);
    f.settle({});
    CHECK(f.victims(false, "a", 75, 1) == Names{"new"});
  }
}

TEST_CASE("kai limits and non-preemptible quota along the tree", "[kai]") {
  const QueueTree t = quant_tree();
  std::vector<Milli> alloc(t.size(), 0);
  alloc[0] = G(40);
  alloc[3] = G(39);  // training
  CHECK(within_limits(t, alloc, 3, G(1)));
  CHECK_FALSE(within_limits(t, alloc, 3, G(2)));  // training limit 40
  std::vector<Milli> np(t.size(), 0);
  np[0] = G(46);
  np[2] = G(20);
  CHECK(nonpreemptible_within_quota(t, np, 2, G(2)));   // risk 22 <= 24, quant 48 <= 48
  CHECK_FALSE(nonpreemptible_within_quota(t, np, 2, G(3)));  // quant 49 > 48
  CHECK(preemptible_by_priority(50));
  CHECK(preemptible_by_priority(75));
  CHECK_FALSE(preemptible_by_priority(100));
  CHECK_FALSE(preemptible_by_priority(125));
}

TEST_CASE("kai queue tree: parent cycles are rejected, divergence levels", "[kai]") {
  QueueTree t;
  const int a = t.add({"a"});
  const int b = t.add({"b"});
  t.set_parent(a, b);
  t.set_parent(b, a);
  CHECK_FALSE(t.finalize());
  const QueueTree q = quant_tree();
  CHECK(q.divergence(1, 2) == std::pair<int, int>{1, 2});  // pricing vs risk: siblings
  CHECK(q.divergence(1, 4) == std::pair<int, int>{0, 4});  // pricing vs research: quant vs research
  CHECK(q.divergence(2, 2) == std::pair<int, int>{2, 2});
}
