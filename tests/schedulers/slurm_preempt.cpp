// Conformance: preempt/qos and requeue (spec slurm-model.md §5, §8).
#include <catch2/catch.hpp>

#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::SlurmConfig;
namespace sl = floorsim::slurm;

namespace {
SlurmConfig pre(sl::PreemptMode mode = sl::PreemptMode::Requeue) {
  SlurmConfig c;
  c.preempt_qos = true;
  c.preempt_mode = mode;
  auto hi = qos("hi", 10);
  hi.preempt = {"lo", "lo0"};
  c.qos = {hi, qos("lo", 1), qos("lo0", 0)};
  return c;
}
}  // namespace

TEST_CASE("slurm §5/§8: REQUEUE keeps the id; the job waits requeue_delay+1 s (BeginTime)", "[slurm][preempt]") {
  auto r = run(pre(), {{1, 0, 1000, 1000, 8, 0, "u1", "lo"}, {2, 10, 50, 50, 8, 0, "u1", "hi"}}, 1);
  CHECK(r->start(2) == 10);
  CHECK(r->run(1).requeues == 1);
  CHECK(r->run(1).preemptions == 1);
  CHECK(r->run(1).start_s == 131);  // 10 + 120 + 1, although the node is free from 60
  CHECK(r->run(1).lost_gpu_s == 80);
  CHECK(r->run(1).state == floorsim::JobState::Completed);
  auto w = run(pre(), {{1, 0, 1000, 1000, 8, 0, "u1", "lo"}, {2, 10, 50, 50, 8, 0, "u1", "hi"}}, 1, 8, 100);
  CHECK(w->reason(1) == "BeginTime");
}

TEST_CASE("slurm §5: CANCEL ends the preemptee", "[slurm][preempt]") {
  auto r = run(pre(sl::PreemptMode::Cancel), {{1, 0, 1000, 1000, 8, 0, "u1", "lo"}, {2, 10, 50, 50, 8, 0, "u1", "hi"}}, 1);
  CHECK(r->start(2) == 10);
  CHECK(r->run(1).state == floorsim::JobState::Cancelled);
  CHECK(r->run(1).end_s == 10);
}

TEST_CASE("slurm §5: a QOS PreemptMode overrides the global one; not requeueable means cancel", "[slurm][preempt]") {
  SlurmConfig c = pre(sl::PreemptMode::Requeue);
  c.qos[1].preempt_mode = sl::PreemptMode::Cancel;
  auto r = run(c, {{1, 0, 1000, 1000, 8, 0, "u1", "lo"}, {2, 10, 50, 50, 8, 0, "u1", "hi"}}, 1);
  CHECK(r->run(1).state == floorsim::JobState::Cancelled);
}

TEST_CASE("slurm §5: only QOS in the Preempt list are preempted", "[slurm][preempt]") {
  SlurmConfig c = pre();
  c.qos.push_back(qos("other", 0));
  auto r = run(c, {{1, 0, 100, 100, 8, 0, "u1", "other"}, {2, 10, 50, 50, 8, 0, "u1", "hi"}}, 1);
  CHECK(r->run(1).preemptions == 0);
  CHECK(r->start(2) == 100);
}

TEST_CASE("slurm §5: PreemptExemptTime protects a job after its start", "[slurm][preempt]") {
  SlurmConfig c = pre();
  c.qos[1].preempt_exempt_time_s = 100;
  // Exempt until 100; the next pass after that is the periodic one at 120.
  auto r = run(c, {{1, 0, 1000, 1000, 8, 0, "u1", "lo"}, {2, 10, 50, 50, 8, 0, "u1", "hi"}}, 1);
  CHECK(r->start(2) == 120);
  CHECK(r->run(1).preemptions == 1);
}

TEST_CASE("slurm §5: GraceTime delays the stop; the preemptor waits", "[slurm][preempt]") {
  SlurmConfig c = pre();
  c.qos[1].grace_time_s = 25;
  auto r = run(c, {{1, 0, 1000, 1000, 8, 0, "u1", "lo"}, {2, 10, 50, 50, 8, 0, "u1", "hi"}}, 1);
  CHECK(r->start(2) == 35);
  CHECK(r->run(1).preemptions == 1);
  CHECK(r->run(1).requeues == 1);
}

TEST_CASE("slurm §5: victims in ascending (QOS priority << 16) + nodes", "[slurm][preempt]") {
  // Job 1 (lo, priority 1) on n001, job 3 (lo0, priority 0) on n002: the preemptor takes job 3.
  auto r = run(pre(), {{1, 0, 1000, 1000, 8, 0, "u1", "lo"}, {3, 1, 1000, 1000, 8, 0, "u1", "lo0"},
                       {2, 10, 50, 50, 8, 0, "u1", "hi"}}, 2);
  CHECK(r->run(1).preemptions == 0);
  CHECK(r->run(3).preemptions == 1);
  CHECK(r->nodes(2) == std::vector<std::string>{"n002"});
}

TEST_CASE("slurm §5: the victim set is recomputed from the last one to preempt fewer", "[slurm][preempt]") {
  // The preemptor needs 8 GPUs on one node. Candidates in order: job 4 (lo0, 4 GPUs on n002),
  // then job 5 (lo, 8 GPUs on n001). Only after removing both does it fit; recomputed from the
  // last (job 5) it fits alone, so job 4 keeps running. Job 6 (normal) is not a candidate.
  auto r = run(pre(), {{5, 0, 1000, 1000, 8, 0, "u1", "lo"}, {4, 1, 1000, 1000, 4, 0, "u1", "lo0"},
                       {6, 2, 1000, 1000, 4}, {2, 10, 50, 50, 8, 0, "u1", "hi"}}, 2);
  CHECK(r->run(5).preemptions == 1);
  CHECK(r->run(4).preemptions == 0);
  CHECK(r->start(2) == 10);
  CHECK(r->nodes(2) == std::vector<std::string>{"n001"});
}

TEST_CASE("slurm §1: with preemption on, a preemptor QOS sorts before its preemptees", "[slurm][preempt]") {
  SlurmConfig c = pre();
  c.sched.backfill = false;
  c.qos[0].preempt = {"lo"};
  // Node busy with a job that cannot be preempted (normal); lo (earlier) and hi queue behind.
  auto r = run(c, {{1, 0, 100, 100, 8}, {2, 1, 10, 10, 8, 0, "u1", "lo"}, {3, 2, 10, 10, 8, 0, "u1", "hi"}}, 1);
  CHECK(r->start(3) == 100);
  CHECK(r->start(2) == 110);
}

TEST_CASE("slurm §2/§5: backfill releases a preemptor's preemptable jobs at now", "[slurm][preempt][backfill]") {
  // 2 nodes x 8 GPUs. Job 1 (lo, preemptable by hi) holds n001 until 10000; job 2 (normal, not
  // preemptable) holds n002 until 3600. Job 3 (hi) needs both nodes: the main loop cannot
  // preempt its way in (job 2 stays), and backfill, releasing job 1 at now, plans it when job
  // 2 ends (3600) rather than when both end (10000).
  const std::vector<J> jobs = {{1, 0, 10000, 10000, 8, 0, "u1", "lo"},
                               {2, 0, 3600, 3600, 8, 0, "u1", ""},
                               {3, 10, 100, 100, 16, 0, "u1", "hi"}};
  auto p = run(pre(), jobs, 2, 8, 100);
  CHECK(p->reason(3) == "Resources");
  CHECK(p->planned(3) == "3600");
  auto r = run(pre(), jobs, 2);
  CHECK(r->start(3) == 3600);  // job 2 ends: the main loop preempts job 1
  CHECK(r->run(1).preemptions == 1);
  // A job exempt by PreemptExemptTime is not preemptable: released in end order as before.
  SlurmConfig c = pre();
  c.qos[1].preempt_exempt_time_s = 20000;
  auto e = run(c, jobs, 2, 8, 100);
  CHECK(e->planned(3) == "10000");
  // Without preemption nothing is released early.
  SlurmConfig n = pre();
  n.preempt_qos = false;
  auto q = run(n, jobs, 2, 8, 100);
  CHECK(q->planned(3) == "10000");
}

TEST_CASE("slurm §2/§5: a preemptor that backfill can start now only by preempting preempts", "[slurm][preempt][backfill]") {
  // FIFO (priority/basic): job 2 (normal, both nodes) is first in the queue and blocks the
  // partition in the main loop, so job 3 (hi) is not tried there. Backfill plans job 2 when
  // jobs 1 and 4 end (1000) and then finds job 3 fits now if job 1 (lo) goes: it preempts job 1
  // and starts job 3 at once (8 GPUs for 100 s, before job 2's reservation).
  SlurmConfig c = pre();
  c.prio.type = sl::PriorityType::Basic;
  const std::vector<J> jobs = {{1, 0, 1000, 1000, 8, 0, "u1", "lo"},
                               {4, 0, 1000, 1000, 8, 0, "u1", ""},
                               {2, 5, 100, 100, 16, 0, "u1", ""},
                               {3, 10, 100, 100, 8, 0, "u1", "hi"}};
  auto r = run(c, jobs, 2);
  CHECK(r->run(1).preemptions == 1);
  CHECK(r->start(3) < 1000);
  CHECK(r->nodes(3) == std::vector<std::string>{"n001"});
  CHECK(r->extras(3).at(3) == "backfill");  // jobs.csv started_by: the preemption came from backfill
}
