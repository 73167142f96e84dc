// Conformance: multifactor priority and fair-share (spec slurm-model.md §3).
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::SlurmConfig;
using floorsim::slurm::PriorityType;

namespace {
SlurmConfig mf() {
  SlurmConfig c;
  c.sched.backfill = false;
  c.prio.type = PriorityType::Multifactor;
  return c;
}
}  // namespace

TEST_CASE("slurm §3: QOS factor orders jobs; priority is an integer", "[slurm][priority]") {
  SlurmConfig c = mf();
  c.prio.weight_qos = 1000;
  c.qos = {qos("lo", 5), qos("hi", 10)};
  auto r = run(c, {{1, 0, 100, 100, 8}, {2, 1, 10, 10, 8, 0, "u1", "lo"}, {3, 2, 10, 10, 8, 0, "u1", "hi"}}, 1);
  CHECK(r->start(3) == 100);
  CHECK(r->start(2) == 110);
  CHECK(r->priority(3) == 1000);
  CHECK(r->priority(2) == 500);
}

TEST_CASE("slurm §3: age factor grows to PriorityMaxAge; every weight defaults to 0", "[slurm][priority]") {
  SlurmConfig c = mf();
  c.prio.weight_age = 1000;
  c.prio.max_age_s = 1000;
  // Job 2 waits from 1 to 400. Its priority is set at submission (age 0: clamped to 1) and again
  // by the decay pass at 300 (PriorityCalcPeriod 5 min after the first at 0): floor(1000*299/1000).
  auto r = run(c, {{1, 0, 400, 400, 8}, {2, 1, 10, 10, 8}}, 1);
  CHECK(r->priority(2) == 299);
  // Waiting from 1 to 100, no decay pass ran: the submission's value stands.
  auto s = run(c, {{1, 0, 100, 100, 8}, {2, 1, 10, 10, 8}}, 1);
  CHECK(s->priority(2) == 1);
  c.prio.max_age_s = 100;  // capped at PriorityMaxAge
  auto m = run(c, {{1, 0, 400, 400, 8}, {2, 1, 10, 10, 8}}, 1);
  CHECK(m->priority(2) == 1000);
  SlurmConfig z = mf();
  auto q = run(z, {{1, 0, 100, 100, 8}, {2, 1, 10, 10, 8}}, 1);
  CHECK(q->priority(2) == 1);  // all weights 0: clamped to 1
}

TEST_CASE("slurm §3: the queue is sorted by the priority set at submission until the next decay pass",
          "[slurm][priority]") {
  // priority_p_set at submission, _decay_thread every PriorityCalcPeriod: a job's age counts only
  // from the decay pass on. Job 2 (QOS lo, factor 0) queues at 1, job 3 (QOS hi: +100) at 200.
  SlurmConfig c = mf();
  c.prio.weight_age = 1000;
  c.prio.max_age_s = 1000;
  c.prio.weight_qos = 100;
  c.qos = {qos("lo", 0), qos("hi", 10)};
  // The node frees at 280, before the decay pass at 300: job 2 still holds its submission value
  // (1) and job 3 its own (100), so job 3 goes first (recomputed at 280, job 2's 279 would win).
  auto r = run(c, {{1, 0, 280, 280, 8}, {2, 1, 10, 10, 8, 0, "u1", "lo"}, {3, 200, 10, 10, 8, 0, "u1", "hi"}}, 1);
  CHECK(r->priority(2) == 1);
  CHECK(r->priority(3) == 100);
  CHECK(r->start(3) == 280);
  CHECK(r->start(2) == 290);
  // Freed at 400, after the decay pass at 300: 299 against 100 + 100, job 2 first.
  auto s = run(c, {{1, 0, 400, 400, 8}, {2, 1, 10, 10, 8, 0, "u1", "lo"}, {3, 200, 10, 10, 8, 0, "u1", "hi"}}, 1);
  CHECK(s->priority(2) == 299);
  CHECK(s->priority(3) == 200);
  CHECK(s->start(2) == 400);
  CHECK(s->start(3) == 410);
}

TEST_CASE("slurm §3: priority/basic (22.05 default) keeps FIFO regardless of QOS", "[slurm][priority]") {
  SlurmConfig c;
  c.sched.backfill = false;
  c.prio.weight_qos = 1000;
  c.qos = {qos("lo", 5), qos("hi", 10)};
  auto r = run(c, {{1, 0, 100, 100, 8}, {2, 1, 10, 10, 8, 0, "u1", "lo"}, {3, 2, 10, 10, 8, 0, "u1", "hi"}}, 1);
  CHECK(r->start(2) == 100);
  CHECK(r->start(3) == 110);
}

TEST_CASE("slurm §3: partition factor and job size factor", "[slurm][priority]") {
  SlurmConfig c = mf();
  c.prio.weight_partition = 1000;
  c.prio.weight_jobsize = 1000;
  c.partitions = {part("a", {}), part("b", {})};
  c.partitions[0].is_default = true;
  c.partitions[1].priority_job_factor = 4;
  // 2 nodes x 8 GPUs (16 total). Job 2: 4 GPUs, 1 node in a: part 250, size (1/2 + 4/16)/2*1000 = 375.
  auto r = run(c, {{1, 0, 100, 100, 16}, {2, 1, 10, 10, 4}, {3, 2, 10, 10, 16, 2, "u1", "", "b"}}, 2);
  CHECK(r->priority(2) == 250 + 375);
  CHECK(r->priority(3) == 1000 + 1000);
  CHECK(r->start(3) == 100);
  CHECK(r->start(2) == 110);
}

namespace {
// u1 runs first (usage), then u1 and u2 submit at once while the node is busy: with a
// fair-share weight u2 goes first.
std::vector<J> fs_jobs() {
  return {{1, 0, 100, 100, 8, 0, "u1", "", "", "a"}, {9, 100, 200, 200, 8, 0, "u3", "", "", "b"},
          {2, 150, 10, 10, 8, 0, "u1", "", "", "a"}, {3, 150, 10, 10, 8, 0, "u2", "", "", "a"}};
}
}  // namespace

TEST_CASE("slurm §3: Fair Tree ranks users with less usage first", "[slurm][priority]") {
  SlurmConfig c = mf();
  c.prio.weight_fairshare = 10000;
  c.prio.calc_period_s = 10;
  auto r = run(c, fs_jobs(), 1);
  CHECK(r->start(3) == 300);
  CHECK(r->start(2) == 310);
  CHECK(r->priority(3) == 10000);  // LF(a) = 0.5/(1/3) > LF(b): u2 (no usage) ranks 3 of 3
  CHECK(r->priority(2) == 6666);   // u1 ranks 2 of 3
  SlurmConfig none = mf();
  auto n = run(none, fs_jobs(), 1);
  CHECK(n->start(2) == 300);  // no fair-share weight: submit order
}

TEST_CASE("slurm §3: classic fair-share 2^(-U/S)", "[slurm][priority]") {
  SlurmConfig c = mf();
  c.prio.fair_tree = false;
  c.prio.weight_fairshare = 10000;
  c.prio.calc_period_s = 10;
  c.prio.decay_half_life_s = 0;  // no decay: exact figures
  auto r = run(c, fs_jobs(), 1);
  CHECK(r->start(3) == 300);
  // At t=300: usage u1 = 800 GPU-s (job 1), u3 = 1600 (job 9, 200 s x 8), total 2400.
  // Accounts a and b have 1 share each (S=0.5), users u1,u2 in a S=0.25 each.
  // u2: U_norm = 0; U_eff = 0 + (U_eff(a) - 0) * 0.5 = 1/6 with U_eff(a) = 800/2400; fs = 2^(-(1/6)/0.25).
  const double fs_u2 = std::pow(2.0, -(1.0 / 6) / 0.25);
  CHECK(r->priority(3) == std::floor(10000 * fs_u2));
  // Job 2's priority was last computed at t=310, after job 3 (u2, 80 GPU-s) ended: total 2480,
  // U_eff(a) = 880/2480; u1: U_norm = 800/2480, U_eff = 800/2480 + (880-800)/2480 * 0.5.
  const double fs_u1 = std::pow(2.0, -(840.0 / 2480) / 0.25);
  CHECK(r->priority(2) == std::floor(10000 * fs_u1));
}

TEST_CASE("slurm §3: Fair Tree re-ranks when usage overtakes (order kept between calculations is re-sorted)",
          "[slurm][priority]") {
  // root -> a -> {u1, u2}. u1 used 800 GPU-s (job 1). u2's job 2 runs 100..400. At t=150, when
  // jobs 4 (u2) and 5 (u1) are queued, u2 has 400 GPU-s and ranks first; from t=200 on u2 has
  // used more than u1, so at t=400 (u1 800, u2 2400): LF(u1) = 0.5/0.25 = 2 > LF(u2) = 0.5/0.75.
  SlurmConfig c = mf();
  c.prio.weight_fairshare = 10000;
  c.prio.calc_period_s = 10;
  c.prio.decay_half_life_s = 0;
  auto r = run(c,
               {{1, 0, 100, 100, 8, 0, "u1", "", "", "a"},
                {2, 100, 300, 300, 8, 0, "u2", "", "", "a"},
                {4, 150, 10, 10, 8, 0, "u2", "", "", "a"},
                {5, 150, 10, 10, 8, 0, "u1", "", "", "a"}},
               1);
  CHECK(r->start(5) == 400);
  CHECK(r->start(4) == 410);
  CHECK(r->priority(5) == 10000);  // rank 2 of 2
  CHECK(r->priority(4) == 5000);   // rank 1 of 2 (computed again at t=410)
  CHECK(r->report["fairshare"]["u1@a"] == 1.0);
  CHECK(r->report["fairshare"]["u2@a"] == 0.5);
}

TEST_CASE("slurm §3: Fair Tree on a wide level (20 users of one account): ranks, usage ties and users without usage",
          "[slurm][priority]") {
  // Account a holds u01..u20 (a level of >= 16 children of equal shares, which the model keeps in
  // usage order). At t=0 u01..u18 run 100 s on k GPUs (k = 1..18, but u06 uses 5 like u05); u19
  // and u20 never ran. A 200-GPU job of zz (account z) runs 100..200, so at t=200 root ranks a
  // (17000 GPU-s) before z (20000). In a, u19 and u20 (no usage) tie at rank 21 of 21 users, u05
  // and u06 tie as well, and each other user ranks below those of less usage.
  SlurmConfig c = mf();
  c.prio.weight_fairshare = 10000;
  c.prio.calc_period_s = 10;
  c.prio.decay_half_life_s = 0;  // no decay: exact usages
  auto p = part("gpu", {});
  p.is_default = true;
  p.billing.set = true;  // TRESBillingWeights=GRES/gpu=1: usage in GPU-seconds, as the ranks below assume
  p.billing.gpu = 1;
  c.partitions = {p};
  std::vector<J> jobs;
  auto name = [](int k) { return (k < 10 ? "u0" : "u") + std::to_string(k); };
  for (int k = 1; k <= 18; ++k) jobs.push_back({k, 0, 100, 100, k == 6 ? 5 : k, 0, name(k), "", "", "a"});
  jobs.push_back({50, 100, 100, 100, 200, 0, "zz", "", "", "z"});
  for (int k = 1; k <= 20; ++k) jobs.push_back({100 + k, 150, 10, 10, 1, 0, name(k), "", "", "a"});
  auto r = run(c, jobs, 1, 200);
  for (int k = 1; k <= 20; ++k) CHECK(r->start(100 + k) == 200);
  // fs = (21 - users ranked before the user's tie group) / 21.
  auto prio = [](int before) { return std::floor(10000.0 * (21 - before) / 21); };
  CHECK(r->priority(119) == prio(0));
  CHECK(r->priority(120) == prio(0));
  for (int k = 1; k <= 5; ++k) CHECK(r->priority(100 + k) == prio(k + 1));
  CHECK(r->priority(106) == prio(6));  // ties with u05
  for (int k = 7; k <= 18; ++k) CHECK(r->priority(100 + k) == prio(k + 1));
}
