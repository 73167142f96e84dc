// Real sites' slurm.conf files (tests/schedulers/data/site-confs, sources in its SOURCES.md):
// each is read, its cluster built from its NodeName lines, and a small workload (one job per
// partition, sized to fit it) run through the slurm model to the end. Pinned per site: nodes,
// GPUs, partitions, the warnings that matter; the two a slurmctld refuses are refused here too.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "schedulers/slurm/slurm.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/error.hpp"

using namespace floorsim;
using namespace floorsim::slurm;

namespace {

const std::string kDir = std::string(FLOORSIM_SOURCE_DIR) + "/tests/schedulers/data/site-confs/";

struct Site {
  const char* dir;
  bool gres_conf;
  size_t nodes;
  int64_t gpus;
  std::vector<std::string> partitions;
  size_t warnings;
  std::vector<std::string> key_warnings;  // each must appear in some warning
  const char* error = nullptr;            // expected refusal (prefix after the directory)
  size_t gpu_partitions = 0;              // partitions whose every node has a GPU
};

// One job per partition: one node, the fewest GPUs a node of it has (at most 1; 0 on CPU-only
// partitions), a time limit within MaxTime, an account the partition allows (AllowAccounts).
Workload workload_for(const SlurmConfig& c, const ClusterConfig& cl) {
  Workload wl;
  std::map<std::string, size_t> index;
  for (size_t n = 0; n < cl.nodes(); ++n) index[cl.node_names[n]] = n;
  for (size_t p = 0; p < c.partitions.size(); ++p) {
    const Partition& P = c.partitions[p];
    int32_t gpus = 1;
    auto take = [&](size_t n) { gpus = std::min(gpus, cl.node_gpus[n]); };
    if (P.nodes.empty())
      for (size_t n = 0; n < cl.nodes(); ++n) take(n);
    else
      for (const auto& name : P.nodes) take(index.at(name));
    JobSpec j;
    j.id = static_cast<int64_t>(p + 1);
    j.submit_s = static_cast<SimTime>(p * 10);
    j.time_limit_s = std::min<SimTime>(3600, P.max_time_s);
    j.runtime_s = j.time_limit_s / 2;
    j.gpus = gpus;
    j.nodes = 1;
    j.cpus = 1;
    j.user = wl.strings.intern("u1");
    j.partition = wl.strings.intern(P.name);
    j.qos = wl.strings.intern("");
    j.account = wl.strings.intern(P.allow_accounts.empty() ? "" : P.allow_accounts.front());
    j.klass = wl.strings.intern("");
    wl.jobs.push_back(j);
  }
  return wl;
}

SlurmConfig read_site(const Site& s) {
  SlurmConfig c;
  read_slurm_conf(kDir + s.dir + "/slurm.conf", c);
  if (s.gres_conf) read_gres_conf(kDir + s.dir + "/gres.conf", c);
  return c;
}

}  // namespace

TEST_CASE("site slurm.conf corpus: each real site's file builds its cluster and runs a workload", "[slurm][site]") {
  const std::vector<Site> sites = {
      {"ucmerced-elcapitan", false, 21, 0, {"std.q"}, 0, {}},
      {"radon", false, 10, 0, {"all"}, 1, {"SelectType=select/linear is not modelled"}},
      {"nstda-tara", false, 10, 0, {"debug", "standby", "memory", "dgx", "biobank"}, 1,
       {"PartitionName=biobank AllowGroups=biobank is not modelled"}},  // OverSubscribe=EXCLUSIVE is modelled
      {"biomedia", false, 28, 20, {"long", "rocsLong", "gpus", "interactive"}, 1, {"MaxJobCount=25000 is not modelled"}, nullptr, 1},
      {"pal-goedel", false, 1, 8, {"PAL1"}, 1, {"Gres mps is not modelled"}, nullptr, 1},
      {"fiuba", false, 11, 0, {"normal"}, 2,
       {"Oversubscribe=FORCE:8: each CPU of its nodes takes up to 8 jobs", "PreemptType=preempt/partition_prio is not modelled"}},
      {"caltech-central", false, 1347, 2708, {"any", "sunshine", "dgxlo", "tensortest", "clima", "clima2", "clima3", "clima4", "ipac"}, 0,
       {"Licenses=spartan:8 is not modelled", "SuspendTime=300 is not modelled", "RequeueExit=240 is not modelled",
        "JobSubmitPlugins=require_timelimit is not modelled", "State=cloud", "PartitionName=clima LLN=yes"},
       nullptr, 7},
      {"hf-cluster", false, 1, 8, {"train-p4de24xlarge"}, 2,
       {"SuspendTime=600 is not modelled", "State=cloud"}, nullptr, 1},  // EnforcePartLimits=ALL is modelled
      {"deepops-dgx", true, 4, 32, {"batch"}, 0, {}, nullptr, 1},
      {"deic-learning", false, 1, 0, {"learning"}, 0, {}},
      {"enccs-bestla", false, 0, 0, {}, 0, {}, "slurm.conf:16: 'REPLACE_IT' is not Key=Value"},
      {"stanford-power9", false, 0, 0, {}, 0, {}, "slurm.conf:17: partition main lists node power9-compute-1 which the cluster lacks"},
  };
  for (const auto& s : sites) {
    INFO(s.dir);
    if (s.error) {
      std::string err;
      try {
        SlurmConfig c = read_site(s);
        const ClusterConfig cl = cluster_from_conf(c);
        check_config_files(c, cl.node_names);
      } catch (const InputError& e) {
        err = e.what();
      }
      CHECK(err.rfind(kDir + s.dir + "/" + s.error, 0) == 0);
      continue;
    }
    SlurmConfig c = read_site(s);
    const ClusterConfig cl = cluster_from_conf(c);
    check_config_files(c, cl.node_names);
    CHECK(cl.nodes() == s.nodes);
    CHECK(cl.total_gpus() == s.gpus);
    std::vector<std::string> parts;
    for (const auto& p : c.partitions) parts.push_back(p.name);
    CHECK(parts == s.partitions);
    for (const auto& w : s.key_warnings)
      CHECK(std::any_of(c.warnings.begin(), c.warnings.end(), [&](const std::string& x) { return x.find(w) != std::string::npos; }));
    if (s.warnings > 0 || s.key_warnings.empty()) CHECK(c.warnings.size() == s.warnings);
    for (const auto& w : c.warnings) UNSCOPED_INFO(w);
    if (std::string(s.dir) == "hf-cluster") CHECK(c.sched.requeue_delay_s == 70);  // AuthInfo=cred_expire=70
    if (std::string(s.dir) == "pal-goedel") CHECK(c.job_defaults.mem_per_gpu == 30000);  // DefMemPerGPU: modelled
    if (std::string(s.dir) == "fiuba") CHECK(c.job_defaults.mem_per_node == 16384);
    if (std::string(s.dir) == "caltech-central") {  // partition access lists are modelled, not warned
      CHECK(c.partitions[0].deny_accounts == std::vector<std::string>{"sunshine"});
      CHECK(c.partitions[1].allow_accounts == std::vector<std::string>{"sunshine"});
    }

    // A site enforcing associations keeps them in its accounting database (a sacctmgr dump),
    // which the corpus does not have: the workload's user gets one.
    if (c.enforce_associations) read_sacctmgr_dump_text("Account - 'site'\nParent - 'site'\nUser - 'u1'\n", "test.dump", c);
    const Workload wl = workload_for(c, cl);
    auto model = make_model(c, wl, cl, "site");
    EngineConfig ec;
    ec.check_invariants = true;
    Engine e(wl, cl, *model, ec);
    e.run();
    // Every job runs to the end: GPU jobs, and CPU-only ones on CPU-only partitions.
    size_t gpu_jobs = 0;
    for (size_t j = 0; j < wl.jobs.size(); ++j) {
      INFO("job in partition " << c.partitions[j].name);
      CHECK(e.runs()[j].state == JobState::Completed);
      gpu_jobs += wl.jobs[j].gpus > 0;
    }
    CHECK(gpu_jobs == s.gpu_partitions);
  }
}
