// Topology conformance (spec slurm-model.md §7) through the engine: exact start times, node
// lists and reasons for topology/tree with --switches and topology/block with --segment.
#include <catch2/catch.hpp>

#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::SlurmConfig;

namespace {

// 4 nodes x 8 GPUs: leaf s1 = n001-n002, leaf s2 = n003-n004, both under `top` (or no parent).
SlurmConfig tree_cfg(bool root) {
  SlurmConfig c;
  c.topology = "tree";
  c.switches = {{"s1", {"n001", "n002"}, {}, {}}, {"s2", {"n003", "n004"}, {}, {}}};
  if (root) c.switches.push_back({"top", {}, {"s1", "s2"}, {}});
  return c;
}

// j1 (500 s) and j2, j3 (n3_runtime) take one node each, best fit: n001, n002 (s1 is the
// fuller leaf after j1), then n003. j4 (2 nodes, class "wide") comes at t=10: at t=500 only
// n001 (s1) and n004 (s2) are free.
std::vector<J> tree_jobs(SimTime n3_runtime) {
  return {{1, 0, 500, 1000, 8, 1}, {2, 0, 2000, 3000, 8, 1}, {3, 0, n3_runtime, 3000, 8, 1},
          {4, 10, 100, 1000, 16, 2, "u1", "", "", "", "wide"}};
}

}  // namespace

TEST_CASE("tree: best fit leaves, a job spans leaves under a common switch", "[slurm][topology][conformance]") {
  auto r = run(tree_cfg(true), tree_jobs(2000));
  CHECK(r->nodes(1) == std::vector<std::string>{"n001"});
  CHECK(r->nodes(2) == std::vector<std::string>{"n002"});
  CHECK(r->nodes(3) == std::vector<std::string>{"n003"});
  CHECK(r->start(4) == 500);
  CHECK(r->nodes(4) == std::vector<std::string>{"n001", "n004"});
  CHECK(r->extras(4).at(4) == "2");  // leaves column
  const auto& t = r->report.at("topology");
  CHECK(t.at("jobs_by_leaves").at("1") == 3);
  CHECK(t.at("jobs_by_leaves").at("2") == 1);
  CHECK(t.at("leaf_switches") == 2);
}

TEST_CASE("tree: never across leaves without a common parent", "[slurm][topology][conformance]") {
  auto r = run(tree_cfg(false), tree_jobs(700));
  // n001 + n004 at t=500 would span s1 and s2, which share no switch: it waits for n003 (700).
  CHECK(r->start(4) == 700);
  CHECK(r->nodes(4) == std::vector<std::string>{"n003", "n004"});
}

TEST_CASE("tree: --switches=1 waits for one leaf", "[slurm][topology][conformance]") {
  SlurmConfig c = tree_cfg(true);
  c.job_options = {{"wide", 1, 1200, 0}};
  auto r = run(c, tree_jobs(700));
  // At 500 it fits only over two leaves: it waits (Reason=Resources, as select's "waiting for
  // switches" failure reads) until s2 frees at 700, within its 1200 s wait.
  CHECK(r->start(4) == 700);
  CHECK(r->nodes(4) == std::vector<std::string>{"n003", "n004"});
  CHECK(r->extras(4).at(4) == "1");
  CHECK(r->extras(4).at(5) == "690");  // from its first evaluation (t=10) to its start
  const auto& s = r->report.at("topology").at("switches_option");
  CHECK(s.at("jobs_started") == 1);
  CHECK(s.at("jobs_waited") == 1);
  CHECK(s.at("jobs_timed_out") == 0);
  CHECK(s.at("wait_s_total") == 690);
}

TEST_CASE("tree: --switches=1 past max_switch_wait starts best effort", "[slurm][topology][conformance]") {
  SlurmConfig c = tree_cfg(true);
  c.job_options = {{"wide", 1, -1, 0}};  // the default wait: max_switch_wait = 300 s
  auto r = run(c, tree_jobs(2000), 4, 8, 5000);
  // Waited from t=10; at 500 it is past 10 + 300, so the first pass after the end of j1
  // starts it over two leaves.
  CHECK(r->start(4) == 500);
  CHECK(r->nodes(4) == std::vector<std::string>{"n001", "n004"});
  c.sched.max_switch_wait_s = 600;  // SchedulerParameters=max_switch_wait=600
  auto r2 = run(c, tree_jobs(2000), 4, 8, 5000);
  // Refused at 500, the wait ends at 610: the first periodic pass after it starts the job.
  CHECK(r2->start(4) == 630);
  CHECK(r2->nodes(4) == std::vector<std::string>{"n001", "n004"});
  const auto& s = r2->report.at("topology").at("switches_option");
  CHECK(s.at("jobs_timed_out") == 1);
  CHECK(s.at("jobs_waited") == 1);
}

TEST_CASE("tree: a waiting --switches job shows Reason=Resources", "[slurm][topology][conformance]") {
  SlurmConfig c = tree_cfg(true);
  c.job_options = {{"wide", 1, 100000, 0}};
  auto r = run(c, tree_jobs(2000), 4, 8, 1500);
  CHECK(r->start(4) == -1);
  CHECK(r->reason(4) == "Resources");
  CHECK(r->report.at("topology").at("fragmentation").at("index_time_avg").get<double>() > 0);
}

TEST_CASE("block: smallest level, best fit, segments", "[slurm][topology][conformance]") {
  SlurmConfig c;
  c.version = floorsim::slurm::Version::Master;
  c.sched.batch_sched_delay_s = 0;  // a pass at every event: the placement is timed without it
  c.topology = "block";
  c.blocks = {{"b1", {"n001", "n002"}, {}}, {"b2", {"n003", "n004"}, {}}, {"b3", {"n005", "n006"}, {}}, {"b4", {"n007", "n008"}, {}}};
  c.job_options = {{"seg", 0, -1, 2}};
  const std::vector<J> jobs = {{1, 0, 1000, 2000, 8, 1},
                               {2, 1, 1000, 2000, 24, 3},
                               {3, 2, 1000, 2000, 32, 4, "u1", "", "", "", "seg"},
                               {4, 3, 1000, 2000, 16, 2}};
  auto r = run(c, jobs, 8, 8);
  CHECK(r->nodes(1) == std::vector<std::string>{"n001"});
  // 3 nodes: level of 2 base blocks; b1+b2 holds 3 usable nodes (best fit), b2 first (largest).
  CHECK(r->nodes(2) == std::vector<std::string>{"n002", "n003", "n004"});
  // Two 2-node segments, each inside a base block.
  CHECK(r->nodes(3) == std::vector<std::string>{"n005", "n006", "n007", "n008"});
  CHECK(r->start(3) == 2);
  // 2 nodes need one base block: at 1000 b1 has only n001 (j2 holds n002 until 1001).
  CHECK(r->start(4) == 1001);
  CHECK(r->nodes(4) == std::vector<std::string>{"n001", "n002"});
  CHECK(r->report.at("topology").at("jobs_by_blocks").at("2") == 2);
}

TEST_CASE("tree from slurm.conf + topology.conf; Weight orders nodes inside a leaf", "[slurm][topology][conformance]") {
  SlurmConfig c;
  floorsim::slurm::read_slurm_conf_text("TopologyPlugin=topology/tree\nSchedulerParameters=max_switch_wait=60\n", "slurm.conf", c);
  floorsim::slurm::read_topology_conf_text("SwitchName=s1 Nodes=n[001-002]\nSwitchName=s2 Nodes=n[003-004]\nSwitchName=top Switches=s[1-2]\n",
                                           "topology.conf", c);
  CHECK(c.topology == "tree");
  CHECK(c.sched.max_switch_wait_s == 60);
  c.inline_weights = {{"n001", 5}, {"n002", 1}, {"n003", 1}, {"n004", 1}};  // scheduler block node_weights
  auto r = run(c, {{1, 0, 100, 200, 8, 1}, {2, 0, 100, 200, 8, 1}});
  // Weight 1 holds the job: candidates n002-n004; s1 (one usable node) is the better fit.
  CHECK(r->nodes(1) == std::vector<std::string>{"n002"});
  // Weight overrides topology: n003 (weight 1) before n001 (weight 5), though s1 fits better.
  CHECK(r->nodes(2) == std::vector<std::string>{"n003"});
  CHECK(r->report.at("topology").at("source") == "switches");
}

TEST_CASE("tree: a job started by backfill is placed by the tree, not first fit", "[slurm][topology][conformance]") {
  // 4 nodes x 1 GPU (every job's fit looks decided by its GPU count alone): j1 takes n001;
  // j2 (4 GPUs) waits for it, so j3 (2 GPUs, done long before) can only start by backfill.
  // The tree's best fit puts it on the leaf with exactly its 2 free nodes (s2), where first
  // fit over the node order would take n002 + n003 across both leaves.
  SlurmConfig c = tree_cfg(true);
  c.sched.batch_sched_delay_s = 0;
  auto r = run(c, {{1, 0, 1000, 1000, 1}, {2, 1, 100, 1000, 4}, {3, 2, 100, 200, 2}}, 4, 1, 5000);
  CHECK(r->nodes(1) == std::vector<std::string>{"n001"});
  CHECK(r->start(2) == 1000);
  CHECK(r->start(3) < 1000);
  CHECK(r->nodes(3) == std::vector<std::string>{"n003", "n004"});
  CHECK(r->extras(3).at(4) == "1");  // one leaf
}
