// Conformance: QOS and association limits, AccountingStorageEnforce (spec slurm-model.md §4).
#include <catch2/catch.hpp>

#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::SlurmConfig;

namespace {
SlurmConfig limits_cfg() {
  SlurmConfig c;
  c.sched.backfill = false;
  c.sched.batch_sched_delay_s = 0;  // a pass at every event: the limits are timed without it
  c.enforce_limits = true;
  return c;
}
}  // namespace

TEST_CASE("slurm §4: GrpTRES gres/gpu holds a job with QOSGrpGRES and blocks nothing", "[slurm][limits]") {
  SlurmConfig c = limits_cfg();
  auto q = qos("risk");
  q.grp_tres.gpu = 8;
  c.qos = {q};
  auto r = run(c, {{1, 0, 100, 100, 8, 0, "u1", "risk"}, {2, 1, 100, 100, 8, 0, "u1", "risk"}, {3, 2, 100, 100, 8}}, 2, 8, 50);
  CHECK(r->start(1) == 0);
  CHECK(r->start(2) == -1);
  CHECK(r->reason(2) == "QOSGrpGRES");
  CHECK(r->start(3) == 2);  // the limit-blocked job 2 does not block the partition
  auto all = run(c, {{1, 0, 100, 100, 8, 0, "u1", "risk"}, {2, 1, 100, 100, 8, 0, "u1", "risk"}}, 2);
  CHECK(all->start(2) == 100);
  CHECK(all->extras(2)[2] == "risk");
}

TEST_CASE("slurm §4: without AccountingStorageEnforce=limits no limit is enforced", "[slurm][limits]") {
  SlurmConfig c = limits_cfg();
  c.enforce_limits = false;
  auto q = qos("risk");
  q.grp_tres.gpu = 8;
  c.qos = {q};
  auto r = run(c, {{1, 0, 100, 100, 8, 0, "u1", "risk"}, {2, 1, 100, 100, 8, 0, "u1", "risk"}}, 2);
  CHECK(r->start(2) == 1);
}

TEST_CASE("slurm §1: assoc_limit_stop makes a limit-blocked job block its partition", "[slurm][limits]") {
  SlurmConfig c = limits_cfg();
  c.sched.assoc_limit_stop = true;
  auto q = qos("risk");
  q.grp_tres.gpu = 8;
  c.qos = {q};
  auto r = run(c, {{1, 0, 100, 100, 8, 0, "u1", "risk"}, {2, 1, 100, 100, 8, 0, "u1", "risk"}, {3, 2, 100, 100, 8}}, 3, 8, 50);
  CHECK(r->start(3) == -1);
  CHECK(r->reason(3) == "Priority");
}

TEST_CASE("slurm §4: GrpTRES node and cpu reasons", "[slurm][limits]") {
  SlurmConfig c = limits_cfg();
  auto q = qos("q");
  q.grp_tres.node = 1;
  c.qos = {q};
  auto r = run(c, {{1, 0, 100, 100, 4, 0, "u1", "q"}, {2, 1, 100, 100, 4, 0, "u1", "q"}}, 2, 8, 50);
  CHECK(r->reason(2) == "QOSGrpNodeLimit");
}

TEST_CASE("slurm §4: MaxTRESPerUser and MaxJobsPerUser apply per user within the QOS", "[slurm][limits]") {
  SlurmConfig c = limits_cfg();
  auto q = qos("q");
  q.max_tres_per_user.gpu = 8;
  auto m = qos("m");
  m.max_jobs_per_user = 1;
  c.qos = {q, m};
  auto r = run(c, {{1, 0, 100, 100, 8, 0, "u1", "q"}, {2, 1, 100, 100, 4, 0, "u1", "q"}, {3, 2, 100, 100, 8, 0, "u2", "q"},
                   {4, 3, 100, 100, 1, 0, "u3", "m"}, {5, 4, 100, 100, 1, 0, "u3", "m"}}, 4, 8, 50);
  CHECK(r->start(1) == 0);
  CHECK(r->reason(2) == "QOSMaxGRESPerUser");
  CHECK(r->start(3) == 2);
  CHECK(r->start(4) == 3);
  CHECK(r->reason(5) == "QOSMaxJobsPerUserLimit");
}

TEST_CASE("slurm §4: MaxWall holds a job whose limit is longer", "[slurm][limits]") {
  SlurmConfig c = limits_cfg();
  auto q = qos("q");
  q.max_wall_s = 60;
  c.qos = {q};
  auto r = run(c, {{1, 0, 10, 120, 1, 0, "u1", "q"}, {2, 0, 10, 60, 1, 0, "u1", "q"}}, 1, 8, 500);
  CHECK(r->start(1) == -1);
  CHECK(r->reason(1) == "QOSMaxWallDurationPerJobLimit");
  CHECK(r->start(2) == 0);
}

TEST_CASE("slurm §4: a Partition QOS pools usage across the partitions using it", "[slurm][limits]") {
  SlurmConfig c = limits_cfg();
  auto pq = qos("pq");
  pq.grp_tres.gpu = 8;
  c.qos = {pq};
  c.partitions = {part("a", {"n001"}), part("b", {"n002"})};
  c.partitions[0].qos = "pq";
  c.partitions[1].qos = "pq";
  auto r = run(c, {{1, 0, 100, 100, 8, 0, "u1", "", "a"}, {2, 1, 100, 100, 8, 0, "u1", "", "b"}}, 2);
  CHECK(r->start(1) == 0);
  CHECK(r->start(2) == 100);
}

TEST_CASE("slurm §4: the first level that defines a limit wins; OverPartQOS swaps", "[slurm][limits]") {
  SlurmConfig c = limits_cfg();
  auto pq = qos("pq");
  pq.grp_tres.gpu = 16;
  auto q = qos("q");
  q.grp_tres.gpu = 8;
  c.qos = {pq, q};
  c.partitions = {part("p", {})};
  c.partitions[0].qos = "pq";
  const std::vector<J> jobs = {{1, 0, 100, 100, 8, 0, "u1", "q", "p"}, {2, 1, 100, 100, 8, 0, "u1", "q", "p"}};
  auto r = run(c, jobs, 2);
  CHECK(r->start(2) == 1);  // Partition QOS (16) wins over the job QOS (8): not the minimum
  c.qos[1].flags.over_part_qos = true;
  auto o = run(c, jobs, 2);
  CHECK(o->start(2) == 100);  // job QOS first
}

TEST_CASE("slurm §4: account GrpTRES caps its users (AssocGrpGRES)", "[slurm][limits]") {
  SlurmConfig c = limits_cfg();
  floorsim::slurm::Account a;
  a.name = "desk";
  a.parent = "root";
  a.grp_tres.gpu = 8;
  c.accounts = {a};
  floorsim::slurm::User u1, u2;
  u1.name = "alice", u1.account = "desk";
  u2.name = "bob", u2.account = "desk";
  c.users = {u1, u2};
  auto r = run(c, {{1, 0, 100, 100, 8, 0, "alice"}, {2, 1, 100, 100, 8, 0, "bob"}, {3, 2, 100, 100, 8, 0, "carol"}}, 3, 8, 50);
  CHECK(r->start(1) == 0);
  CHECK(r->reason(2) == "AssocGrpGRES");
  CHECK(r->start(3) == 2);  // carol has an implicit association outside desk
}

TEST_CASE("slurm §4: DenyOnLimit rejects a job that alone breaks a Max limit", "[slurm][limits]") {
  SlurmConfig c = limits_cfg();
  auto q = qos("q");
  q.max_wall_s = 60;
  q.grp_tres.gpu = 8;  // Grp counts as Max
  q.flags.deny_on_limit = true;
  c.qos = {q};
  auto r = run(c, {{1, 5, 10, 120, 1, 0, "u1", "q"}, {2, 5, 10, 60, 16, 2, "u1", "q"}, {3, 5, 10, 60, 8, 0, "u1", "q"}}, 2);
  CHECK(r->run(1).state == floorsim::JobState::Cancelled);
  CHECK(r->run(1).end_s == 5);
  CHECK(r->run(2).state == floorsim::JobState::Cancelled);
  CHECK(r->start(3) == 5);
}

TEST_CASE("slurm §4: GrpTRESMins counts decayed usage; NoDecay keeps it", "[slurm][limits]") {
  SlurmConfig c = limits_cfg();
  c.prio.calc_period_s = 10;
  c.prio.decay_half_life_s = 100;
  auto q = qos("q");
  q.grp_tres_mins.gpu = 10;  // 600 GPU-seconds
  c.qos = {q};
  // Job 1 uses 8 GPUs for 100 s (800 GPU-s). Job 2 was allowed while usage < limit (no `safe`)
  // but waited for the node; at 100 usage is over the limit until decay brings it under.
  const std::vector<J> jobs = {{1, 0, 100, 100, 8, 0, "u1", "q"}, {2, 50, 10, 10, 8, 0, "u1", "q"}};
  auto r = run(c, jobs, 1);
  CHECK(r->start(2) > 100);
  CHECK(r->start(2) < 200);
  c.qos[0].flags.no_decay = true;
  auto n = run(c, jobs, 1, 8, 5000);
  CHECK(n->start(2) == -1);
  CHECK(n->reason(2) == "QOSGrpGRESMinutes");
}
