#pragma once
// Small builders for hand-made workloads in tests.
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

}  // namespace floorsim::testing
