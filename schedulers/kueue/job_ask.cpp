#include "schedulers/kueue/job_ask.hpp"

#include <cmath>

#include "schedulers/kueue/kueue_scheduler.hpp"

namespace floorsim::kueue {

JobNodeAsk::JobNodeAsk(const cfg::json& p) : charge_cpu_(p.at("charge_cpu").get<bool>()) {
  // Units and rounding as KueueScheduler::job_requests (resource_kind's scales).
  auto read = [&](const char* key, int64_t& cpu_milli, int64_t& mem_mib) {
    for (const auto& [res, q] : p.at(key).items()) {
      if (res == "cpu") cpu_milli += static_cast<int64_t>(std::llround(request_quantity(q) * 1000));
      if (res == "memory") mem_mib += static_cast<int64_t>(std::llround(request_quantity(q) * (1.0 / 1048576.0)));
    }
  };
  read("requests_per_job", cpu_per_job_milli_, mem_per_job_mib_);
  read("requests_per_gpu", cpu_per_gpu_milli_, mem_per_gpu_mib_);
}

placement::NodeAsk JobNodeAsk::of(const JobSpec& js) const {
  const int64_t own_cpu = charge_cpu_ || js.gpus <= 0 ? static_cast<int64_t>(js.cpus) * 1000 : 0;
  return placement::NodeAsk{cpu_per_job_milli_ + cpu_per_gpu_milli_ * js.gpus + own_cpu,
                            mem_per_job_mib_ + mem_per_gpu_mib_ * js.gpus + placement::job_mem_mib(js)};
}

}  // namespace floorsim::kueue
