// Engine-level tests of the hybrid cluster (schedulers/hybrid): two FIFO models on a 2 + 2 node
// split. The split holds (no job on the other side's node unless lent, never both sides on one
// node at once), lending moves work across when one side idles, a preempt reclaim requeues the
// borrowed work, and runs are deterministic.
#include <catch2/catch.hpp>

#include "schedulers/baseline/baseline.hpp"
#include "schedulers/hybrid/hybrid.hpp"
#include "sim/app/forwarding_scheduler.hpp"
#include "sim/core/engine.hpp"

using namespace floorsim;
using namespace floorsim::hybrid;

namespace {

// Batch (Slurm side) floods first; services (Kubernetes side) arrive later and need their nodes.
Workload workload() {
  Workload w;
  const StrId batch = w.strings.intern("batch"), svc = w.strings.intern("svc");
  int64_t id = 1;
  auto add = [&](StrId k, SimTime submit, SimTime runtime, int32_t gpus) {
    JobSpec j;
    j.id = id++;
    j.submit_s = submit;
    j.runtime_s = runtime;
    j.time_limit_s = runtime * 2;
    j.gpus = gpus;
    j.nodes = 1;
    j.klass = k;
    w.jobs.push_back(j);
  };
  for (int i = 0; i < 12; ++i) add(batch, i, 3600, 4);
  for (int i = 0; i < 6; ++i) add(svc, 1800 + i * 10, 1200, 4);
  return w;
}

// Checks at every start that no node holds jobs of both sides, and records where each side ran.
class SplitWatch final : public app::ForwardingScheduler {
 public:
  SplitWatch(std::unique_ptr<Scheduler> inner, std::vector<Side> side) : ForwardingScheduler(std::move(inner)), side_(std::move(side)) {}
  bool wants_job_events() const override { return true; }
  void on_job_event(const JobEvent& ev, const Snapshot& v) override {
    ForwardingScheduler::on_job_event(ev, v);
    if (ev.kind != JobEvent::Kind::Started) return;
    for (const auto& s : v.allocation_of(ev.job)) {
      ran_on_[static_cast<int>(side_[ev.job])].push_back(s.node);
      for (JobIdx o : v.running)
        if (side_[o] != side_[ev.job])
          for (const auto& os : v.allocation_of(o)) mixed_ += os.node == s.node;
    }
  }
  std::array<std::vector<NodeIdx>, 2> ran_on_;
  int mixed_ = 0;

 private:
  std::vector<Side> side_;
};

struct Run {
  std::vector<JobRun> runs;
  std::array<std::vector<NodeIdx>, 2> ran_on;
  int mixed = 0;
  nlohmann::json report;
};

Run run(const LendParams& lp) {
  const Workload w = workload();
  const ClusterConfig c = uniform_cluster("gpu", 4, 8);
  Layout l;
  l.node_home = {Side::Slurm, Side::Slurm, Side::Kubernetes, Side::Kubernetes};
  for (const auto& j : w.jobs) l.job_side.push_back(w.strings.str(j.klass) == "batch" ? Side::Slurm : Side::Kubernetes);
  const auto sides = l.job_side;
  l.lending = lp;
  SplitWatch s(make_hybrid(baseline::make_fifo(), baseline::make_fifo(), std::move(l)), sides);
  EngineConfig ec;
  ec.check_invariants = true;
  Engine e(w, c, s, ec);
  e.run();
  return {e.runs(), s.ran_on_, s.mixed_, s.report(e.snapshot())};
}

bool only_on(const std::vector<NodeIdx>& nodes, NodeIdx lo, NodeIdx hi) {
  for (NodeIdx n : nodes)
    if (n < lo || n > hi) return false;
  return !nodes.empty();
}

}  // namespace

TEST_CASE("hybrid engine: a static split keeps each side on its own nodes", "[hybrid]") {
  const Run r = run(LendParams{});
  CHECK(only_on(r.ran_on[0], 0, 1));
  CHECK(only_on(r.ran_on[1], 2, 3));
  CHECK(r.mixed == 0);
  for (const auto& jr : r.runs) CHECK(jr.state == JobState::Completed);
  CHECK(r.report["hybrid"]["lent_node_s"] == 0.0);
}

TEST_CASE("hybrid engine: lending moves batch onto idle service nodes and drains them back", "[hybrid]") {
  LendParams lp;
  lp.enabled = true;
  lp.lend_after_s = 60;
  const Run r = run(lp);
  CHECK_FALSE(only_on(r.ran_on[0], 0, 1));  // batch borrowed the idle service nodes
  CHECK(only_on(r.ran_on[1], 2, 3));        // services never needed Slurm's nodes
  CHECK(r.mixed == 0);
  const auto& h = r.report["hybrid"];
  CHECK(h["lends"].get<int>() == 2);
  CHECK(h["lent_node_s"].get<double>() > 0);
  CHECK(h["reclaims"].get<int>() >= 1);  // the services took their nodes back
  CHECK(h["reclaim_preemptions"] == 0);  // by draining
  for (const auto& jr : r.runs) {
    CHECK(jr.state == JobState::Completed);
    CHECK(jr.requeues == 0);
  }
  // Batch finishes sooner than under the static split; the services wait for the drain.
  const Run st = run(LendParams{});
  SimTime last_lend = 0, last_static = 0;
  for (size_t j = 0; j < 12; ++j) {
    last_lend = std::max(last_lend, r.runs[j].end_s);
    last_static = std::max(last_static, st.runs[j].end_s);
  }
  CHECK(last_lend < last_static);
}

TEST_CASE("hybrid engine: a preempt reclaim requeues the borrowed jobs after the grace time", "[hybrid]") {
  LendParams lp;
  lp.enabled = true;
  lp.lend_after_s = 60;
  lp.reclaim = Reclaim::Preempt;
  lp.reclaim_grace_s = 30;
  const Run r = run(lp);
  CHECK(r.mixed == 0);
  const auto& h = r.report["hybrid"];
  CHECK(h["reclaim_preemptions"].get<int>() >= 1);
  int requeued = 0;
  for (size_t j = 0; j < 12; ++j) requeued += r.runs[j].requeues;
  CHECK(requeued == h["reclaim_preemptions"].get<int>());
  // The first service job starts 30 s (the grace) after it was submitted at 1800 s.
  CHECK(r.runs[12].first_start_s == Approx(1830));
}

TEST_CASE("hybrid engine: runs are deterministic", "[hybrid]") {
  LendParams lp;
  lp.enabled = true;
  lp.lend_after_s = 60;
  lp.reclaim = Reclaim::Preempt;
  const Run a = run(lp), b = run(lp);
  REQUIRE(a.runs.size() == b.runs.size());
  for (size_t j = 0; j < a.runs.size(); ++j) {
    CHECK(a.runs[j].first_start_s == b.runs[j].first_start_s);
    CHECK(a.runs[j].end_s == b.runs[j].end_s);
  }
  CHECK(a.report == b.report);
}
