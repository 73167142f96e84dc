#pragma once
// Batch job runtime: B fabric scenarios x J pricing/VaR jobs -> runtime of every job in every
// scenario. The model (pure, documented so it can be checked by hand):
//   revaluations = paths * risk_scenarios * instruments
//   single_s     = revaluations / device_revaluations_per_s          (one GPU; from calibration)
//   compute_s    = single_s * (serial_fraction + (1 - serial_fraction) / gpus)        (Amdahl)
//   comm_s       = gpus > 1 ? comm_bytes_per_gpu / bottleneck_b : 0
//   runtime_s    = compute_s + comm_s
// bottleneck_b is scenario b's smallest max-min flow rate (ContentionResults::
// min_rate_bytes_per_s): a collective step proceeds at the pace of its slowest flow. A scenario
// whose bottleneck is 0 (disconnected) gives comm_s = +inf for multi-GPU jobs.
#include <cstdint>
#include <vector>

namespace floorsim::kernels {

struct JobBatch {  // J jobs, structure of arrays
  std::vector<double> paths;
  std::vector<double> risk_scenarios;
  std::vector<double> instruments;
  std::vector<uint32_t> gpus;
  std::vector<double> device_revaluations_per_s;  // per GPU
  std::vector<double> comm_bytes_per_gpu;
  std::vector<double> serial_fraction;            // Amdahl, in [0, 1]

  size_t jobs() const { return paths.size(); }
  // Throws std::invalid_argument naming the job and field when arrays disagree in size or a
  // value is out of range (gpus 0, throughput <= 0, serial fraction outside [0, 1], negative counts).
  void validate() const;
};

// runtime_s[b * J + j].
struct RuntimeResults {
  std::vector<double> runtime_s, compute_s, comm_s;
  size_t jobs = 0;
};

// Scalar reference of the formula above, one job at a time.
double job_runtime_reference(const JobBatch& jobs, size_t j, double bottleneck_bytes_per_s);

namespace omp {
RuntimeResults batch_job_runtime(const JobBatch& jobs, const std::vector<double>& bottleneck_bytes_per_s);
}
#if defined(FLOORSIM_HAVE_CUDA)
namespace cuda {
RuntimeResults batch_job_runtime(const JobBatch& jobs, const std::vector<double>& bottleneck_bytes_per_s);
}
#endif

}  // namespace floorsim::kernels
