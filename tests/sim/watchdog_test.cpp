// The engine's progress watchdog (sim/core/watchdog.hpp): a model that loops ends the run with
// one line naming it and what looped; a model that makes progress is never stopped, however
// many passes it takes at one instant or over time.
#include <catch2/catch.hpp>

#include "schedulers/baseline/baseline.hpp"
#include "sim/core/engine.hpp"
#include "tests/sim/test_util.hpp"

using namespace floorsim;
using floorsim::testing::JobBuilder;

namespace {

// Always asks for another pass at the current time and decides nothing.
class WakesNow : public Scheduler {
 public:
  uint64_t passes = 0;
  std::string_view name() const override { return "wakes_now"; }
  void schedule(const Snapshot& v, Decisions& out) override {
    ++passes;
    out.wake_at(v.now);
  }
};

// Returns the same no-op decision for ever: the job stays pending with the same reason and the
// model looks again `every_s` later.
class NeverStarts : public Scheduler {
 public:
  SimTime every_s = 60;
  std::string_view name() const override { return "never_starts"; }
  void schedule(const Snapshot& v, Decisions& out) override {
    for (JobIdx j : v.pending) out.set_reason(j, 1);
    out.wake_at(v.now + every_s);
  }
};

// Starts one pending job per pass and asks for another pass at once while any is left: many
// passes at one instant, each of them a start.
class OnePerPass : public Scheduler {
 public:
  std::string_view name() const override { return "one_per_pass"; }
  void schedule(const Snapshot& v, Decisions& out) override {
    if (v.pending.empty()) return;
    const NodeShare share{0, 1};
    out.start(v.pending.front(), std::span<const NodeShare>(&share, 1));
    if (v.pending.size() > 1) out.wake_at(v.now);
  }
};

// Holds its one job until `until_s`, looking once a day: a long wait, then a start.
class WaitsThenStarts : public Scheduler {
 public:
  SimTime until_s = 0;
  std::string_view name() const override { return "waits_then_starts"; }
  void schedule(const Snapshot& v, Decisions& out) override {
    if (v.pending.empty()) return;
    if (v.now < until_s) {
      out.wake_at(v.now + 86400);
      return;
    }
    const NodeShare share{0, v.jobs[v.pending.front()].gpus};
    out.start(v.pending.front(), std::span<const NodeShare>(&share, 1));
  }
};

}  // namespace

TEST_CASE("a model that always asks for a pass at the current time is stopped with one line", "[engine][watchdog]") {
  Workload w;
  JobBuilder b{w};
  b.add(1, 5, 10, 8);
  auto cl = uniform_cluster("n", 1, 8);
  WakesNow s;
  Engine e(w, cl, s, EngineConfig{});
  try {
    e.run();
    FAIL("the run ended without the watchdog");
  } catch (const NoProgressError& err) {
    const std::string msg = err.what();
    CHECK(msg.find('\n') == std::string::npos);
    CHECK_THAT(msg, Catch::StartsWith("wakes_now: 10001 scheduler passes at t=5 s with no job"));
    CHECK_THAT(msg, Catch::Contains("simulated time cannot advance"));
  }
  CHECK(s.passes == 1 + 10001);  // the pass that saw the submission, then 10,001 with nothing new
}

TEST_CASE("a model that returns the same no-op decision for ever is stopped", "[engine][watchdog]") {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 10, 8);
  b.add(2, 100, 10, 4);
  auto cl = uniform_cluster("n", 1, 8);

  SECTION("by the decade of simulated time without a change (daily looks)") {
    NeverStarts s;
    s.every_s = 86400;
    Engine e(w, cl, s, EngineConfig{});
    CHECK_THROWS_AS(e.run(), NoProgressError);
    // Stopped a decade after the last submission, not at some arbitrary bound.
    CHECK(e.now() > 10.0 * 365 * 86400);
    CHECK(e.now() < 10.0 * 365 * 86400 + 3 * 86400);
  }
  SECTION("by the number of passes (looks every second)") {
    NeverStarts s;
    s.every_s = 1;
    EngineConfig ec;
    ec.watchdog.idle_wakeups = 5000;  // the default is a million: the rule, not the number, is tested
    Engine e(w, cl, s, ec);
    CHECK_THROWS_WITH(e.run(), Catch::StartsWith("never_starts: 5001 scheduler passes from t=101 s to t=5101 s") &&
                                   Catch::Contains("nothing left to happen but its wake-ups (2 jobs pending and 0 running)"));
  }
}

TEST_CASE("periodic passes for a job that can never start end in the watchdog, not a hang", "[engine][watchdog]") {
  // The engine's own interval timer re-arms while a job is pending; the only node is down for
  // good, so the job waits for ever.
  Workload w;
  JobBuilder b{w};
  b.add(1, 10, 10, 8);
  auto cl = uniform_cluster("n", 1, 8);
  auto s = baseline::make_fifo();
  EngineConfig ec;
  ec.sched_interval_s = 60;
  ec.watchdog.idle_wakeups = 1000;
  Engine e(w, cl, *s, ec);
  e.add_node_events({{0, 0, false}});
  CHECK_THROWS_WITH(e.run(), Catch::StartsWith("fifo: 1001 scheduler passes from t=70 s to t=60070 s") &&
                               Catch::Contains("(1 jobs pending and 0 running)"));
}

TEST_CASE("many passes at one instant that each make progress are never stopped", "[engine][watchdog]") {
  Workload w;
  JobBuilder b{w};
  for (int i = 0; i < 25000; ++i) b.add(i + 1, 0, 0, 1);  // zero-length: each ends where it starts
  auto cl = uniform_cluster("n", 1, 8);
  OnePerPass s;
  Engine e(w, cl, s, EngineConfig{});
  REQUIRE_NOTHROW(e.run());
  CHECK(e.stats().passes >= 25000);  // all at t=0, well past the 10,000 idle passes allowed
  CHECK(e.now() == 0);
  for (const auto& r : e.runs()) CHECK(r.state == JobState::Completed);
}

TEST_CASE("a long wait on wake-ups that ends in a start is never stopped", "[engine][watchdog]") {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 10, 8);
  auto cl = uniform_cluster("n", 1, 8);
  WaitsThenStarts s;
  s.until_s = 5.0 * 365 * 86400;  // half the idle span: 1,825 daily looks
  Engine e(w, cl, s, EngineConfig{});
  REQUIRE_NOTHROW(e.run());
  CHECK(e.runs()[0].state == JobState::Completed);
}

TEST_CASE("idle passes while a job runs do not count: its end is still to come", "[engine][watchdog]") {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 1e6, 8);  // runs 11.6 days
  b.add(2, 0, 10, 8);   // waits for it, looked at every minute
  auto cl = uniform_cluster("n", 1, 8);
  auto s = baseline::make_fifo();
  EngineConfig ec;
  ec.sched_interval_s = 60;
  ec.watchdog.idle_wakeups = 100;
  ec.watchdog.idle_span_s = 3600;
  Engine e(w, cl, *s, ec);
  REQUIRE_NOTHROW(e.run());
  CHECK(e.stats().passes > 16000);
  CHECK(e.runs()[1].state == JobState::Completed);
}
