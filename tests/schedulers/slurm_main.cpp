// Conformance: queue order and the main scheduling loop (spec slurm-model.md §1).
#include <catch2/catch.hpp>

#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::SlurmConfig;

namespace {
SlurmConfig main_only() {
  SlurmConfig c;
  c.sched.backfill = false;     // sched/builtin: only the main loop
  c.sched.batch_sched_delay_s = 0;  // a pass at every event: the rules below are timed without it
  return c;
}
}  // namespace

TEST_CASE("slurm §1: priority/basic is FIFO and a blocked head blocks its partition", "[slurm][main]") {
  // 2 nodes x 8 GPUs. Job 1 takes 12 GPUs (both nodes); job 2 (16 GPUs) blocks; job 3 (4 GPUs)
  // fits now but is behind a blocked job of the same partition: the main loop never starts it.
  auto r = run(main_only(), {{1, 0, 100, 200, 12}, {2, 1, 100, 200, 16}, {3, 2, 50, 60, 4}}, 2);
  CHECK(r->start(1) == 0);
  CHECK(r->start(2) == 100);
  CHECK(r->start(3) == 200);  // only after job 2 ended
}

TEST_CASE("slurm §1: a blocked partition does not block a partition on other nodes", "[slurm][main]") {
  SlurmConfig c = main_only();
  c.partitions = {part("a", {"n001"}), part("b", {"n002"})};
  auto r = run(c, {{1, 0, 100, 200, 8, 0, "u1", "", "a"}, {2, 1, 100, 200, 8, 0, "u1", "", "a"}, {3, 2, 10, 20, 8, 0, "u1", "", "b"}}, 2);
  CHECK(r->start(2) == 100);
  CHECK(r->start(3) == 2);
}

TEST_CASE("slurm §1: a failed partition's nodes leave avail, blocking overlapping partitions", "[slurm][main]") {
  // Partition big = n001-n002 (tier 2, scheduled first), small = n002 only. Job 2 (big, 16 GPUs)
  // fails: n001 and n002 leave avail, so job 3 in small cannot start on free GPUs of n002.
  SlurmConfig c = main_only();
  c.partitions = {part("big", {"n001", "n002"}, 2), part("small", {"n002"}, 1)};
  auto r = run(c, {{1, 0, 100, 200, 8, 0, "u1", "", "big"}, {2, 1, 100, 200, 16, 0, "u1", "", "big"}, {3, 2, 10, 20, 4, 0, "u1", "", "small"}}, 2);
  CHECK(r->start(1) == 0);
  REQUIRE(r->nodes(1) == std::vector<std::string>{"n001"});
  CHECK(r->start(2) == 100);
  CHECK(r->start(3) == 200);
}

TEST_CASE("slurm §1: order is PriorityTier, then priority, then submit time, then id", "[slurm][main]") {
  SlurmConfig c = main_only();
  c.partitions = {part("low", {}, 1), part("high", {}, 5)};
  c.partitions[0].is_default = true;
  // One node; job 1 occupies it; jobs 2..4 wait. Job 4 is in the higher tier and goes first;
  // then 2 before 3 (earlier submit). Jobs 5 and 6 share a submit time: lower id first.
  auto r = run(c, {{1, 0, 10, 10, 8}, {2, 1, 10, 10, 8}, {3, 2, 10, 10, 8}, {4, 3, 10, 10, 8, 0, "u1", "", "high"},
                   {6, 4, 10, 10, 8}, {5, 4, 10, 10, 8}}, 1);
  CHECK(r->start(1) == 0);
  CHECK(r->start(4) == 10);
  CHECK(r->start(2) == 20);
  CHECK(r->start(3) == 30);
  CHECK(r->start(5) == 40);
  CHECK(r->start(6) == 50);
  CHECK(r->nodes(4) == std::vector<std::string>{"n001"});
}

TEST_CASE("slurm §1: pending reasons Resources and Priority", "[slurm][main]") {
  auto r = run(main_only(), {{1, 0, 100, 200, 8}, {2, 1, 100, 200, 8}, {3, 2, 100, 200, 8}}, 1, 8, 50);
  CHECK(r->reason(2) == "Resources");
  CHECK(r->reason(3) == "Priority");
}

TEST_CASE("slurm §1: event passes test default_queue_depth jobs, the periodic pass all", "[slurm][main]") {
  // Queue depth 1: event passes test only job 2 (blocked in partition a), so jobs 9 and 3 of
  // partition b wait for the full passes at multiples of sched_interval (60 s).
  SlurmConfig c = main_only();
  c.sched.default_queue_depth = 1;
  c.partitions = {part("a", {"n001"}), part("b", {"n002"})};
  auto r = run(c, {{1, 0, 1000, 1000, 8, 0, "u1", "", "a"}, {2, 1, 100, 1000, 8, 0, "u1", "", "a"},
                   {9, 1, 100, 1000, 8, 0, "u1", "", "b"}, {3, 2, 10, 20, 8, 0, "u1", "", "b"}}, 2);
  CHECK(r->start(9) == 60);
  CHECK(r->start(3) == 180);  // job 9 ends at 160; that event pass again tests only job 2
  CHECK(r->start(2) == 1000);
}

TEST_CASE("slurm §7 / slurm.conf(5) Weight: nodes with the lowest Weight are allocated first", "[slurm][main]") {
  // Table: weights of n001..n003, then the jobs' nodes. Equal weights keep node order.
  struct Row {
    std::vector<int32_t> weights;
    std::vector<std::vector<std::string>> nodes;  // jobs 1..3 (8, 8, 4 GPUs, all at t=0), job 4 (16 GPUs, 2 nodes, t=200)
  };
  const Row rows[] = {
      {{10, 1, 5}, {{"n002"}, {"n003"}, {"n001"}, {"n002", "n003"}}},
      {{1, 1, 1}, {{"n001"}, {"n002"}, {"n003"}, {"n001", "n002"}}},
      {{3, 3, 2}, {{"n003"}, {"n001"}, {"n002"}, {"n001", "n003"}}},
  };
  for (const auto& row : rows) {
    SlurmConfig c = main_only();
    for (int i = 0; i < 3; ++i) {
      slurm::NodeDef d;
      d.name = "n00" + std::to_string(i + 1);
      d.gpus = 8;
      d.weight = row.weights[i];
      c.nodes.push_back(d);
    }
    auto r = run(c, {{1, 0, 100, 100, 8}, {2, 0, 100, 100, 8}, {3, 0, 100, 100, 4}, {4, 200, 10, 10, 16, 2}}, 3);
    INFO("weights " << row.weights[0] << "," << row.weights[1] << "," << row.weights[2]);
    for (int id = 1; id <= 4; ++id) CHECK(r->nodes(id) == row.nodes[id - 1]);
    CHECK(r->start(4) == 200);
  }
}

// controller.c _slurmctld_background: a pass queued by submits or ends runs only once
// batch_sched_delay (default 3 s) has passed since the previous main pass. Seen live on 22.05
// (tests/oracle/recorded/packing.tsv): one-node jobs submitted at 10, 11, 12, 13, 14, 15 s on
// an idle cluster started at 10, 13, 13, 13, 16, 16 s.
TEST_CASE("slurm §1: batch_sched_delay spaces event-triggered main passes", "[slurm][main]") {
  struct Case {
    double delay_s;
    std::vector<SimTime> starts;
  };
  for (const Case& c : {Case{3, {10, 13, 13, 13, 16, 16}}, Case{0, {10, 11, 12, 13, 14, 15}}, Case{5, {10, 15, 15, 15, 15, 15}}}) {
    SlurmConfig cfg = main_only();
    cfg.sched.batch_sched_delay_s = c.delay_s;
    std::vector<J> jobs;
    for (int i = 0; i < 6; ++i) jobs.push_back({i + 1, 10.0 + i, 100, 200, 1});
    auto r = run(cfg, jobs, 4);
    INFO("batch_sched_delay " << c.delay_s);
    for (int i = 0; i < 6; ++i) CHECK(r->start(i + 1) == c.starts[i]);
  }
}

TEST_CASE("slurm: pending jobs start when failed nodes come back, with no other event", "[slurm][main][nodes]") {
  // Both nodes fail at t=0 before the job arrives; they return at 7 s, between periodic passes
  // (sched_interval 60 s) and with nothing running. slurmctld queues a scheduling pass when a
  // node returns to service (scontrol update State=RESUME, node registration), so the job
  // starts at 7 s, not never.
  for (bool bf : {false, true}) {
    SlurmConfig c;
    c.sched.backfill = bf;
    c.sched.batch_sched_delay_s = 0;
    auto r = run(c, {{1, 1, 100, 200, 8}}, 2, 8, kNever, {{0, 0, false}, {0, 1, false}, {7, 0, true}, {7, 1, true}});
    CHECK(r->start(1) == 7);
  }
}

TEST_CASE("slurm: the COMPLETING hand-off (completing_s) delays the next job on an ended job's GPUs", "[slurm][main][completing]") {
  // One node. Job 1 ends at 100; job 2 waits for its GPUs. By default (no Epilog) slurmctld
  // hands the node over in the same second; with a 7 s hand-off job 2 starts at 107, and
  // backfill starts job 3 (4 GPUs, submitted at 103) on the other half at 107 too, not before.
  for (double hand_off : {0.0, 7.0}) {
    INFO("completing_s " << hand_off);
    SlurmConfig c;
    c.sched.batch_sched_delay_s = 0;
    c.sched.completing_s = hand_off;
    auto r = run(c, {{1, 0, 100, 200, 8}, {2, 1, 50, 50, 4}, {3, 103, 10, 10, 4}}, 1);
    CHECK(r->start(2) == 100 + hand_off);
    CHECK(r->start(3) == (hand_off > 0 ? 107 : 103));
  }
}
