// Partition access and State, node State at start, and jobs no partition could ever hold, as
// slurmctld 22.05 decides them at submission (slurm.conf(5) PartitionName AllowAccounts,
// DenyAccounts, AllowQos, DenyQos, State; NodeName State; sbatch "Requested node configuration
// is not available"). A refused job stays in the outputs: CANCELLED at its submit time, with the
// refusal as its reason, and counted in the report.
#include <catch2/catch.hpp>

#include "schedulers/slurm/job_defaults.hpp"
#include "schedulers/slurm/submit_check.hpp"
#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::Partition;
using floorsim::slurm::SlurmConfig;

namespace {

// run_conf with CPU counts by job id.
std::unique_ptr<Result> run_conf(const std::string& conf, const std::vector<J>& jobs,
                                 const std::vector<std::pair<int64_t, int32_t>>& cpus) {
  return slurm_test::run_conf(conf, jobs, [&](JobSpec& js) {
    for (const auto& [id, c] : cpus)
      if (js.id == id) js.cpus = c;
  });
}

}  // namespace

TEST_CASE("partition access at submission: State, Allow and Deny lists", "[slurm][submit]") {
  using S = Partition::State;
  struct Row {
    const char* rule;
    S state;
    std::vector<std::string> allow_acct, deny_acct, allow_qos, deny_qos;
    std::string account, qos;
    const char* reason;  // "None" = accepted
  };
  const Row rows[] = {
      {"no lists: everyone", S::Up, {}, {}, {}, {}, "phys", "normal", "None"},
      {"DOWN still accepts (jobs queue)", S::Down, {}, {}, {}, {}, "phys", "normal", "None"},
      {"DRAIN refuses new jobs", S::Drain, {}, {}, {}, {}, "phys", "normal", "PartitionNotAvail"},
      {"INACTIVE refuses new jobs", S::Inactive, {}, {}, {}, {}, "phys", "normal", "PartitionNotAvail"},
      {"AllowAccounts lists it", S::Up, {"phys", "chem"}, {}, {}, {}, "chem", "normal", "None"},
      {"AllowAccounts lacks it", S::Up, {"phys"}, {}, {}, {}, "chem", "normal", "InvalidAccount"},
      {"AllowAccounts, account unknown", S::Up, {"phys"}, {}, {}, {}, "", "normal", "InvalidAccount"},
      {"DenyAccounts lists it", S::Up, {}, {"chem"}, {}, {}, "chem", "normal", "InvalidAccount"},
      {"DenyAccounts, account unknown", S::Up, {}, {"chem"}, {}, {}, "", "normal", "None"},
      {"AllowAccounts wins over DenyAccounts", S::Up, {"chem"}, {"chem"}, {}, {}, "chem", "normal", "None"},
      {"AllowQos lists it", S::Up, {}, {}, {"high"}, {}, "phys", "high", "None"},
      {"AllowQos lacks it", S::Up, {}, {}, {"high"}, {}, "phys", "normal", "InvalidQOS"},
      {"DenyQos lists it", S::Up, {}, {}, {}, {"normal"}, "phys", "normal", "InvalidQOS"},
      {"AllowQos wins over DenyQos", S::Up, {}, {}, {"normal"}, {"normal"}, "phys", "normal", "None"},
      {"State before the lists", S::Inactive, {"chem"}, {}, {}, {}, "phys", "normal", "PartitionNotAvail"},
  };
  for (const auto& r : rows) {
    INFO(r.rule);
    Partition p;
    p.state = r.state;
    p.allow_accounts = r.allow_acct;
    p.deny_accounts = r.deny_acct;
    p.allow_qos = r.allow_qos;
    p.deny_qos = r.deny_qos;
    CHECK(std::string(floorsim::slurm::reason_text(floorsim::slurm::access_refusal(p, r.account, r.qos))) == r.reason);
  }
}

TEST_CASE("refused at submission: CANCELLED at submit with the reason, counted", "[slurm][submit]") {
  // Two partitions of 2 nodes x 4 GPUs x 16 CPUs; "priv" only for account phys, "old" INACTIVE.
  // EnforcePartLimits (slurm.conf(5)): with ALL a job over the partition's size or access lists
  // is refused at submission; with NO (the default) it is accepted and pends for good
  // (job_mgr.c _valid_job_part, job_limits_check). State and "no node set could ever hold it"
  // refuse under both.
  const std::string conf =
      "NodeName=a[1-2] CPUs=16 Gres=gpu:4\nNodeName=b[1-2] CPUs=16 Gres=gpu:4\n"
      "PartitionName=main Nodes=a[1-2] Default=YES\n"
      "PartitionName=priv Nodes=b1 AllowAccounts=phys\n"
      "PartitionName=old Nodes=b2 State=INACTIVE\n";
  struct Row {
    const char* rule;
    J job;
    int32_t cpus;
    const char* all;  // reason under EnforcePartLimits=ALL (CANCELLED unless "None")
    const char* no;   // under NO: refused when the same as under ALL, else pending for good
  };
  const Row rows[] = {
      {"fits", {1, 10, 100, 100, 4, 0, "u1", "", "main", "phys"}, 0, "None", "None"},
      {"account allowed", {2, 10, 100, 100, 4, 0, "u1", "", "priv", "phys"}, 0, "None", "None"},
      {"account not allowed", {3, 10, 100, 100, 4, 0, "u2", "", "priv", "chem"}, 0, "InvalidAccount", "InvalidAccount*"},
      {"partition INACTIVE", {4, 10, 100, 100, 1, 0, "u1", "", "old", "phys"}, 0, "PartitionNotAvail", "PartitionNotAvail"},
      {"more nodes than the partition", {5, 10, 100, 100, 3, 3, "u1", "", "main", "phys"}, 0, "InvalidNodeCount", "PartitionNodeLimit"},
      {"more GPUs than the partition", {6, 10, 100, 100, 9, 0, "u1", "", "main", "phys"}, 0, "BadConstraints", "BadConstraints"},
      {"more GPUs per node than any node", {7, 10, 100, 100, 6, 1, "u1", "", "main", "phys"}, 0, "BadConstraints", "BadConstraints"},
      {"more CPUs than the partition", {8, 10, 100, 100, 0, 0, "u1", "", "main", "phys"}, 33, "TooManyCpus", "PartitionConfig"},
      {"more CPUs per node than any node", {9, 10, 100, 100, 1, 1, "u1", "", "main", "phys"}, 17, "BadConstraints", "BadConstraints"},
  };
  std::vector<J> jobs;
  std::vector<std::pair<int64_t, int32_t>> cpus;
  for (const auto& r : rows) {
    jobs.push_back(r.job);
    if (r.cpus > 0) cpus.push_back({r.job.id, r.cpus});
  }
  for (const bool all : {true, false}) {
    auto res = run_conf(std::string(all ? "EnforcePartLimits=ALL\n" : "") + conf, jobs, cpus);
    size_t refused = 0;
    for (const auto& r : rows) {
      INFO(r.rule << (all ? " (ALL)" : " (NO)"));
      std::string want = all ? r.all : r.no;
      // "*": the same name, but pending (InvalidAccount is also a pending reason, WAIT_ACCOUNT).
      const bool pends = !all && (want != r.all || want.back() == '*');
      if (want.back() == '*') want.pop_back();
      CHECK(res->reason(r.job.id) == want);
      if (want == "None") CHECK(res->run(r.job.id).state == JobState::Completed);
      else if (pends) CHECK(res->run(r.job.id).state == JobState::Unstarted);  // still pending at the end
      else {
        ++refused;
        CHECK(res->run(r.job.id).state == JobState::Cancelled);
        CHECK(res->run(r.job.id).end_s == r.job.submit);  // refused when submitted, never queued
        CHECK(res->start(r.job.id) < 0);
      }
    }
    REQUIRE(res->report.contains("refused_at_submission"));
    CHECK(res->report["refused_at_submission"]["jobs"] == refused);
    CHECK(res->report["refused_at_submission"]["by_error"]["Requested node configuration is not available"] == 3);
  }
}

TEST_CASE("partition State=DOWN: its jobs queue and never start", "[slurm][submit]") {
  auto res = run_conf("NodeName=a[1-2] Gres=gpu:4\nPartitionName=up Nodes=a1 Default=YES\nPartitionName=dn Nodes=a2 State=DOWN\n",
                      {{1, 0, 100, 100, 4, 0, "u1", "", "dn"}, {2, 0, 100, 100, 4, 0, "u1", "", "up"}});
  CHECK(res->run(1).state == JobState::Unstarted);  // still pending at the end
  CHECK(res->reason(1) == "PartitionDown");
  CHECK(res->run(2).state == JobState::Completed);
  CHECK_FALSE(res->report.contains("refused_at_submission"));
}

TEST_CASE("node State at start: DOWN, DRAIN, FAIL take no job; FUTURE is not in the cluster", "[slurm][submit]") {
  struct Row {
    const char* state;
    size_t nodes;   // in the cluster built from slurm.conf
    bool b_used;    // did a job run on node b?
  };
  const Row rows[] = {{"IDLE", 2, true}, {"UNKNOWN", 2, true}, {"CLOUD", 2, true}, {"DOWN", 2, false},
                      {"DRAIN", 2, false}, {"FAIL", 2, false}, {"FAILING", 2, false}, {"FUTURE", 1, false}};
  for (const auto& r : rows) {
    INFO(r.state);
    const std::string conf = std::string("NodeName=a Gres=gpu:4\nNodeName=b Gres=gpu:4 State=") + r.state +
                             "\nPartitionName=p Nodes=a,b Default=YES\n";
    // Two jobs of 4 GPUs: together only if b takes one; the second waits for a otherwise.
    auto res = run_conf(conf, {{1, 0, 100, 100, 4}, {2, 0, 100, 100, 4}});
    CHECK(res->cl.nodes() == r.nodes);
    CHECK(res->run(1).state == JobState::Completed);
    CHECK(res->run(2).state == JobState::Completed);
    CHECK(res->start(2) == (r.b_used ? 0 : 100));
  }
}

TEST_CASE("topology.conf: a node under two leaf switches or under none is warned about, as slurmctld does", "[slurm][submit][topology]") {
  struct Row {
    const char* rule;
    const char* topology;
    size_t warnings;        // of reading topology.conf
    const char* warning;    // in one of them ("" = none)
    SimTime start2;         // the second 4-GPU job: at 0 when node b takes it
  };
  const Row rows[] = {
      {"each node on one leaf", "SwitchName=s1 Nodes=a\nSwitchName=s2 Nodes=b\nSwitchName=top Switches=s[1-2]\n", 0, "", 0},
      {"b under two leaves: kept under the first", "SwitchName=s1 Nodes=a,b\nSwitchName=s2 Nodes=b\nSwitchName=top Switches=s[1-2]\n", 1,
       "t.conf: Multiple leaf switches contain nodes: b", 0},
      {"b under no leaf: takes no job", "SwitchName=s1 Nodes=a\n", 0, "", 100},
  };
  for (const auto& r : rows) {
    INFO(r.rule);
    SlurmConfig cfg;
    cfg.sched.batch_sched_delay_s = 0;
    floorsim::slurm::read_slurm_conf_text("TopologyPlugin=topology/tree\nNodeName=a,b Gres=gpu:4\nPartitionName=p Nodes=ALL Default=YES\n",
                                          "slurm.conf", cfg);
    floorsim::slurm::read_topology_conf_text(r.topology, "t.conf", cfg);
    CHECK(cfg.warnings.size() == r.warnings);
    if (*r.warning) CHECK(cfg.warnings.at(0).rfind(r.warning, 0) == 0);
    const ClusterConfig cl = floorsim::slurm::cluster_from_conf(cfg);
    floorsim::slurm::check_config_files(cfg, cl.node_names);  // no error
    const Workload wl = workload({{1, 0, 100, 100, 4}, {2, 0, 100, 100, 4}});
    auto model = floorsim::slurm::make_model(cfg, wl, cl, "test");
    EngineConfig ec;
    ec.check_invariants = true;
    Engine e(wl, cl, *model, ec);
    e.run();
    CHECK(e.runs()[1].state == JobState::Completed);
    CHECK(e.runs()[1].first_start_s == r.start2);
  }
}

TEST_CASE("job defaults: DefCpuPerGPU and DefMemPer* for jobs that do not ask", "[slurm][submit][defaults]") {
  using floorsim::slurm::JobDefaults;
  using M = JobSpec::MemPer;
  struct Row {
    const char* rule;
    JobDefaults cluster, part;
    int32_t gpus, cpus;
    M per;
    int32_t mem;
    int32_t want_cpus;
    M want_per;
    int32_t want_mem;
  };
  const Row rows[] = {
      {"nothing set", {}, {}, 2, 0, M::None, 0, 0, M::None, 0},
      {"DefCpuPerGPU", {4, 0, 0, 0}, {}, 2, 0, M::None, 0, 8, M::None, 0},
      {"DefCpuPerGPU: the job's CPUs stand", {4, 0, 0, 0}, {}, 2, 3, M::None, 0, 3, M::None, 0},
      {"DefCpuPerGPU: not for CPU-only jobs", {4, 0, 0, 0}, {}, 0, 0, M::None, 0, 0, M::None, 0},
      {"DefCpuPerGPU of the partition", {4, 0, 0, 0}, {6, 0, 0, 0}, 1, 0, M::None, 0, 6, M::None, 0},
      {"DefMemPerCPU", {0, 2048, 0, 0}, {}, 0, 4, M::None, 0, 4, M::Cpu, 2048},
      {"DefMemPerGPU for a GPU job", {0, 0, 1000, 0}, {}, 1, 0, M::None, 0, 0, M::Gpu, 1000},
      {"DefMemPerGPU: not for a CPU-only job", {0, 0, 1000, 0}, {}, 0, 1, M::None, 0, 1, M::None, 0},
      {"DefMemPerNode", {0, 0, 0, 16384}, {}, 1, 0, M::None, 0, 0, M::Node, 16384},
      {"the job's memory stands", {0, 2048, 0, 0}, {}, 0, 4, M::Node, 100, 4, M::Node, 100},
      {"the partition's memory default replaces the cluster's", {0, 2048, 0, 0}, {0, 0, 0, 500}, 0, 4, M::None, 0, 4, M::Node, 500},
  };
  for (const auto& r : rows) {
    INFO(r.rule);
    JobSpec js;
    js.gpus = r.gpus;
    js.cpus = r.cpus;
    js.mem_per = r.per;
    js.mem_mib = r.mem;
    const JobSpec out = floorsim::slurm::with_defaults(r.cluster, r.part, js);
    CHECK(out.cpus == r.want_cpus);
    CHECK(out.mem_per == r.want_per);
    CHECK(out.mem_mib == r.want_mem);
  }
}

TEST_CASE("job defaults take effect in placement: DefMemPerCPU and DefCpuPerGPU bind", "[slurm][submit][defaults]") {
  struct Row {
    const char* rule;
    const char* global;     // slurm.conf lines before the node
    const char* partition;  // options of the partition line
    SimTime start2;         // two 1-GPU, 4-CPU jobs on a node of 2 GPUs, 8 CPUs, 16384 MB
  };
  const Row rows[] = {
      {"no default: all of the node's memory each, one at a time", "", "", 100},
      {"DefMemPerCPU=2048: 8192 MB each, together", "DefMemPerCPU=2048\n", "", 0},
      {"the partition's DefMemPerCPU=3000 replaces the cluster's DefMemPerNode: 12000 MB each", "DefMemPerNode=1000\n",
       " DefMemPerCPU=3000", 100},
  };
  for (const auto& r : rows) {
    INFO(r.rule);
    const std::string conf = std::string(r.global) + "NodeName=a CPUs=8 RealMemory=16384 Gres=gpu:2\nPartitionName=p Nodes=a Default=YES" +
                             r.partition + "\n";
    auto res = run_conf(conf, {{1, 0, 100, 100, 1}, {2, 0, 100, 100, 1}}, {{1, 4}, {2, 4}});
    CHECK(res->run(2).state == JobState::Completed);
    CHECK(res->start(2) == r.start2);
  }
  // DefCpuPerGPU=6: each 1-GPU job without a CPU count holds 6 of the 8 CPUs, so the second waits.
  auto res = run_conf("DefCpuPerGPU=6\nNodeName=a CPUs=8 Gres=gpu:2\nPartitionName=p Nodes=a Default=YES\n",
                      {{1, 0, 100, 100, 1}, {2, 0, 100, 100, 1}});
  CHECK(res->start(2) == 100);
  REQUIRE(res->alloc[res->idx(1)].size() == 1);
  CHECK(res->alloc[res->idx(1)][0].cpus == 6);
}
