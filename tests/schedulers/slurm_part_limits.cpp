// Partition limits as slurmctld 22.05 applies them: EnforcePartLimits (refuse at submission or
// pend for good), MaxTime/MaxNodes/MinNodes, MaxMemPerCPU/MaxMemPerNode (job_mgr.c
// _valid_pn_min_mem) and OverSubscribe (slurm.conf(5); cons_tres_share.html).
#include <catch2/catch.hpp>

#include "schedulers/slurm/part_limits.hpp"
#include "tests/schedulers/slurm_harness.hpp"

using namespace slurm_test;
using floorsim::slurm::EnforcePart;
using floorsim::slurm::MemLimit;
using floorsim::slurm::MemLimitNode;
using floorsim::slurm::OverSubscribe;
using floorsim::slurm::SlurmConfig;
using MemPer = floorsim::JobSpec::MemPer;

namespace {

SlurmConfig conf_of(const std::string& text) {
  SlurmConfig c;
  floorsim::slurm::read_slurm_conf_text(text, "slurm.conf", c);
  return c;
}

size_t warned(const SlurmConfig& c, const std::string& what) {
  return static_cast<size_t>(std::count_if(c.warnings.begin(), c.warnings.end(), [&](const std::string& w) { return w.find(what) != std::string::npos; }));
}

int32_t alloc_cpus(const Result& r, int64_t id) {
  int32_t c = 0;
  for (const auto& s : r.alloc[r.idx(id)]) c += s.cpus;
  return c;
}

}  // namespace

TEST_CASE("EnforcePartLimits values as slurmctld parses them", "[slurm][partlimits]") {
  // slurm_protocol_defs.c parse_part_enforce_type: YES, UP, TRUE and 1 are ANY.
  const std::pair<const char*, EnforcePart> rows[] = {
      {"NO", EnforcePart::No},   {"no", EnforcePart::No},    {"0", EnforcePart::No},   {"FALSE", EnforcePart::No},
      {"ALL", EnforcePart::All}, {"ANY", EnforcePart::Any},  {"YES", EnforcePart::Any}, {"1", EnforcePart::Any},
  };
  for (const auto& [v, want] : rows) {
    INFO(v);
    const SlurmConfig c = conf_of(std::string("EnforcePartLimits=") + v + "\n");
    CHECK(c.enforce_part_limits == want);
    CHECK(c.warnings.empty());  // modelled: no "not modelled" warning
  }
  CHECK_THROWS_WITH(conf_of("EnforcePartLimits=SOME\n"), Catch::Contains("expected NO, ANY or ALL"));
}

TEST_CASE("partition MaxTime, MaxNodes, MinNodes: refused under ALL/ANY, pending for good under NO", "[slurm][partlimits]") {
  const std::string nodes = "NodeName=a[1-4] CPUs=8 Gres=gpu:2\nPartitionName=p Nodes=a[1-4] Default=YES MaxTime=10 MaxNodes=2 MinNodes=2\n";
  struct Row {
    const char* rule;
    J job;
    const char* enforced;  // reason under ALL and ANY (refused unless "None")
    const char* pending;   // reason under NO (pending for good unless "None")
  };
  const Row rows[] = {
      {"within", {1, 0, 100, 600, 2, 2}, "None", "None"},
      {"over MaxTime", {2, 0, 100, 660, 2, 2}, "InvalidTimeLimit", "PartitionTimeLimit"},
      {"over MaxNodes", {3, 0, 100, 600, 3, 3}, "InvalidNodeCount", "PartitionNodeLimit"},
      {"under MinNodes", {4, 0, 100, 600, 1, 1}, "InvalidNodeCount", "PartitionNodeLimit"},
      {"no node count: not checked", {5, 0, 100, 600, 1, 0}, "None", "None"},
  };
  std::vector<J> jobs;
  for (const auto& r : rows) jobs.push_back(r.job);
  for (const char* mode : {"ALL", "ANY", "NO"}) {
    auto res = run_conf(std::string("EnforcePartLimits=") + mode + "\n" + nodes, jobs);
    const bool no = std::string(mode) == "NO";
    for (const auto& r : rows) {
      INFO(r.rule << " EnforcePartLimits=" << mode);
      const std::string want = no ? r.pending : r.enforced;
      CHECK(res->reason(r.job.id) == want);
      const JobState st = want == "None" ? JobState::Completed : no ? JobState::Unstarted : JobState::Cancelled;
      CHECK(res->run(r.job.id).state == st);
    }
  }
}

TEST_CASE("MaxMemPerCPU and MaxMemPerNode on one request (_valid_pn_min_mem)", "[slurm][partlimits]") {
  struct Row {
    const char* rule;
    MemLimit lim;
    MemLimitNode node;
    MemPer per;
    int32_t mem, cpus, nodes;
    bool ok;
    int32_t want_cpus, want_mem;
  };
  const MemLimitNode n64{65536, 32, false}, whole{65536, 32, true}, unknown{0, 32, false};
  const Row rows[] = {
      {"no limit", {}, n64, MemPer::Cpu, 9000, 2, 1, true, 2, 9000},
      {"per CPU within MaxMemPerCPU", {4000, 0}, n64, MemPer::Cpu, 4000, 2, 1, true, 2, 4000},
      // 9000 / 4000 rounds up to 3: three times the CPUs, 3000 MB per CPU.
      {"per CPU over MaxMemPerCPU: CPUs x3", {4000, 0}, n64, MemPer::Cpu, 9000, 2, 1, true, 6, 3000},
      {"per CPU over, no CPU count: one per node x3", {4000, 0}, n64, MemPer::Cpu, 9000, 0, 2, true, 6, 3000},
      {"per node within MaxMemPerNode", {0, 8000}, n64, MemPer::Node, 8000, 1, 1, true, 1, 8000},
      {"per node over MaxMemPerNode", {0, 8000}, n64, MemPer::Node, 8001, 1, 1, false, 1, 8001},
      {"no request: all of the node's memory, over", {0, 8000}, n64, MemPer::None, 0, 1, 1, false, 1, 0},
      {"no request, node memory unknown", {0, 8000}, unknown, MemPer::None, 0, 1, 1, true, 1, 0},
      {"per CPU x CPUs per node within MaxMemPerNode", {0, 8000}, n64, MemPer::Cpu, 2000, 8, 2, true, 8, 2000},
      {"per CPU x CPUs per node over MaxMemPerNode", {0, 8000}, n64, MemPer::Cpu, 2000, 10, 2, false, 10, 2000},
      {"per CPU x all CPUs of a whole node", {0, 8000}, whole, MemPer::Cpu, 2000, 2, 1, false, 2, 2000},
      // 10000 / 4000 rounds up to 3 CPUs on each node.
      {"per node over MaxMemPerCPU: CPUs per node raised", {4000, 0}, n64, MemPer::Node, 10000, 2, 2, true, 6, 10000},
      {"per node within MaxMemPerCPU x CPUs", {4000, 0}, n64, MemPer::Node, 8000, 2, 1, true, 2, 8000},
      {"--mem-per-gpu is not checked", {0, 100}, n64, MemPer::Gpu, 9000, 1, 1, true, 1, 9000},
  };
  for (const auto& r : rows) {
    INFO(r.rule);
    floorsim::JobSpec js;
    js.mem_per = r.per;
    js.mem_mib = r.mem;
    js.cpus = r.cpus;
    js.nodes = r.nodes;
    js.gpus = 1;
    CHECK(floorsim::slurm::apply_mem_limit(r.lim, r.node, js) == r.ok);
    CHECK(js.cpus == r.want_cpus);
    CHECK(js.mem_mib == r.want_mem);
  }
  // The partition's limit replaces the cluster's (slurm.conf(5): "If not set, the MaxMemPerCPU
  // value for the entire cluster will be used").
  CHECK(floorsim::slurm::mem_limit_of({4000, 0}, {0, 9000}).per_node == 9000);
  CHECK(floorsim::slurm::mem_limit_of({4000, 0}, {}).per_cpu == 4000);
  const SlurmConfig c = conf_of("MaxMemPerNode=100\nMaxMemPerCPU=50\nPartitionName=p MaxMemPerNode=7 Nodes=ALL\n");
  CHECK(c.max_mem.per_cpu == 50);  // mutually exclusive: the last one read wins
  CHECK(c.max_mem.per_node == 0);
  CHECK(c.partitions[0].max_mem.per_node == 7);
  CHECK(c.warnings.empty());
}

TEST_CASE("MaxMemPer* in a run: CPUs raised, over MaxMemPerNode refused or pending", "[slurm][partlimits]") {
  const std::string nodes =
      "NodeName=a[1-2] CPUs=8 RealMemory=32000\nPartitionName=p Nodes=a[1-2] Default=YES MaxMemPerCPU=2000\n"
      "PartitionName=q Nodes=a[1-2] MaxMemPerNode=16000\n";
  // Job 1 asks 2 CPUs at 6000 MB each: 6 CPUs at 2000. Job 2 (2 CPUs) fits beside it on a1;
  // job 3 (--mem=20000 in q) is over MaxMemPerNode.
  auto edit = [](JobSpec& js) {
    if (js.id == 1) js.cpus = 2, js.mem_per = MemPer::Cpu, js.mem_mib = 6000;
    if (js.id == 2) js.cpus = 2, js.mem_per = MemPer::Cpu, js.mem_mib = 1000;
    if (js.id == 3) js.cpus = 1, js.mem_per = MemPer::Node, js.mem_mib = 20000;
  };
  const std::vector<J> jobs = {{1, 0, 100, 100, 0, 1}, {2, 0, 100, 100, 0, 1}, {3, 0, 100, 100, 0, 1, "u1", "", "q"}};
  for (const char* mode : {"NO", "ALL"}) {
    INFO("EnforcePartLimits=" << mode);
    auto res = run_conf(std::string("EnforcePartLimits=") + mode + "\n" + nodes, jobs, edit);
    CHECK(alloc_cpus(*res, 1) == 6);
    CHECK(res->alloc[res->idx(1)][0].mem_mib == 12000);
    CHECK(res->start(2) == 0);
    CHECK(res->nodes(1) == res->nodes(2));  // 6 + 2 CPUs: one node (best fit)
    if (std::string(mode) == "NO") {
      CHECK(res->run(3).state == JobState::Unstarted);
      CHECK(res->reason(3) == "MaxMemPerLimit");
    } else {
      CHECK(res->run(3).state == JobState::Cancelled);
      CHECK(res->reason(3) == "InvalidTaskMemory");
      CHECK(res->report["refused_at_submission"]["by_error"]["Memory required by task is not available"] == 1);
    }
  }
}

TEST_CASE("OverSubscribe values: modelled, assumed, warned", "[slurm][partlimits][oversubscribe]") {
  struct Row {
    const char* value;
    OverSubscribe want;
    int32_t jobs;
    const char* warning;  // "" = none
  };
  const Row rows[] = {
      {"NO", OverSubscribe::No, 1, ""},
      {"EXCLUSIVE", OverSubscribe::Exclusive, 1, ""},
      {"YES", OverSubscribe::Yes, 4, "only jobs submitted with --oversubscribe share CPUs"},
      {"YES:2", OverSubscribe::Yes, 2, "only jobs submitted with --oversubscribe share CPUs"},
      {"FORCE", OverSubscribe::Force, 4, "OverSubscribe=FORCE: each CPU of its nodes takes up to 4 jobs"},
      {"FORCE:8", OverSubscribe::Force, 8, "OverSubscribe=FORCE:8: each CPU of its nodes takes up to 8 jobs"},
  };
  for (const auto& r : rows) {
    INFO(r.value);
    const SlurmConfig c = conf_of(std::string("PartitionName=p Nodes=ALL OverSubscribe=") + r.value + "\n");
    CHECK(c.partitions[0].oversubscribe == r.want);
    CHECK(c.partitions[0].oversubscribe_jobs == r.jobs);
    CHECK(c.warnings.size() == (*r.warning ? 1u : 0u));
    if (*r.warning) CHECK(warned(c, r.warning) == 1);
  }
  CHECK(conf_of("PartitionName=p Nodes=ALL Shared=EXCLUSIVE\n").partitions[0].oversubscribe == OverSubscribe::Exclusive);
  CHECK_THROWS_WITH(conf_of("PartitionName=p Nodes=ALL OverSubscribe=MAYBE\n"), Catch::Contains("expected EXCLUSIVE, FORCE[:N], YES[:N] or NO"));
}

TEST_CASE("OverSubscribe=EXCLUSIVE: whole nodes, in the main loop and in backfill", "[slurm][partlimits][oversubscribe]") {
  // Two nodes of 4 GPUs and 16 CPUs. Four 1-GPU jobs of 2 CPUs, 100 s each.
  const std::vector<J> jobs = {{1, 0, 100, 100, 1}, {2, 0, 100, 100, 1}, {3, 0, 100, 100, 1}, {4, 0, 100, 100, 1}};
  auto edit = [](JobSpec& js) { js.cpus = 2; };
  struct Row {
    const char* value;
    SimTime start4;   // the fourth job's start
    int32_t cpus;     // CPUs each job holds
  };
  const Row rows[] = {{"NO", 0, 2}, {"EXCLUSIVE", 100, 16}};
  for (const auto& r : rows) {
    INFO(r.value);
    auto res = run_conf(std::string("NodeName=a[1-2] CPUs=16 Gres=gpu:4\nPartitionName=p Nodes=a[1-2] Default=YES OverSubscribe=") + r.value + "\n",
                        jobs, edit);
    CHECK(res->start(4) == r.start4);
    for (int64_t id = 1; id <= 4; ++id) CHECK(alloc_cpus(*res, id) == r.cpus);
    if (std::string(r.value) == "EXCLUSIVE") {
      CHECK(res->nodes(1) != res->nodes(2));  // one job per node
      CHECK(res->nodes(3) != res->nodes(4));
    }
  }
}

TEST_CASE("OverSubscribe=EXCLUSIVE keeps jobs of an overlapping partition off its nodes; backfill agrees", "[slurm][partlimits][oversubscribe]") {
  // One node, two partitions over it. The exclusive job (1) runs 0-100; job 2 (shared
  // partition, 1 GPU) must wait for it; job 3, exclusive again, waits for job 2 too. Backfill
  // plans job 2 at 100 (its planned start is the exclusive job's end).
  const std::string conf =
      "NodeName=a CPUs=16 Gres=gpu:4\nPartitionName=ex Nodes=a OverSubscribe=EXCLUSIVE\nPartitionName=sh Nodes=a Default=YES\n";
  const std::vector<J> jobs = {{1, 0, 100, 100, 1, 0, "u1", "", "ex"}, {2, 10, 50, 50, 1, 0, "u1", "", "sh"}, {3, 20, 50, 50, 1, 0, "u1", "", "ex"}};
  auto res = run_conf(conf, jobs, [](JobSpec& js) { js.cpus = 1; });
  CHECK(res->start(1) == 0);
  CHECK(res->start(2) == 100);
  CHECK(res->start(3) == 150);
  CHECK(alloc_cpus(*res, 2) == 1);
  CHECK(alloc_cpus(*res, 3) == 16);
}

TEST_CASE("OverSubscribe=FORCE:N: N jobs per CPU, GPUs and one job's CPUs not oversubscribed", "[slurm][partlimits][oversubscribe]") {
  // One node of 2 CPUs and 2 GPUs. Under FORCE:2 each CPU takes two jobs: four 1-CPU jobs run at
  // once (NO: two, then two). GPUs are never shared: three 1-GPU jobs still run two at a time.
  // One job holds at most the node's own CPUs: 3 CPUs on a node of 2 are more than the partition
  // has (TooManyCpus; pending as PartitionConfig under EnforcePartLimits=NO), FORCE or not.
  struct Row {
    const char* value;
    SimTime cpu_job4, gpu_job7;  // starts
    int32_t cluster_cpus;        // cluster_from_conf's CPUs of the node
  };
  const Row rows[] = {{"NO", 100, 100, 2}, {"FORCE:2", 0, 100, 4}, {"FORCE:4", 0, 100, 8}};
  const std::vector<J> jobs = {{1, 0, 100, 100, 0}, {2, 0, 100, 100, 0}, {3, 0, 100, 100, 0}, {4, 0, 100, 100, 0},
                               {5, 200, 100, 100, 1}, {6, 200, 100, 100, 1}, {7, 200, 100, 100, 1}, {8, 400, 100, 100, 0}};
  auto edit = [](JobSpec& js) { js.cpus = js.id == 8 ? 3 : 1; if (js.id >= 5 && js.id <= 7) js.submit_s = 0; };
  for (const auto& r : rows) {
    INFO(r.value);
    const std::string conf = std::string("NodeName=a CPUs=2 Gres=gpu:2\nPartitionName=p Nodes=a Default=YES OverSubscribe=") + r.value + "\n";
    CHECK(floorsim::slurm::cluster_from_conf(conf_of(conf)).node_cpus[0] == r.cluster_cpus);
    auto res = run_conf(conf, {jobs[0], jobs[1], jobs[2], jobs[3]}, edit);
    CHECK(res->start(4) == r.cpu_job4);
    auto gpu = run_conf(conf, {jobs[4], jobs[5], jobs[6]}, edit);
    CHECK(gpu->start(7) == r.gpu_job7);
    auto big = run_conf(conf, {jobs[7]}, edit);
    CHECK(big->reason(8) == "PartitionConfig");
  }
  // A node also in a partition that does not force shares no CPU.
  const SlurmConfig mixed = conf_of("NodeName=a CPUs=2\nPartitionName=f Nodes=a OverSubscribe=FORCE:4\nPartitionName=n Nodes=a\n");
  CHECK(floorsim::slurm::cluster_from_conf(mixed).node_cpus[0] == 2);
}
