#include "schedulers/kai/job_ask.hpp"

#include <cmath>

#include "schedulers/kueue/kueue_scheduler.hpp"

namespace floorsim::kai {

JobAsk::JobAsk(const cfg::json& p) : sharing_(p.at("gpu_sharing").get<bool>()) {
  for (auto [key, out] : {std::pair{"requests_per_job", per_job_}, std::pair{"requests_per_gpu", per_gpu_}})
    for (const auto& [res, q] : p.at(key).items()) out[res == "cpu" ? 0 : 1] = kueue::request_quantity(q);
}

Milli JobAsk::request(int r, const JobSpec& js) const {
  constexpr double kScale[2] = {1000.0, 1e-6};  // cores -> millicores, bytes -> MB
  // A job's own fields: a CPU-only job's cpus (millicores); its memory, MiB -> MB rounded up.
  const Milli own = r == 0 ? (js.gpus <= 0 ? static_cast<Milli>(js.cpus) * 1000 : 0)
                           : (placement::job_mem_mib(js) * 1048576 + 999999) / 1000000;
  return static_cast<Milli>(std::llround((per_job_[r] + per_gpu_[r] * js.gpus) * kScale[r])) + own;
}

int64_t JobAsk::node_mem_mib(const JobSpec& js) const {
  // Bytes -> MiB rounded up: an ask of b bytes fits c MiB exactly when ceil(b / 2^20) <= c. Not
  // through the quota's MB, whose rounding would push a job asking a node's whole memory over it.
  const double block_bytes = per_job_[1] + per_gpu_[1] * js.gpus;
  return static_cast<int64_t>(std::ceil(block_bytes / 1048576.0)) + placement::job_mem_mib(js);
}

placement::NodeAsk JobAsk::node_ask(const JobSpec& js) const {
  if (sharing_ && js.gpu_milli > 0) return {};
  return placement::NodeAsk{request(0, js), node_mem_mib(js)};
}

}  // namespace floorsim::kai
