// The incremental invariant checker (sim/core/invariants.hpp): quiet on legal runs of every
// lifecycle path, loud on a scheduler that breaks the engine's rules, and no change to outputs.
#include <catch2/catch.hpp>

#include "schedulers/baseline/baseline.hpp"
#include "sim/core/engine.hpp"
#include "tests/sim/test_util.hpp"

using namespace floorsim;
using floorsim::testing::JobBuilder;

namespace {

// Starts the first pending job on node 0 and, in the same pass, preempts it (requeue, no
// grace): the job leaves the queue and re-enters it within one batch of decisions.
class StartThenPreempt : public Scheduler {
 public:
  int passes = 0;
  std::string_view name() const override { return "start_then_preempt"; }
  void schedule(const Snapshot& v, Decisions& out) override {
    ++passes;
    if (v.pending.empty()) return;
    const JobIdx j = v.pending.front();
    if (v.runs[j].eligible_s > v.now || v.cluster.free_gpus[0] < v.jobs[j].gpus) return;
    const NodeShare share{0, v.jobs[j].gpus};
    out.start(j, std::span<const NodeShare>(&share, 1));
    if (passes == 1) out.preempt(j, PreemptMode::Requeue, kNoJob);
  }
};

// Asks for a wake-up in the past.
class WakesInThePast : public Scheduler {
 public:
  std::string_view name() const override { return "past"; }
  void schedule(const Snapshot& v, Decisions& out) override {
    if (v.now > 0) out.wake_at(v.now - 1);
  }
};

Workload mixed() {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 100, 16, -1, 2);  // a gang across two nodes
  b.add(2, 0, 50, 4);
  b.add(3, 5, 500, 8, 200);     // killed at its limit
  b.add(4, 6, 20, 2).checkpoint_interval_s = 5;
  for (int i = 5; i < 40; ++i) b.add(i, i * 3.5, 10 + i % 7 * 13, 1 + i % 4);
  return w;
}

}  // namespace

TEST_CASE("invariants hold on every baseline model, with node failures, and change no output", "[engine][invariants]") {
  const Workload w = mixed();
  auto cl = uniform_cluster("n", 3, 8);
  for (auto make : {baseline::make_fifo, baseline::make_easy_backfill, baseline::make_conservative_backfill}) {
    std::vector<JobRun> plain, checked;
    for (bool check : {false, true}) {
      auto s = make();
      Engine e(w, cl, *s, EngineConfig{.requeue_delay_s = 3, .check_invariants = check});
      e.add_node_events({{30, 0, false}, {90, 0, true}, {95, 2, false}, {400, 2, true}});
      REQUIRE_NOTHROW(e.run());
      (check ? checked : plain) = e.runs();
    }
    REQUIRE(plain.size() == checked.size());
    for (size_t j = 0; j < plain.size(); ++j) {
      CHECK(plain[j].start_s == checked[j].start_s);
      CHECK(plain[j].end_s == checked[j].end_s);
      CHECK(plain[j].alloc_gpu_s == checked[j].alloc_gpu_s);
      CHECK(plain[j].state == checked[j].state);
    }
  }
}

TEST_CASE("a job started and requeued in one pass is queued once", "[engine][invariants]") {
  // Regression: enqueue() cleared the job's 'removed' mark while its old queue entry was still
  // there, so compaction kept both entries and the job sat in the queue twice.
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 10, 4);
  b.add(2, 0, 10, 4);
  auto cl = uniform_cluster("n", 1, 4);
  StartThenPreempt s;
  Engine e(w, cl, s, EngineConfig{.check_invariants = true});
  REQUIRE_NOTHROW(e.run());
  CHECK(e.runs()[0].requeues == 1);
  CHECK(e.runs()[0].state == JobState::Completed);
  CHECK(e.runs()[1].state == JobState::Completed);
  CHECK(e.runs()[0].alloc_gpu_s == Approx(40));  // 0 s of the first run + 10 s x 4 GPUs
}

TEST_CASE("a wake-up in the past is refused", "[engine][invariants]") {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 10, 1);
  b.add(2, 5, 10, 1);
  auto cl = uniform_cluster("n", 1, 4);
  WakesInThePast s;
  Engine e(w, cl, s, EngineConfig{.check_invariants = true});
  CHECK_THROWS_AS(e.run(), std::logic_error);
}
