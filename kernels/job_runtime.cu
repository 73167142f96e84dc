// Batch job runtime kernel: one (scenario, job) pair per work item; see kernels/job_runtime.hpp.
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "kernels/hd.hpp"
#include "kernels/job_runtime.hpp"
#include "kernels/job_runtime_core.hpp"

namespace floorsim::kernels::FLOORSIM_BACKEND {
namespace {

struct RuntimeOp {
  const double *paths, *risk, *instr, *revals, *comm, *serial, *bottleneck;
  const uint32_t* gpus;
  double *runtime, *compute, *comm_out;
  size_t J;
  FLOORSIM_HD void operator()(size_t i) const {
    const size_t b = i / J, j = i % J;
    const detail::JobTimes t =
        detail::job_times(paths[j], risk[j], instr[j], gpus[j], revals[j], comm[j], serial[j], bottleneck[b]);
    compute[i] = t.compute_s;
    comm_out[i] = t.comm_s;
    runtime[i] = t.compute_s + t.comm_s;
  }
};

template <class T>
const T* cptr(const thrust::device_vector<T>& v) { return thrust::raw_pointer_cast(v.data()); }
template <class T>
T* ptr(thrust::device_vector<T>& v) { return thrust::raw_pointer_cast(v.data()); }

}  // namespace

RuntimeResults batch_job_runtime(const JobBatch& jobs, const std::vector<double>& bottleneck) {
  jobs.validate();
  const size_t J = jobs.jobs(), N = J * bottleneck.size();
  RuntimeResults out;
  out.jobs = J;
  out.runtime_s.resize(N);
  out.compute_s.resize(N);
  out.comm_s.resize(N);
  if (N == 0) return out;
  // On OMP these "device" vectors are host copies: cheap next to the work and keeps one code path.
  thrust::device_vector<double> paths(jobs.paths), risk(jobs.risk_scenarios), instr(jobs.instruments),
      revals(jobs.device_revaluations_per_s), comm(jobs.comm_bytes_per_gpu), serial(jobs.serial_fraction),
      bn(bottleneck), runtime(N), compute(N), comm_out(N);
  thrust::device_vector<uint32_t> gpus(jobs.gpus);
  RuntimeOp op{cptr(paths), cptr(risk), cptr(instr), cptr(revals), cptr(comm), cptr(serial), cptr(bn),
               cptr(gpus), ptr(runtime), ptr(compute), ptr(comm_out), J};
  thrust::for_each(thrust::device, thrust::counting_iterator<size_t>(0), thrust::counting_iterator<size_t>(N), op);
  thrust::copy(runtime.begin(), runtime.end(), out.runtime_s.begin());
  thrust::copy(compute.begin(), compute.end(), out.compute_s.begin());
  thrust::copy(comm_out.begin(), comm_out.end(), out.comm_s.begin());
  return out;
}

}  // namespace floorsim::kernels::FLOORSIM_BACKEND
