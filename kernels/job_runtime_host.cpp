#include <stdexcept>
#include <string>

#include "kernels/hd.hpp"
#include "kernels/job_runtime.hpp"
#include "kernels/job_runtime_core.hpp"

namespace floorsim::kernels {

void JobBatch::validate() const {
  const size_t J = jobs();
  auto size_ok = [&](size_t n, const char* name) {
    if (n != J) throw std::invalid_argument(std::string("job batch: ") + name + " has " + std::to_string(n) +
                                            " entries; expected " + std::to_string(J) + " (one per job)");
  };
  size_ok(risk_scenarios.size(), "risk_scenarios");
  size_ok(instruments.size(), "instruments");
  size_ok(gpus.size(), "gpus");
  size_ok(device_revaluations_per_s.size(), "device_revaluations_per_s");
  size_ok(comm_bytes_per_gpu.size(), "comm_bytes_per_gpu");
  size_ok(serial_fraction.size(), "serial_fraction");
  for (size_t j = 0; j < J; ++j) {
    auto bad = [&](const char* what) {
      throw std::invalid_argument("job batch: job " + std::to_string(j) + ": " + what);
    };
    if (!(paths[j] >= 0) || !(risk_scenarios[j] >= 0) || !(instruments[j] >= 0))
      bad("paths, risk_scenarios and instruments must be >= 0");
    if (gpus[j] == 0) bad("gpus must be >= 1");
    if (!(device_revaluations_per_s[j] > 0)) bad("device_revaluations_per_s must be > 0");
    if (!(comm_bytes_per_gpu[j] >= 0)) bad("comm_bytes_per_gpu must be >= 0");
    if (!(serial_fraction[j] >= 0 && serial_fraction[j] <= 1)) bad("serial_fraction must be in [0, 1]");
  }
}

double job_runtime_reference(const JobBatch& b, size_t j, double bottleneck) {
  // Written out again (not via job_times) so the test compares two spellings of the formula.
  const double revals = b.paths[j] * b.risk_scenarios[j] * b.instruments[j];
  const double single_s = revals / b.device_revaluations_per_s[j];
  const double compute_s = single_s * b.serial_fraction[j] + single_s * (1 - b.serial_fraction[j]) / b.gpus[j];
  double comm_s = 0;
  if (b.gpus[j] > 1 && b.comm_bytes_per_gpu[j] > 0)
    comm_s = bottleneck > 0 ? b.comm_bytes_per_gpu[j] / bottleneck : std::numeric_limits<double>::infinity();
  return compute_s + comm_s;
}

}  // namespace floorsim::kernels
