#pragma once
// The runtime formula of kernels/job_runtime.hpp, once for host and device.
#include <cstdint>
#include <limits>

#include "kernels/hd.hpp"

namespace floorsim::kernels::FLOORSIM_BACKEND::detail {

struct JobTimes {
  double compute_s, comm_s;
};

FLOORSIM_HD inline JobTimes job_times(double paths, double risk_scenarios, double instruments, uint32_t gpus,
                                      double revals_per_s, double comm_bytes, double serial, double bottleneck) {
  const double single_s = paths * risk_scenarios * instruments / revals_per_s;
  JobTimes t;
  t.compute_s = single_s * (serial + (1.0 - serial) / gpus);
  if (gpus <= 1 || comm_bytes <= 0.0) t.comm_s = 0.0;
  else t.comm_s = bottleneck > 0.0 ? comm_bytes / bottleneck : std::numeric_limits<double>::infinity();
  return t;
}

}  // namespace floorsim::kernels::FLOORSIM_BACKEND::detail
