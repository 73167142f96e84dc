// Engine rules: event ordering, lifecycle, time limits, requeue keeping the id, node failure,
// checkpoints and lost work, allocation invariants.
#include <map>

#include <catch2/catch.hpp>

#include "schedulers/baseline/baseline.hpp"
#include "sim/core/engine.hpp"
#include "tests/sim/test_util.hpp"

using namespace floorsim;
using floorsim::testing::JobBuilder;

namespace {

// Scripted scheduler: preempts a job at a given time, otherwise behaves as FIFO.
class Scripted : public Scheduler {
 public:
  std::unique_ptr<Scheduler> fifo = baseline::make_fifo();
  SimTime preempt_at = -1;
  JobIdx victim = kNoJob;
  PreemptMode mode = PreemptMode::Requeue;
  SimTime grace = 0;
  std::vector<JobEvent> events;
  std::string_view name() const override { return "scripted"; }
  void schedule(const Snapshot& v, Decisions& out) override {
    if (v.now == preempt_at && v.runs[victim].state == JobState::Running) {
      out.preempt(victim, mode, kNoJob, grace);
      return;
    }
    if (preempt_at > v.now) out.wake_at(preempt_at);
    fifo->schedule(v, out);
  }
  void on_job_event(const JobEvent& e, const Snapshot&) override { events.push_back(e); }
};

}  // namespace

TEST_CASE("jobs run in FIFO order and end at start + runtime", "[engine]") {
  Workload w;
  JobBuilder b{w};
  b.add(10, 0, 100, 8);
  b.add(11, 0, 50, 8);
  b.add(12, 5, 10, 4);
  auto cl = uniform_cluster("n", 1, 8);
  auto s = baseline::make_fifo();
  Engine e(w, cl, *s, EngineConfig{.check_invariants = true});
  e.run();
  const auto& r = e.runs();
  CHECK(r[0].start_s == 0);
  CHECK(r[0].end_s == 100);
  CHECK(r[1].start_s == 100);
  CHECK(r[1].end_s == 150);
  CHECK(r[2].start_s == 150);  // FIFO: blocked behind job 11 although 4 GPUs never fit earlier
  CHECK(r[2].state == JobState::Completed);
}

TEST_CASE("a job whose runtime exceeds its limit is killed at the limit", "[engine]") {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 100, 1, 60);
  auto cl = uniform_cluster("n", 1, 1);
  auto s = baseline::make_fifo();
  SECTION("enforced") {
    Engine e(w, cl, *s, EngineConfig{});
    e.run();
    CHECK(e.runs()[0].state == JobState::TimedOut);
    CHECK(e.runs()[0].end_s == 60);
  }
  SECTION("not enforced") {
    Engine e(w, cl, *s, EngineConfig{.enforce_time_limit = false});
    e.run();
    CHECK(e.runs()[0].state == JobState::Completed);
    CHECK(e.runs()[0].end_s == 100);
  }
}

TEST_CASE("ends are handled before submissions at the same time", "[engine]") {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 10, 2);
  b.add(2, 10, 5, 2);  // submitted exactly when job 1 ends: starts at once
  auto cl = uniform_cluster("n", 1, 2);
  auto s = baseline::make_fifo();
  Engine e(w, cl, *s, EngineConfig{.check_invariants = true});
  e.run();
  CHECK(e.runs()[1].start_s == 10);
}

TEST_CASE("preemption with requeue keeps the id, loses work since the last checkpoint", "[engine]") {
  Workload w;
  JobBuilder b{w};
  auto& j = b.add(7, 0, 100, 4);
  j.checkpoint_interval_s = 30;
  auto cl = uniform_cluster("n", 1, 4);
  Scripted s;
  s.preempt_at = 70;
  s.victim = 0;
  Engine e(w, cl, s, EngineConfig{.requeue_delay_s = 5, .check_invariants = true});
  e.run();
  const auto& r = e.runs()[0];
  CHECK(r.requeues == 1);
  CHECK(r.preemptions == 1);
  CHECK(r.first_start_s == 0);
  CHECK(r.start_s == 75);                // restarted after the requeue delay
  CHECK(r.end_s == 75 + (100 - 60));     // resumes from the checkpoint at 60 s
  CHECK(r.lost_gpu_s == Approx(10 * 4));  // 70 - 60 s of work on 4 GPUs
  CHECK(r.alloc_gpu_s == Approx((70 + 40) * 4));
  CHECK(r.state == JobState::Completed);
}

TEST_CASE("preemption grace time delays the stop; suspend loses nothing", "[engine]") {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 100, 4);
  auto cl = uniform_cluster("n", 1, 4);
  Scripted s;
  s.preempt_at = 50;
  s.victim = 0;
  s.mode = PreemptMode::Suspend;
  s.grace = 10;
  Engine e(w, cl, s, EngineConfig{.check_invariants = true});
  e.run();
  const auto& r = e.runs()[0];
  CHECK(r.start_s == 60);      // stopped at 60, restarted at once by FIFO
  CHECK(r.end_s == 100);       // 60 s done + 40 s remaining
  CHECK(r.lost_gpu_s == 0);
}

TEST_CASE("a node failure requeues the gang job on it and its other node is freed", "[engine]") {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 100, 16, -1, 2);  // two nodes x 8
  b.add(2, 0, 10, 8);
  auto cl = uniform_cluster("n", 3, 8);
  auto s = baseline::make_fifo();
  Engine e(w, cl, *s, EngineConfig{.check_invariants = true});
  e.add_node_events({{40, 0, false}, {200, 0, true}});
  e.run();
  const auto& r = e.runs()[0];
  CHECK(r.requeues == 1);
  CHECK(r.lost_gpu_s == Approx(40 * 16));
  // After the failure only n002 and n003 are up: the gang restarts there at once.
  CHECK(r.start_s == 40);
  CHECK(r.end_s == 140);
  const auto alloc = e.final_allocation(0);
  REQUIRE(alloc.size() == 2);
  CHECK(alloc[0].node == 1);
  CHECK(alloc[1].node == 2);
}

TEST_CASE("a job that is not requeueable ends NODE_FAIL", "[engine]") {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 100, 8).requeueable = false;
  auto cl = uniform_cluster("n", 1, 8);
  auto s = baseline::make_fifo();
  Engine e(w, cl, *s, EngineConfig{.check_invariants = true});
  e.add_node_events({{10, 0, false}});
  e.run();
  CHECK(e.runs()[0].state == JobState::NodeFail);
  CHECK(e.runs()[0].end_s == 10);
}

TEST_CASE("an invalid start decision is refused by the engine", "[engine]") {
  struct Bad : Scheduler {
    std::string_view name() const override { return "bad"; }
    void schedule(const Snapshot& v, Decisions& out) override {
      NodeShare s{0, 16};  // more than the node has
      if (!v.pending.empty()) out.start(v.pending[0], std::span<const NodeShare>(&s, 1));
    }
  } bad;
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 10, 16);
  auto cl = uniform_cluster("n", 2, 8);
  Engine e(w, cl, bad, EngineConfig{});
  CHECK_THROWS_WITH(e.run(), Catch::Contains("has 8 free GPUs, asked 16"));
}

TEST_CASE("the horizon stops the run and leaves jobs unstarted", "[engine]") {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 100, 8);
  b.add(2, 0, 100, 8);
  auto cl = uniform_cluster("n", 1, 8);
  auto s = baseline::make_fifo();
  Engine e(w, cl, *s, EngineConfig{.horizon_s = 50});
  e.run();
  CHECK(e.runs()[0].state == JobState::Running);
  CHECK(e.runs()[1].state == JobState::Unstarted);
}

TEST_CASE("class ledger integrates allocation, entitlement and delivery", "[metrics]") {
  ClassLedger l;
  l.init({0, 8}, true);
  l.advance(0);
  l.add_demand(1, 16);
  l.add_alloc(1, 4);
  l.record(0);
  l.advance(10);  // 10 s: alloc 4, entitled min(8,16)=8, delivered 4
  l.add_alloc(1, 8);
  l.record(10);
  l.advance(20);  // 10 s: alloc 12, entitled 8, delivered 8
  CHECK(l.alloc_gpu_s(1) == Approx(160));
  CHECK(l.entitled_gpu_s(1) == Approx(160));
  CHECK(l.delivered_gpu_s(1) == Approx(120));
  REQUIRE(l.timeline().size() == 2);
  CHECK(l.timeline()[1].gpus_allocated == 12);
}

TEST_CASE("wait percentiles use the nearest-rank method", "[metrics]") {
  std::vector<double> w;
  for (int i = 1; i <= 100; ++i) w.push_back(i);
  auto s = wait_stats(w);
  CHECK(s.p50 == 50);
  CHECK(s.p95 == 95);
  CHECK(s.p99 == 99);
  CHECK(s.max == 100);
  CHECK(s.mean == Approx(50.5));
}

TEST_CASE("hostlist compresses and expands node names", "[cluster]") {
  CHECK(hostlist({"gpu001", "gpu002", "gpu003", "gpu007"}) == "gpu[001-003,007]");
  CHECK(hostlist({"n1"}) == "n1");
  CHECK(hostlist({"a01", "b01", "b02"}) == "a01,b[01-02]");
  CHECK(expand_hostlist("n[1-3],gpu[01-02]") == std::vector<std::string>{"n1", "n2", "n3", "gpu01", "gpu02"});
  CHECK(expand_hostlist("cpn-q06-04-[01-02]") == std::vector<std::string>{"cpn-q06-04-01", "cpn-q06-04-02"});
  CHECK_THROWS(expand_hostlist("n[1-"));
}

TEST_CASE("a job that runs to completion is never TIMEOUT through rounding", "[engine]") {
  // Fractional start times: start + runtime - start need not equal runtime in floating point.
  Workload w;
  JobBuilder b{w};
  for (int i = 0; i < 200; ++i) b.add(i, 0.1 * i + 1e-7 * i * i, 0.3 + 0.01 * i, 1, kNever);
  auto cl = uniform_cluster("n", 1, 1);
  auto s = baseline::make_fifo();
  Engine e(w, cl, *s, EngineConfig{});
  e.run();
  for (const auto& r : e.runs()) CHECK(r.state == JobState::Completed);
}

namespace {
// Starts every pending job at once with the shares it is given (by job index).
class Placing : public Scheduler {
 public:
  std::vector<std::vector<NodeShare>> at;
  std::string_view name() const override { return "placing"; }
  void schedule(const Snapshot& v, Decisions& out) override {
    for (JobIdx j : v.pending) out.start(j, at[j]);
  }
};
}  // namespace

TEST_CASE("CPUs and memory: the engine tracks them per node and refuses a start over them", "[engine][resources]") {
  Workload w;
  JobBuilder b{w};
  b.add(1, 0, 100, 0);  // CPU-only
  b.add(2, 0, 100, 1);
  w.jobs[0].cpus = 24;
  w.jobs[1].cpus = 8;
  ClusterConfig cl = uniform_cluster("n", 1, 4);
  cl.node_cpus = {32};
  cl.node_mem_bytes = {int64_t{1024} << 20};
  Placing s;
  s.at = {{{0, 0, 24, 512}}, {{0, 1, 8, 512}}};
  {
    Engine e(w, cl, s, EngineConfig{.check_invariants = true});
    e.run();
    CHECK(e.runs()[0].start_s == 0);
    CHECK(e.runs()[1].start_s == 0);
    CHECK(e.runs()[1].state == JobState::Completed);
  }
  s.at[1][0].cpus = 9;  // 8 CPUs left
  {
    Engine e(w, cl, s, EngineConfig{.check_invariants = true});
    CHECK_THROWS_WITH(e.run(), Catch::Contains("node n001 has 8 free CPUs, asked 9"));
  }
  s.at[1][0].cpus = 8;
  s.at[1][0].mem_mib = 513;  // 512 MiB left
  {
    Engine e(w, cl, s, EngineConfig{.check_invariants = true});
    CHECK_THROWS_WITH(e.run(), Catch::Contains("512 MiB of memory free, asked 513"));
  }
}

namespace {

// Records each job's placement at its start, as a model sees it.
class StartRecorder : public Scheduler {
 public:
  std::unique_ptr<Scheduler> fifo = baseline::make_fifo();
  std::map<JobIdx, std::vector<NodeShare>> last;
  std::string_view name() const override { return "recorder"; }
  void schedule(const Snapshot& v, Decisions& out) override { fifo->schedule(v, out); }
  void on_job_event(const JobEvent& e, const Snapshot& v) override {
    if (e.kind != JobEvent::Kind::Started) return;
    auto a = v.allocation_of(e.job);
    last[e.job].assign(a.begin(), a.end());
  }
};

bool same_shares(std::span<const NodeShare> a, const std::vector<NodeShare>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].node != b[i].node || a[i].gpus != b[i].gpus || a[i].cpus != b[i].cpus || a[i].mem_mib != b[i].mem_mib) return false;
  return true;
}

}  // namespace

TEST_CASE("finished jobs' placements survive the pool's compaction", "[engine]") {
  // 3 nodes of 2 GPUs: the pool holds a few thousand shares, so 4,000 starts compact it often.
  Workload w;
  JobBuilder b{w};
  for (int i = 0; i < 4000; ++i) b.add(i + 1, i, 1 + i % 7, 1 + i % 4);
  auto cl = uniform_cluster("n", 3, 2);
  StartRecorder rec;
  Engine e(w, cl, rec, EngineConfig{});
  e.run();
  REQUIRE(rec.last.size() == w.jobs.size());
  for (const auto& [j, shares] : rec.last) {
    INFO("job " << w.jobs[j].id);
    CHECK(e.runs()[j].state == JobState::Completed);
    CHECK(same_shares(e.final_allocation(j), shares));
    CHECK(e.runs()[j].alloc_count == shares.size());
  }
}

TEST_CASE("the placement archive reads back what it was given", "[engine]") {
  AllocArchive a;
  const std::vector<NodeShare> plain = {{5, 8, 0, 0}, {6, 8, 0, 0}, {2, 1, 0, 0}, {100000, 3, 0, 0}};
  const std::vector<NodeShare> rich = {{9, 1, 16, 65536}, {0, 0, 4, 0}, {4000000000u, 2147483647, 0, 2147483647}};
  const uint64_t p = a.add(plain), r = a.add(rich), none = a.add({});
  std::vector<NodeShare> out;
  a.read(p, static_cast<uint32_t>(plain.size()), out);
  CHECK(same_shares(out, plain));
  a.read(r, static_cast<uint32_t>(rich.size()), out);
  CHECK(same_shares(out, rich));
  a.read(none, 0, out);
  CHECK(out.empty());
  CHECK(a.bytes() < 4 * 16);  // smaller than the NodeShares
}
