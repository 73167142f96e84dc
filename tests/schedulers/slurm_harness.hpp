#pragma once
// Small hand-built scenarios for the slurm model's conformance tests: a workload, a uniform
// cluster, a SlurmConfig, run through the real engine.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedulers/slurm/slurm.hpp"
#include "sim/core/engine.hpp"

namespace slurm_test {

using namespace floorsim;

struct J {
  int64_t id;
  SimTime submit, runtime, limit;
  int32_t gpus;
  int32_t nodes = 0;
  std::string user = "u1", qos = "", part = "", account = "", klass = "";
};

struct Result {
  Workload wl;
  ClusterConfig cl;
  std::unique_ptr<Scheduler> sched;
  std::vector<JobRun> runs;
  std::vector<std::vector<NodeShare>> alloc;  // final allocation by JobIdx
  nlohmann::json report;                      // the model's metrics.json figures
  JobIdx idx(int64_t id) const {
    for (size_t i = 0; i < wl.jobs.size(); ++i)
      if (wl.jobs[i].id == id) return static_cast<JobIdx>(i);
    return kNoJob;
  }
  const JobRun& run(int64_t id) const { return runs.at(idx(id)); }
  SimTime start(int64_t id) const { return run(id).first_start_s; }
  std::string reason(int64_t id) const { return std::string(sched->reason_name(run(id).reason)); }
  std::vector<std::string> extras(int64_t id) const {
    std::vector<std::string> v;
    sched->extra_values(idx(id), v);
    return v;
  }
  std::string planned(int64_t id) const { return extras(id)[1]; }
  double priority(int64_t id) const { return std::stod(extras(id)[0]); }
  std::vector<std::string> nodes(int64_t id) const {
    std::vector<std::string> out;
    for (const auto& s : alloc.at(idx(id))) out.push_back(cl.node_names[s.node]);
    return out;
  }
};

inline Workload workload(const std::vector<J>& jobs) {
  Workload wl;
  for (const auto& j : jobs) {
    JobSpec s;
    s.id = j.id;
    s.submit_s = j.submit;
    s.runtime_s = j.runtime;
    s.time_limit_s = j.limit;
    s.gpus = j.gpus;
    s.nodes = j.nodes;
    s.user = wl.strings.intern(j.user);
    s.qos = wl.strings.intern(j.qos);
    s.partition = wl.strings.intern(j.part);
    s.account = wl.strings.intern(j.account);
    s.klass = wl.strings.intern(j.klass);
    wl.jobs.push_back(s);
  }
  std::stable_sort(wl.jobs.begin(), wl.jobs.end(), [](const JobSpec& a, const JobSpec& b) {
    return a.submit_s != b.submit_s ? a.submit_s < b.submit_s : a.id < b.id;
  });
  return wl;
}

// Runs the model already in `r` (invariants checked) and collects its runs, report and allocations.
inline void run_model(Result& r, SimTime horizon_s = kNever, std::vector<NodeEvent> node_events = {}) {
  EngineConfig ec;
  ec.horizon_s = horizon_s;
  ec.check_invariants = true;
  Engine e(r.wl, r.cl, *r.sched, ec);
  if (!node_events.empty()) e.add_node_events(std::move(node_events));
  e.run();
  r.runs = e.runs();
  r.report = r.sched->report(e.snapshot());
  for (size_t j = 0; j < r.wl.jobs.size(); ++j) {
    auto a = e.final_allocation(static_cast<JobIdx>(j));
    r.alloc.emplace_back(a.begin(), a.end());
  }
}

// Runs to completion (or `horizon_s`) on `nodes` x `gpus` nodes named n001...
inline std::unique_ptr<Result> run(const slurm::SlurmConfig& cfg, const std::vector<J>& jobs, size_t nodes = 4,
                                   int32_t gpus = 8, SimTime horizon_s = kNever, std::vector<NodeEvent> node_events = {}) {
  auto r = std::make_unique<Result>();
  r->wl = workload(jobs);
  r->cl = uniform_cluster("n", nodes, gpus);
  r->sched = slurm::make_model(cfg, r->wl, r->cl, "test");
  run_model(*r, horizon_s, std::move(node_events));
  return r;
}

inline slurm::Qos qos(const std::string& name, int64_t prio = 0) {
  slurm::Qos q;
  q.name = name;
  q.priority = prio;
  return q;
}

inline slurm::Partition part(const std::string& name, std::vector<std::string> nodes, int64_t tier = 1) {
  slurm::Partition p;
  p.name = name;
  p.nodes = std::move(nodes);
  p.priority_tier = tier;
  return p;
}

// Reads slurm.conf text, builds the cluster from it (cluster_from_conf), lets `edit` change each
// job's request (CPUs, memory), and runs the jobs to completion.
inline std::unique_ptr<Result> run_conf(const std::string& conf, const std::vector<J>& jobs,
                                        const std::function<void(JobSpec&)>& edit = {}) {
  slurm::SlurmConfig cfg;
  cfg.sched.batch_sched_delay_s = 0;
  slurm::read_slurm_conf_text(conf, "slurm.conf", cfg);
  auto r = std::make_unique<Result>();
  r->wl = workload(jobs);
  if (edit)
    for (auto& js : r->wl.jobs) edit(js);
  r->cl = slurm::cluster_from_conf(cfg);
  r->sched = slurm::make_model(cfg, r->wl, r->cl, "test");
  run_model(*r);
  return r;
}

}  // namespace slurm_test
