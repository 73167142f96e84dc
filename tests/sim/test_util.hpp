#pragma once
// Small builders for hand-made workloads in tests.
#include <string>
#include <vector>

#include "sim/core/engine.hpp"
#include "sim/core/types.hpp"

namespace floorsim::testing {

struct JobBuilder {
  Workload& w;
  JobSpec& add(int64_t id, SimTime submit, SimTime runtime, int32_t gpus, SimTime limit = -1, int32_t nodes = 0) {
    JobSpec j;
    j.id = id;
    j.submit_s = submit;
    j.runtime_s = runtime;
    j.time_limit_s = limit < 0 ? runtime : limit;
    j.gpus = gpus;
    j.nodes = nodes;
    w.jobs.push_back(j);
    return w.jobs.back();
  }
};

// A 1000 s job of class `klass` (interned in `w`) asking `gpus` GPUs on `nodes` nodes (0: any).
inline JobSpec class_job(Workload& w, int64_t id, const std::string& klass, SimTime submit, int32_t nodes, int32_t gpus) {
  JobSpec j;
  j.id = id;
  j.submit_s = submit;
  j.runtime_s = 1000;
  j.nodes = nodes;
  j.gpus = gpus;
  j.klass = w.strings.intern(klass);
  return j;
}

// The names of the nodes job `j` last held.
inline std::vector<std::string> node_names_of(const Engine& e, const ClusterConfig& c, JobIdx j) {
  std::vector<std::string> out;
  for (const auto& s : e.final_allocation(j)) out.push_back(c.node_names[s.node]);
  return out;
}

}  // namespace floorsim::testing
