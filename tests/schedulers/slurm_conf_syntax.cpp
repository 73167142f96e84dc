// slurm.conf syntax as slurmctld's parse_config.c reads it, one rule per table row; NodeName,
// NodeSet and PartitionName lines; each key class (modelled, quiet, unmodelled, unknown).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "schedulers/slurm/slurm.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;
using namespace floorsim::slurm;

namespace {
std::string error_of(const std::string& text) {
  try {
    SlurmConfig c;
    read_slurm_conf_text(text, "s.conf", c);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
SlurmConfig read(const std::string& text) {
  SlurmConfig c;
  read_slurm_conf_text(text, "s.conf", c);
  return c;
}
size_t count_with(const SlurmConfig& c, const std::string& what) {
  return static_cast<size_t>(std::count_if(c.warnings.begin(), c.warnings.end(), [&](const std::string& w) { return w.find(what) != std::string::npos; }));
}
}  // namespace

TEST_CASE("slurm.conf syntax: the forms slurmctld accepts", "[slurm][config][syntax]") {
  struct Row {
    const char* rule;
    const char* text;
    double bf_interval_s;  // SchedulerParameters bf_interval, as read
  };
  const Row rows[] = {
      {"plain", "SchedulerParameters=bf_interval=7\n", 7},
      {"key case", "schedulerPARAMETERS=bf_interval=7\n", 7},
      {"spaces around =", "SchedulerParameters = bf_interval=7\n", 7},
      {"space after =", "SchedulerParameters= bf_interval=7\n", 7},
      {"space before =", "SchedulerParameters =bf_interval=7\n", 7},
      {"double quotes", "SchedulerParameters=\"bf_interval=7\"\n", 7},
      {"empty quotes keep the default", "SchedulerParameters=\"\"\n", 30},
      {"continuation", "SchedulerParameters=bf_continue,\\\nbf_interval=7\n", 7},
      {"comment after", "SchedulerParameters=bf_interval=7 # every 7 s\n", 7},
      {"escaped #", "ClusterName=a\\#b\nSchedulerParameters=bf_interval=7\n", 7},
      {"CRLF", "ClusterName=x\r\nSchedulerParameters=bf_interval=7\r\n", 7},
      {"byte-order mark", "\xEF\xBB\xBFSchedulerParameters=bf_interval=7\n", 7},
      {"tabs and trailing spaces", "\tSchedulerParameters=bf_interval=7   \n", 7},
  };
  for (const auto& r : rows) {
    INFO(r.rule);
    const SlurmConfig c = read(r.text);
    CHECK(c.sched.bf_interval_s == r.bf_interval_s);
  }
  CHECK(read("ClusterName=a\\#b\n").cluster_name == "a#b");
  CHECK(read("ClusterName = \"my cluster\"\n").cluster_name == "my cluster");
}

TEST_CASE("slurm.conf syntax: what slurmctld refuses is an error naming file and line", "[slurm][config][syntax]") {
  struct Row {
    const char* text;
    const char* error;
  };
  const Row rows[] = {
      {"ClusterName=q\nPartitionName batch\n", "s.conf:2: 'PartitionName' is not Key=Value"},
      {"ClusterName=\n", "s.conf:1: 'ClusterName=' has no value"},
      {"ClusterName=\"q\n", "s.conf:1: unterminated quote"},
      {"= value\n", "s.conf:1: '=' is not Key=Value"},
      {"NodeName=n1 CPUs=many\n", "s.conf:1: CPUs=many is not an integer"},
      {"NodeName=n[1-2]\nNodeName=n2\n", "s.conf:2: node n2 is already defined"},
      {"NodeSet=a Nodes=n1\nNodeSet=a Nodes=n1\n", "s.conf:2: NodeSet a is defined twice"},
  };
  for (const auto& r : rows) {
    INFO(r.text);
    CHECK(error_of(r.text).rfind(r.error, 0) == 0);
  }
}

TEST_CASE("slurm.conf NodeName: host lists, CPUs as slurmctld counts them, memory, GPUs, DEFAULT", "[slurm][config][nodes]") {
  const SlurmConfig c = read(R"(NodeName=DEFAULT RealMemory=1000 Gres=gpu:2
NodeName=r1i[0-1]n[0-2] CPUs=8
NodeName=a[1-2],b[01-02] Sockets=2 CoresPerSocket=16 ThreadsPerCore=2
NodeName=g1 Gres=gpu:a100:4(S:0-1),gpu:v100:2,nvme:1 Boards=1 SocketsPerBoard=2 CoresPerSocket=4 Features=big,fast Weight=5
NodeName=odd CPUs=10 Sockets=2 CoresPerSocket=4 ThreadsPerCore=2
NodeName=p Procs=6 CPUs=12
NodeName=bare
)");
  REQUIRE(c.nodes.size() == 6 + 4 + 1 + 1 + 1 + 1);
  CHECK(c.nodes[0].name == "r1i0n0");
  CHECK(c.nodes[5].name == "r1i1n2");
  CHECK(c.nodes[0].cpus == 8);
  CHECK(c.nodes[0].real_memory_mb == 1000);  // from DEFAULT
  CHECK(c.nodes[0].gpus == 2);
  CHECK(c.nodes[6].name == "a1");
  CHECK(c.nodes[9].name == "b02");
  CHECK(c.nodes[9].cpus == 64);  // Sockets*CoresPerSocket*ThreadsPerCore
  const NodeDef& g = c.nodes[10];
  CHECK(g.gpus == 6);
  CHECK(g.gpu_type == "a100,v100");
  CHECK(g.cpus == 8);  // Boards*SocketsPerBoard*CoresPerSocket
  CHECK(g.features == std::vector<std::string>{"big", "fast"});
  CHECK(g.weight == 5);
  CHECK(count_with(c, "s.conf:4: Gres nvme is not modelled") == 1);
  CHECK(c.nodes[11].cpus == 16);  // CPUs=10 matches no socket product: reset, as slurmctld does
  CHECK(count_with(c, "s.conf:5: NodeName=odd CPUs=10 matches none") == 1);
  CHECK(c.nodes[12].cpus == 12);  // CPUs= wins over Procs=
  CHECK_FALSE(c.nodes[13].cpus_given);

  const ClusterConfig cl = cluster_from_conf(c);
  CHECK(cl.node_cpus.size() == cl.nodes());
  CHECK(cl.node_cpus.back() == 0);  // "bare": not given
  CHECK(cl.node_mem_bytes[0] == int64_t{1000} * 1024 * 1024);
  CHECK(cl.total_gpus() == 13 * 2 + 6);  // every node 2 (DEFAULT) but g1 with 6
}

TEST_CASE("slurm.conf NodeName State: what slurmctld would not schedule on is warned; FUTURE is left out", "[slurm][config][nodes]") {
  const SlurmConfig c = read("NodeName=a State=DOWN\nNodeName=b State=FUTURE\nNodeName=c State=CLOUD\nNodeName=d State=UNKNOWN\n"
                             "PartitionName=p Nodes=a,b\nPartitionName=f Nodes=b\n");
  CHECK(c.nodes.size() == 3);  // FUTURE: not in the cluster (slurm_submit.cpp runs the others)
  CHECK(c.partitions[0].nodes == std::vector<std::string>{"a"});
  CHECK(c.partitions[1].no_nodes);
  CHECK(count_with(c, "s.conf:1: NodeName=a State=down") == 1);
  CHECK(count_with(c, "s.conf:2: NodeName=b State=future") == 1);
  CHECK(count_with(c, "s.conf:3: NodeName=c State=cloud") == 1);
  CHECK(c.warnings.size() == 3);
}

TEST_CASE("slurm.conf NodeSet and PartitionName Nodes: host lists, NodeSets, ALL, DEFAULT", "[slurm][config][partitions]") {
  const SlurmConfig c = read(R"(NodeName=g[1-4] Gres=gpu:8 Features=a100
NodeName=c[1-2] CPUs=64
PartitionName=DEFAULT MaxTime=1-0 State=UP
PartitionName=gpu Nodes=gpus PriorityTier=5
PartitionName=bigmem Nodes=c[1-2],g1
PartitionName=all Nodes=ALL Default=YES
PartitionName=feat Nodes=byfeature
PartitionName=empty
NodeSet=gpus Nodes=g[1-4]
NodeSet=byfeature Feature=a100
)");
  REQUIRE(c.partitions.size() == 5);
  CHECK(c.partitions[0].nodes == std::vector<std::string>{"g1", "g2", "g3", "g4"});  // NodeSet defined after it
  CHECK(c.partitions[0].priority_tier == 5);
  CHECK(c.partitions[0].max_time_s == 86400);  // from DEFAULT
  CHECK(c.partitions[1].nodes == std::vector<std::string>{"c1", "c2", "g1"});
  CHECK(c.partitions[2].nodes.empty());
  CHECK_FALSE(c.partitions[2].no_nodes);
  CHECK(c.partitions[3].nodes == std::vector<std::string>{"g1", "g2", "g3", "g4"});
  CHECK(c.partitions[4].no_nodes);
  CHECK(count_with(c, "s.conf:8: PartitionName=empty has no Nodes=") == 1);
}

TEST_CASE("slurm.conf keys: modelled take effect, quiet ones pass, unmodelled and unknown warn one by one", "[slurm][config][keys]") {
  const SlurmConfig c = read(R"(SlurmctldPort=6817
SlurmdLogFile=/var/log/slurmd.log
AccountingStorageHost=db
ProctrackType=proctrack/cgroup
AuthInfo=socket=/run/munge.socket,cred_expire=70
Licenses=matlab:4
DefMemPerCPU=2048
SuspendTime=NONE
CompleteWait=0
EnforcePartLimits=ALL
Bogus=1
PartitionName=p Nodes=ALL AllowAccounts=a,b OverSubscribe=EXCLUSIVE State=DOWN MaxNodes=4 Hidden=YES Frobnicate=1
SchedulerParameters=bf_busy_nodes,bf_interval=5
PriorityFlags=MAX_TRES
)");
  CHECK(c.sched.requeue_delay_s == 70);  // AuthInfo cred_expire
  CHECK(c.sched.bf_interval_s == 5);
  CHECK(count_with(c, "s.conf:6: Licenses=matlab:4 is not modelled; floorsim assumes no job waits for a license") == 1);
  CHECK(c.job_defaults.mem_per_cpu == 2048);  // modelled (job_defaults.cpp)
  CHECK(count_with(c, "DefMemPerCPU") == 0);
  CHECK(count_with(c, "EnforcePartLimits") == 0);  // modelled (submit_check.cpp)
  CHECK(c.enforce_part_limits == floorsim::slurm::EnforcePart::All);
  CHECK(count_with(c, "s.conf:11: Bogus is not a slurm.conf(5) key") == 1);
  CHECK(count_with(c, "AllowAccounts") == 0);  // modelled (submit_check.cpp)
  CHECK(c.partitions[0].allow_accounts == std::vector<std::string>{"a", "b"});
  CHECK(count_with(c, "OverSubscribe") == 0);  // EXCLUSIVE is modelled (resources.cpp)
  CHECK(c.partitions[0].state == Partition::State::Down);
  CHECK(c.partitions[0].max_nodes == 4);  // modelled (submit_check.cpp)
  CHECK(count_with(c, "s.conf:12: Frobnicate is not a PartitionName option") == 1);
  CHECK(count_with(c, "s.conf:13: SchedulerParameters item bf_busy_nodes is not modelled") == 1);
  CHECK(c.prio.max_tres);  // PriorityFlags=MAX_TRES is modelled (billing.cpp)
  CHECK(count_with(c, "max_tres") == 0);
  CHECK(c.warnings.size() == 4);  // nothing about ports, paths, SuspendTime=NONE, CompleteWait=0, Hidden
  CHECK(read("ClusterName=q\n").sched.requeue_delay_s == 120);  // slurm.conf(5): cred_expire default
}

TEST_CASE("gres.conf: counts added up per node and checked against slurm.conf's, which stand", "[slurm][config][gres]") {
  SlurmConfig c = read("NodeName=n[1-3] Gres=gpu:4\nNodeName=cpu1 CPUs=8\n");
  read_gres_conf_text("NodeName=n1 Name=gpu File=/dev/nvidia[0-1]\nNodeName=n1 Name=gpu File=/dev/nvidia[2-3]\n"
                      "NodeName=n2 Name=gpu Count=2\nNodeName=n3 Name=gpu File=/dev/nvidia[0-7]\nNodeName=cpu1 Name=gpu Count=1\n",
                      "g.conf", c);
  CHECK(c.nodes[0].gpus == 4);
  CHECK(c.nodes[1].gpus == 4);
  CHECK(c.nodes[2].gpus == 4);
  CHECK(c.nodes[3].gpus == 0);
  CHECK(count_with(c, "node n1") == 0);
  CHECK(count_with(c, "g.conf: node n2 has 2 GPUs in gres.conf, fewer than slurm.conf's Gres (4); slurmctld drains") == 1);
  CHECK(count_with(c, "g.conf: node n3 has 8 GPUs in gres.conf, more than") == 1);
  CHECK(count_with(c, "g.conf: node cpu1 has 1 GPUs in gres.conf but no Gres=gpu") == 1);
}

TEST_CASE("slurm.conf Include: nested and relative to each including file", "[slurm][config][include]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("floorsim-nested-include-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "a" / "b");
  std::ofstream(dir / "slurm.conf") << "ClusterName=q\nInclude a/nodes.conf\n";
  std::ofstream(dir / "a" / "nodes.conf") << "NodeName=n[1-2] Gres=gpu:8\ninclude b/parts.conf\n";
  std::ofstream(dir / "a" / "b" / "parts.conf") << "PartitionName=p Nodes=n[1-2] Default=YES\n";
  SlurmConfig c;
  read_slurm_conf((dir / "slurm.conf").string(), c);
  CHECK(c.nodes.size() == 2);
  REQUIRE(c.partitions.size() == 1);
  CHECK(c.partitions[0].origin.file == (dir / "a" / "b" / "parts.conf").string());
  fs::remove_all(dir);
}

TEST_CASE("slurm.conf SelectTypeParameters: RealMemory binds only under a *_Memory type", "[slurm][config][nodes]") {
  const std::string nodes = "NodeName=n[1-2] CPUs=8 RealMemory=1000 Gres=gpu:2\n";
  // No SelectTypeParameters: cons_tres's default, CR_Core_Memory (slurm.conf(5)).
  CHECK(cluster_from_conf(read(nodes)).node_mem_bytes.size() == 2);
  CHECK(cluster_from_conf(read("SelectTypeParameters=CR_CPU_Memory\n" + nodes)).node_mem_bytes.size() == 2);
  const ClusterConfig core = cluster_from_conf(read("SelectTypeParameters=CR_Core\n" + nodes));
  CHECK(core.node_mem_bytes.empty());
  CHECK(core.node_cpus.size() == 2);  // CPUs still bind
}
