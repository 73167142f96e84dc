#pragma once
// Shared harness of the Kubernetes-model engine-level tests (KAI, Kueue): the model's YAML
// written to a temp folder, hand-built jobs, one run through floorsim::Engine with invariant
// checks. ModelRun does the run for any model given its parameter spec and factory; Run is
// KAI's.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>

#include "schedulers/kai/kai_scheduler.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/error.hpp"

namespace floorsim::kai_test {


inline std::string temp_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("floorsim-kai-test-" + name);
  std::filesystem::create_directories(d);
  return d.string();
}

inline JobSpec job(Workload& w, int64_t id, const std::string& klass, SimTime submit, SimTime runtime, int32_t gpus,
            int32_t prio = 0, int32_t milli = 0) {
  JobSpec j;
  j.id = id;
  j.submit_s = submit;
  j.runtime_s = runtime;
  j.time_limit_s = runtime;
  j.gpus = gpus;
  j.priority = prio;
  j.gpu_milli = milli;
  j.klass = w.strings.intern(klass);
  return j;
}

inline std::string queue_yaml(const std::string& name, double quota, double limit = -1, double weight = 1,
                       const std::string& parent = "", int priority = 100) {
  std::string s = "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata:\n  name: " + name + "\nspec:\n";
  if (!parent.empty()) s += "  parentQueue: " + parent + "\n";
  s += "  priority: " + std::to_string(priority) + "\n";
  s += "  resources:\n    gpu: {quota: " + std::to_string(quota) + ", limit: " + std::to_string(limit) +
       ", overQuotaWeight: " + std::to_string(weight) + "}\n---\n";
  return s;
}

// A model as the registry holds it: its scheduler-block spec and its factory.
struct Model {
  const char* type;
  std::shared_ptr<const cfg::ObjectSpec> (*spec)();
  std::unique_ptr<Scheduler> (*make)(const cfg::json&, const SchedulerContext&);
};
inline const Model kKai{"kai", kai::kai_params_spec, kai::make_kai};

// One engine run of a model: `yaml` as the model's only manifest (queues.yaml in a temp folder
// named after the test), `params` as the rest of its scheduler block.
struct ModelRun {
  Workload w;
  ClusterConfig cluster;
  std::unique_ptr<Scheduler> sched;
  std::unique_ptr<Engine> engine;

  void run(const Model& m, const std::string& name, const std::string& yaml, cfg::json params) {
    const std::string dir = temp_dir(name);
    std::ofstream(dir + "/queues.yaml") << yaml;
    params["type"] = m.type;
    params["manifests"] = {"queues.yaml"};
    const cfg::json resolved = cfg::resolve(params, *m.spec(), "/scheduler", "test.json");
    SchedulerContext ctx{w, cluster, dir, "test.json", 1};
    sched = m.make(resolved, ctx);
    EngineConfig ec;
    ec.check_invariants = true;
    engine = std::make_unique<Engine>(w, cluster, *sched, ec);
    engine->run();
  }
};

struct Run : ModelRun {
  int32_t cpus_per_node = 0;  // > 0: the nodes give CPUs (cpu capacity enters the division)

  void go(const std::string& name, const std::string& yaml, cfg::json params, size_t nodes, int32_t gpus_per_node) {
    cluster = uniform_cluster("n", nodes, gpus_per_node);
    if (cpus_per_node > 0) cluster.node_cpus.assign(nodes, cpus_per_node);
    run(kKai, name, yaml, std::move(params));
  }
  const JobRun& r(int64_t id) const {
    for (size_t i = 0; i < w.jobs.size(); ++i)
      if (w.jobs[i].id == id) return engine->runs()[i];
    FAIL("no job " << id);
    return engine->runs()[0];
  }
  std::set<int64_t> started_at(SimTime t) const {
    std::set<int64_t> s;
    for (size_t i = 0; i < w.jobs.size(); ++i)
      if (engine->runs()[i].first_start_s == t) s.insert(w.jobs[i].id);
    return s;
  }
  std::set<int64_t> preempted() const {
    std::set<int64_t> s;
    for (size_t i = 0; i < w.jobs.size(); ++i)
      if (engine->runs()[i].preemptions > 0) s.insert(w.jobs[i].id);
    return s;
  }
};

using Ids = std::set<int64_t>;

}  // namespace floorsim::kai_test
