// Readers of the slurm model: slurm.conf, sacctmgr dump, topology.conf, gres.conf, time strings.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "schedulers/slurm/config.hpp"
#include "schedulers/slurm/slurm.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;
using namespace floorsim::slurm;

TEST_CASE("slurm time strings", "[slurm][config]") {
  double s = 0;
  CHECK((parse_time_s("90", s) && s == 5400));           // minutes
  CHECK((parse_time_s("2:30", s) && s == 150));          // minutes:seconds
  CHECK((parse_time_s("01:00:05", s) && s == 3605));     // hours:minutes:seconds
  CHECK((parse_time_s("7-0", s) && s == 7 * 86400));     // days-hours
  CHECK((parse_time_s("1-2:03", s) && s == 86400 + 7200 + 180));
  CHECK((parse_time_s("1-00:00:10", s) && s == 86410));
  CHECK((parse_time_s("UNLIMITED", s) && s == kNever));
  CHECK_FALSE(parse_time_s("abc", s));
  CHECK_FALSE(parse_time_s("1:2:3:4", s));
  CHECK_FALSE(parse_time_s("", s));
}

TEST_CASE("slurm.conf: nodes, partitions, scheduler and priority keys", "[slurm][config]") {
  const std::string text = R"(# quant cluster
ClusterName=quant
schedulertype=sched/backfill
SchedulerParameters=bf_window=120,bf_resolution=30,bf_interval=20,bf_max_job_test=50,\
  bf_continue,sched_interval=45,default_queue_depth=10,assoc_limit_stop,bf_busy_nodes
PriorityType=priority/multifactor
PriorityDecayHalfLife=1-0
PriorityMaxAge=2-0
PriorityWeightAge=1000
PriorityWeightQOS=5000
PriorityWeightTRES=CPU=10,GRES/gpu=200
PriorityFlags=NO_FAIR_TREE
AccountingStorageEnforce=associations,limits,qos
PreemptType=preempt/qos
PreemptMode=REQUEUE
PreemptExemptTime=00:05:00
SlurmdPort=6818   # not scheduling-relevant
NodeName=DEFAULT CPUs=64
NodeName=n[1-4] Gres=gpu:a100:8 RealMemory=1000 Weight=20
PartitionName=batch Nodes=n[1-3] Default=YES MaxTime=2:00:00 PriorityTier=1
PartitionName=urgent Nodes=ALL PriorityTier=10 QOS=urgent_pq PriorityJobFactor=3
)";
  SlurmConfig c;
  read_slurm_conf_text(text, "slurm.conf", c);
  CHECK(c.cluster_name == "quant");
  CHECK(c.sched.bf_window_s == 120 * 60);
  CHECK(c.sched.bf_resolution_s == 30);
  CHECK(c.sched.bf_interval_s == 20);
  CHECK(c.sched.bf_max_job_test == 50);
  CHECK(c.sched.bf_continue);
  CHECK(c.sched.sched_interval_s == 45);
  CHECK(c.sched.default_queue_depth == 10);
  CHECK(c.sched.assoc_limit_stop);
  CHECK(c.prio.type == PriorityType::Multifactor);
  CHECK(c.prio.decay_half_life_s == 86400);
  CHECK(c.prio.max_age_s == 2 * 86400);
  CHECK(c.prio.weight_age == 1000);
  CHECK(c.prio.weight_qos == 5000);
  CHECK(c.prio.weight_tres_gpu == 200);
  CHECK(c.prio.weight_tres_cpu == 10);
  CHECK_FALSE(c.prio.fair_tree);
  CHECK(c.enforce_limits);
  CHECK(c.enforce_qos);
  CHECK(c.enforce_associations);
  CHECK(c.preempt_qos);
  CHECK(c.preempt_mode == slurm::PreemptMode::Requeue);
  CHECK(c.preempt_exempt_time_s == 300);
  REQUIRE(c.nodes.size() == 4);
  CHECK(c.nodes[0].name == "n1");
  CHECK(c.nodes[3].gpus == 8);
  CHECK(c.nodes[3].cpus == 64);
  CHECK(c.nodes[3].weight == 20);  // NodeName Weight= (lowest weight allocated first)
  REQUIRE(c.partitions.size() == 2);
  CHECK(c.partitions[0].nodes == std::vector<std::string>{"n1", "n2", "n3"});
  CHECK(c.partitions[0].is_default);
  CHECK(c.partitions[0].max_time_s == 7200);
  CHECK(c.partitions[1].nodes.empty());  // ALL
  CHECK(c.partitions[1].priority_tier == 10);
  CHECK(c.partitions[1].priority_job_factor == 3);
  CHECK(c.partitions[1].qos == "urgent_pq");
  // SlurmdPort does not schedule: quiet. An unmodelled SchedulerParameters item: its own warning.
  REQUIRE(c.warnings.size() == 1);
  CHECK(c.warnings[0] == "slurm.conf:4: SchedulerParameters item bf_busy_nodes is not modelled; floorsim schedules as slurmctld does without it");
  const ClusterConfig cl = cluster_from_conf(c);
  CHECK(cl.nodes() == 4);
  CHECK(cl.total_gpus() == 32);
}

TEST_CASE("slurm.conf: errors name file and line", "[slurm][config]") {
  SlurmConfig c;
  try {
    read_slurm_conf_text("ClusterName=x\n\nPriorityMaxAge=soon\n", "site/slurm.conf", c);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).rfind("site/slurm.conf:3: PriorityMaxAge=soon", 0) == 0);
  }
  CHECK_THROWS_AS(read_slurm_conf_text("PartitionName=p Nodes=n[1-\n", "f", c), InputError);
  CHECK_THROWS_AS(read_slurm_conf_text("PreemptType=preempt/magic\n", "f", c), InputError);
  CHECK_THROWS_AS(read_slurm_conf_text("NodeName=n1 Gres=gpu:x\n", "f", c), InputError);
}

TEST_CASE("sacctmgr dump: cluster, accounts, users, QOS", "[slurm][config]") {
  const std::string text = R"(# To edit this file start with a cluster line for the new cluster
Cluster - 'quant':Fairshare=1:QOS='normal'
QOS - 'normal':Priority=0
QOS - 'risk':Priority=100:GrpTRES=gres/gpu=16,node=2:MaxTRESPerUser=gres/gpu=8:MaxJobsPerUser=3:MaxWall=60:Flags=DenyOnLimit,NoReserve:Preempt='burst,scavenger':PreemptMode=requeue:GraceTime=30:PreemptExemptTime='00:10:00'
QOS - 'burst':Priority=1:UsageFactor=0.5:GrpTRESMins=gres/gpu=6000:Flags=NoDecay
QOS - 'scavenger'
Parent - 'root'
User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1
Account - 'desk':Description='trading desks':Organization='bank':Fairshare=60:GrpTRES=gres/gpu=24
Account - 'research':Description='research':Organization='bank':Fairshare=40
Parent - 'desk'
User - 'alice':DefaultAccount='desk':DefaultQOS='risk':Fairshare=2
Parent - 'research'
User - 'bob':DefaultAccount='research':Fairshare=1:MaxJobs=4
)";
  SlurmConfig c;
  read_sacctmgr_dump_text(text, "quant.cfg", c);
  CHECK(c.cluster_name == "quant");
  REQUIRE(c.qos.size() == 4);
  const Qos& risk = c.qos[1];
  CHECK(risk.name == "risk");
  CHECK(risk.priority == 100);
  CHECK(risk.grp_tres.gpu == 16);
  CHECK(risk.grp_tres.node == 2);
  CHECK(risk.grp_tres.cpu == kUnset);
  CHECK(risk.max_tres_per_user.gpu == 8);
  CHECK(risk.max_jobs_per_user == 3);
  CHECK(risk.max_wall_s == 3600);
  CHECK(risk.flags.deny_on_limit);
  CHECK(risk.flags.no_reserve);
  CHECK(risk.preempt == std::vector<std::string>{"burst", "scavenger"});
  CHECK(risk.preempt_mode == slurm::PreemptMode::Requeue);
  CHECK(risk.grace_time_s == 30);
  CHECK(risk.preempt_exempt_time_s == 600);
  CHECK(c.qos[2].usage_factor == 0.5);
  CHECK(c.qos[2].grp_tres_mins.gpu == 6000);
  CHECK(c.qos[2].flags.no_decay);
  REQUIRE(c.accounts.size() == 3);  // root, desk, research
  CHECK(c.accounts[1].name == "desk");
  CHECK(c.accounts[1].parent == "root");
  CHECK(c.accounts[1].fairshare == 60);
  CHECK(c.accounts[1].grp_tres.gpu == 24);
  REQUIRE(c.users.size() == 3);
  CHECK(c.users[1].name == "alice");
  CHECK(c.users[1].account == "desk");
  CHECK(c.users[1].default_qos == "risk");
  CHECK(c.users[2].account == "research");
  CHECK(c.users[2].max_jobs == 4);
}

TEST_CASE("sacctmgr dump: errors name file and line", "[slurm][config]") {
  SlurmConfig c;
  try {
    read_sacctmgr_dump_text("Cluster - 'x'\nParent - 'nope'\n", "d.cfg", c);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).rfind("d.cfg:2: Parent 'nope'", 0) == 0);
  }
  CHECK_THROWS_AS(read_sacctmgr_dump_text("QOS - 'q':Priority=high\n", "d", c), InputError);
  CHECK_THROWS_AS(read_sacctmgr_dump_text("garbage line\n", "d", c), InputError);
  CHECK_THROWS_AS(read_sacctmgr_dump_text("Widget - 'w'\n", "d", c), InputError);
}

TEST_CASE("topology.conf and gres.conf", "[slurm][config]") {
  SlurmConfig c;
  read_slurm_conf_text("NodeName=n[1-4] Gres=gpu:4\n", "s", c);
  read_gres_conf_text("NodeName=n[1-2] Name=gpu File=/dev/nvidia[0-7]\nNodeName=n3 Name=gpu Count=2\n", "g", c);
  // slurm.conf's Gres= count stands (slurmctld schedules it); gres.conf's differing counts warn.
  CHECK(c.nodes[0].gpus == 4);
  CHECK(c.nodes[2].gpus == 4);
  CHECK(c.nodes[3].gpus == 4);
  CHECK(c.warnings.size() == 3);
  read_topology_conf_text("SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-4]\nSwitchName=top Switches=s[1-2]\n", "t", c);
  REQUIRE(c.switches.size() == 3);
  const ClusterConfig cl = cluster_from_conf(c);
  CHECK(cl.node_leaf == std::vector<uint32_t>{0, 0, 1, 1});
  CHECK(cl.leaf_names == std::vector<std::string>{"s1", "s2"});
  CHECK_THROWS_AS(read_topology_conf_text("Router=r1\n", "t", c), InputError);
}

// priority_multifactor.c init(): without slurmdbd the age and fair-share weights are dropped
// ("PriorityWeightAge can only be used with SlurmDBD, ignoring", seen live on 22.05 in
// tests/oracle/recorded/multifactor.tsv). Without AccountingStorageType, slurmdbd is assumed.
TEST_CASE("slurm.conf: age and fair-share weights need AccountingStorageType=accounting_storage/slurmdbd", "[slurm][config]") {
  struct Case {
    const char* storage_line;
    double age, fairshare, jobsize;
    size_t warnings;
  };
  for (const Case& c : {Case{"AccountingStorageType=accounting_storage/none\n", 0, 0, 300, 2},
                        Case{"AccountingStorageType=accounting_storage/slurmdbd\n", 1000, 2000, 300, 0},
                        Case{"", 1000, 2000, 300, 0}}) {
    SlurmConfig cfg;
    read_slurm_conf_text(std::string("PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=2000\n"
                                     "PriorityWeightJobSize=300\n") + c.storage_line,
                         "slurm.conf", cfg);
    INFO(c.storage_line);
    CHECK(cfg.prio.weight_age == c.age);
    CHECK(cfg.prio.weight_fairshare == c.fairshare);
    CHECK(cfg.prio.weight_jobsize == c.jobsize);
    CHECK(cfg.warnings.size() == c.warnings);
  }
}

namespace {
// The message of the InputError `f` throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// slurmctld refuses what is left of a line after its Key=Value words ("Parse error in file ...").
TEST_CASE("slurm.conf, topology.conf: a word without '=' is an error", "[slurm][config]") {
  SlurmConfig c;
  // Read on, "PartitionName batch" made a partition named "" and ignored "batch".
  CHECK(error_of([&] { read_slurm_conf_text("ClusterName=q\nPartitionName batch Nodes=ALL\n", "s.conf", c); })
            .rfind("s.conf:2: 'PartitionName' is not Key=Value", 0) == 0);
  CHECK(error_of([&] { read_slurm_conf_text("NodeName=n1 Gres=gpu:8 State\n", "s.conf", c); }).rfind("s.conf:1: 'State' is not Key=Value", 0) == 0);
  CHECK(error_of([&] { read_slurm_conf_text("SchedulerParameters\n", "s.conf", c); }).rfind("s.conf:1:", 0) == 0);
  CHECK(error_of([&] { read_slurm_conf_text("NodeName= CPUs=4\n", "s.conf", c); }).rfind("s.conf:1: 'NodeName' has no value", 0) == 0);
  // parse_config.c's keyvalue_pattern allows spaces around '='.
  CHECK(error_of([&] { read_slurm_conf_text("ClusterName = q\n", "s.conf", c); }).empty());
  CHECK(error_of([&] { read_topology_conf_text("SwitchName=s1 Nodes=n1 LinkSpeed\n", "t.conf", c); }).rfind("t.conf:1: 'LinkSpeed' is not Key=Value", 0) == 0);
}

TEST_CASE("sacctmgr dump: negative TRES counts and job limits are errors; -1 clears a limit", "[slurm][config]") {
  SlurmConfig c;
  CHECK(error_of([&] { read_sacctmgr_dump_text("QOS - 'q':GrpTRES=gres/gpu=-24\n", "d.cfg", c); })
            .rfind("d.cfg:1: GrpTRES=gres/gpu=-24: 'gres/gpu=-24' is negative", 0) == 0);
  CHECK(error_of([&] { read_sacctmgr_dump_text("Account - 'a':GrpTRES=cpu=64,node=-2\n", "d.cfg", c); }).find("'node=-2' is negative") != std::string::npos);
  CHECK(error_of([&] { read_sacctmgr_dump_text("QOS - 'q':MaxJobsPerUser=-3\n", "d.cfg", c); }).rfind("d.cfg:1: MaxJobsPerUser=-3 is negative", 0) == 0);
  SlurmConfig ok;
  read_sacctmgr_dump_text("QOS - 'q':GrpTRES=gres/gpu=-1,node=4:GrpJobs=-1\n", "d.cfg", ok);
  CHECK(ok.qos.back().grp_tres.gpu == kUnset);
  CHECK(ok.qos.back().grp_tres.node == 4);
  CHECK(ok.qos.back().grp_jobs == kUnset);
}

// An open quote used to swallow the rest of the line into the QOS name, and the run then failed
// on "QOS 'normal' is not defined" against the scenario.
TEST_CASE("sacctmgr dump: an unterminated quote is an error on its line", "[slurm][config]") {
  SlurmConfig c;
  CHECK(error_of([&] { read_sacctmgr_dump_text("Cluster - 'q'\nQOS - 'normal:Priority=10\n", "d.cfg", c); })
            .rfind("d.cfg:2: unterminated quote", 0) == 0);
}

TEST_CASE("slurm.conf: Include is read relative to the including file, and a cycle is an error", "[slurm][config]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("floorsim-include-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "site");
  auto write = [&](const fs::path& p, const std::string& text) { std::ofstream(p) << text; };
  write(dir / "slurm.conf", "ClusterName=Quant\nInclude site/nodes.conf\nInclude %c-parts.conf\n");
  write(dir / "site" / "nodes.conf", "NodeName=n[1-4] Gres=gpu:8 Bogus=1\n");
  write(dir / "quant-parts.conf", "PartitionName=batch Nodes=ALL Default=YES\n");
  SlurmConfig c;
  read_slurm_conf((dir / "slurm.conf").string(), c);
  CHECK(c.nodes.size() == 4);
  REQUIRE(c.partitions.size() == 1);
  CHECK(c.partitions[0].origin.file == (dir / "quant-parts.conf").string());
  CHECK(c.partitions[0].origin.line == 1);
  REQUIRE(c.warnings.size() == 1);  // the included file's unknown option, under its own name and line
  CHECK(c.warnings[0].rfind((dir / "site" / "nodes.conf").string() + ":1: Bogus is not a NodeName option", 0) == 0);

  const std::string main = (dir / "slurm.conf").string();
  write(dir / "slurm.conf", "ClusterName=q\nInclude missing.conf\n");
  CHECK(error_of([&] { SlurmConfig x; read_slurm_conf(main, x); }).rfind(main + ":2: Include missing.conf: " + (dir / "missing.conf").string() + " does not exist", 0) == 0);
  write(dir / "slurm.conf", "ClusterName=q\nInclude slurm.conf\n");
  CHECK(error_of([&] { SlurmConfig x; read_slurm_conf(main, x); }).find(main + ":2: Include slurm.conf: the file includes itself") == 0);
  write(dir / "slurm.conf", "Include site/a.conf\n");
  write(dir / "site" / "a.conf", "ClusterName=q\nInclude ../slurm.conf\n");  // relative to site/
  CHECK(error_of([&] { SlurmConfig x; read_slurm_conf(main, x); }).rfind((dir / "site" / "a.conf").string() + ":2: Include ../slurm.conf: the file includes itself", 0) == 0);
  write(dir / "slurm.conf", "Include %c.conf\n");
  CHECK(error_of([&] { SlurmConfig x; read_slurm_conf(main, x); }).find("%c stands for ClusterName, which is not set above this line") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("configuration files: problems across files are reported against the file and line that has them", "[slurm][config]") {
  const std::vector<std::string> nodes{"n1", "n2", "n3", "n4"};
  SlurmConfig c;
  c.topology = "tree";
  read_topology_conf_text("SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-5]\nSwitchName=top Switches=s[1-2]\n", "t.conf", c);
  CHECK(error_of([&] { check_config_files(c, nodes); }).rfind("t.conf:2: topology/tree: switch s2 lists node n5", 0) == 0);
  c.switches.clear();
  read_topology_conf_text("SwitchName=s1 Nodes=n[1-4]\nSwitchName=top Switches=s[1-2]\n", "t.conf", c);
  CHECK(error_of([&] { check_config_files(c, nodes); }).rfind("t.conf:2: topology/tree: switch top lists switch s2 which is not defined", 0) == 0);
  c.switches.clear();
  read_topology_conf_text("SwitchName=s1 Nodes=n[1-3]\n", "t.conf", c);
  CHECK(error_of([&] { check_config_files(c, nodes); }).empty());  // a node under no switch: warned by the model
  c.switches.clear();
  read_topology_conf_text("SwitchName=s1 Nodes=n[1-4]\n", "t.conf", c);
  CHECK(error_of([&] { check_config_files(c, nodes); }).empty());

  SlurmConfig s;
  read_slurm_conf_text("PartitionName=a Nodes=n[1-4]\nPartitionName=b Nodes=ALL QOS=gold\n", "s.conf", s);
  CHECK(error_of([&] { check_config_files(s, nodes); }).rfind("s.conf:2: partition b has QOS=gold which is not defined", 0) == 0);
  read_sacctmgr_dump_text("QOS - 'gold'\nQOS - 'risk':Preempt='scavenger'\n", "d.cfg", s);
  CHECK(error_of([&] { check_config_files(s, nodes); }).rfind("d.cfg:2: QOS risk preempts unknown QOS 'scavenger'", 0) == 0);
  SlurmConfig u;
  read_sacctmgr_dump_text("Account - 'desk'\nParent - 'desk'\nUser - 'alice':DefaultQOS='risk'\n", "d.cfg", u);
  CHECK(error_of([&] { check_config_files(u, nodes); }).rfind("d.cfg:3: user alice has DefaultQOS=risk which is not defined", 0) == 0);
}
