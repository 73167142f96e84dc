// Batch contention kernel: one scenario per work item (kernels/maxmin_core.hpp does the work).
// Compiled as C++ by g++ with Thrust's OMP backend, and by nvcc for CUDA (FLOORSIM_CUDA=ON).
//
// Why one scenario per work item rather than a segmented (one flow / one link per item)
// formulation: progressive filling is a short sequence of dependent rounds over a few hundred
// links; a segmented version needs a device-wide reduction and a kernel launch (or grid sync)
// per round per event, which costs more than the round itself at these sizes (k=8: 768 links,
// 128 flows). Per-scenario items need no synchronisation at all, scale linearly with cores on
// OMP, and give the GPU B independent threads (B >= 1e5 fills an H200). Results then cannot
// depend on the thread count: each scenario is computed by one thread in a fixed order.
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <stdexcept>

#include "kernels/contention.hpp"
#include "kernels/hd.hpp"
#include "kernels/maxmin_core.hpp"

#include <chrono>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#else
#include <omp.h>
#endif

namespace floorsim::kernels::FLOORSIM_BACKEND {
namespace {

struct ContentionOp {
  // inputs
  const uint32_t* link_off;
  const uint32_t* flow_off;
  const double* cap;
  const uint32_t* tier;
  const uint32_t* flow_link_off;
  const uint32_t* flow_links;
  const double* size;
  const double* start;
  // scratch, one slot per concurrent work item
  uint32_t slot_links, slot_flows, chunk_begin;
  double* frozen;
  double* share;
  uint32_t* unfrozen_n;
  uint32_t* link_list;
  uint32_t* flow_list;
  double* remaining;
  double* rate_tmp;
  double* flow_cap;
  uint32_t* spath;
  uint8_t* scount;
  uint8_t* state;
  uint32_t slot_paths;
  // outputs
  double* rate;
  double* completion;
  double* slowest;
  uint32_t* slowest_flow;
  double* min_rate;
  double* tier_util;
  uint32_t tiers;

  FLOORSIM_HD void operator()(uint32_t b) const {
#if defined(__CUDACC__)
    const uint32_t s = b - chunk_begin;  // one slot per scenario of the chunk in flight
#else
    const uint32_t s = static_cast<uint32_t>(omp_get_thread_num());  // one slot per thread: stays in cache
#endif
    const uint32_t l0 = link_off[b], f0 = flow_off[b];
    detail::ScenarioView v;
    v.links = link_off[b + 1] - l0;
    v.flows = flow_off[b + 1] - f0;
    v.cap = cap + l0;
    v.tier = tier + l0;
    v.off = flow_link_off + f0;
    v.path = flow_links;
    v.size = size + f0;
    v.start = start + f0;
    const size_t sl = size_t(s) * slot_links, sf = size_t(s) * slot_flows;
    v.frozen = frozen + sl;
    v.share = share + sl;
    v.unfrozen_n = unfrozen_n + sl;
    v.link_list = link_list + sl;
    v.flow_list = flow_list + sf;
    v.remaining = remaining + sf;
    v.state = state + sf;
    v.flow_cap = flow_cap + sf;
    v.spath = spath + size_t(s) * slot_paths;
    v.scount = scount + sf;
    for (uint32_t l = 0; l < v.links; ++l) v.unfrozen_n[l] = 0;  // maxmin_solve's precondition

    // Static problem: every flow present.
    for (uint32_t f = 0; f < v.flows; ++f) v.state[f] = 1;
    double* r = rate + f0;
    detail::maxmin_solve(v, 1, r);
    double mr = kInf;
    for (uint32_t f = 0; f < v.flows; ++f) mr = r[f] < mr ? r[f] : mr;
    min_rate[b] = mr;
    // Tier utilisation: rate carried per tier (flows in index order, links in path order) over
    // the tier's capacity.
    double* util = tier_util + size_t(b) * tiers;
    for (uint32_t t = 0; t < tiers; ++t) util[t] = 0.0;
    for (uint32_t f = 0; f < v.flows; ++f) {
      if (!(r[f] < kInf)) continue;
      for (uint32_t k = v.off[f]; k < v.off[f + 1]; ++k) util[v.tier[v.path[k]]] += r[f];
    }
    for (uint32_t t = 0; t < tiers; ++t) {
      double capacity = 0.0;
      for (uint32_t l = 0; l < v.links; ++l)
        if (v.tier[l] == t) capacity += v.cap[l];
      util[t] = capacity > 0.0 ? util[t] / capacity : 0.0;
    }

    double* c = completion + f0;
    detail::completion_times(v, r, rate_tmp + sf, c);
    double worst = -kInf;
    uint32_t wi = 0;
    for (uint32_t f = 0; f < v.flows; ++f)
      if (c[f] > worst) { worst = c[f]; wi = f; }
    slowest[b] = v.flows ? worst : 0.0;
    slowest_flow[b] = wi;
  }
};

template <class T>
T* raw(thrust::device_vector<T>& v) { return thrust::raw_pointer_cast(v.data()); }

}  // namespace

ContentionResults batch_contention(const ContentionBatch& in, ContentionTiming* timing) {
  using Clock = std::chrono::steady_clock;
  auto t_mark = Clock::now();
  auto lap = [&t_mark]() {
    const auto now = Clock::now();
    const double s = std::chrono::duration<double>(now - t_mark).count();
    t_mark = now;
    return s;
  };
  ContentionTiming tm;
  const size_t B = in.scenarios();
  ContentionResults out;
  out.tiers = in.tiers;
  out.flow_rate_bytes_per_s.resize(in.total_flows());
  out.flow_completion_s.resize(in.total_flows());
  out.slowest_completion_s.resize(B);
  out.slowest_flow.resize(B);
  out.min_rate_bytes_per_s.resize(B);
  out.tier_utilisation.resize(B * in.tiers);
  if (B == 0) return out;
  uint32_t max_links = 1, max_flows = 1, max_paths = 1;
  for (size_t b = 0; b < B; ++b) {
    max_links = std::max(max_links, in.link_offsets[b + 1] - in.link_offsets[b]);
    max_flows = std::max(max_flows, in.flow_offsets[b + 1] - in.flow_offsets[b]);
    max_paths = std::max(max_paths, in.flow_link_offsets[in.flow_offsets[b + 1]] - in.flow_link_offsets[in.flow_offsets[b]]);
  }

#if defined(__CUDACC__)
  // Inputs and outputs live on the device; scratch for one chunk of scenarios at a time.
  thrust::device_vector<uint32_t> d_link_off(in.link_offsets), d_flow_off(in.flow_offsets),
      d_tier(in.link_tier), d_flow_link_off(in.flow_link_offsets), d_flow_links(in.flow_links);
  thrust::device_vector<double> d_cap(in.link_capacity_bytes_per_s), d_size(in.flow_size_bytes),
      d_start(in.flow_start_s);
  thrust::device_vector<double> d_rate(in.total_flows()), d_completion(in.total_flows()),
      d_slowest(B), d_min_rate(B), d_tier_util(B * in.tiers);
  thrust::device_vector<uint32_t> d_slowest_flow(B);
  const size_t slots = std::min<size_t>(B, size_t(1) << 18);
  cudaDeviceSynchronize();
  tm.upload_s = lap();
#else
  const size_t slots = static_cast<size_t>(omp_get_max_threads());
#endif
  thrust::device_vector<double> frozen(slots * max_links), share(slots * max_links),
      remaining(slots * max_flows), rate_tmp(slots * max_flows), flow_cap(slots * max_flows);
  thrust::device_vector<uint32_t> unfrozen_n(slots * max_links), link_list(slots * max_links),
      flow_list(slots * max_flows), spath(slots * max_paths);
  thrust::device_vector<uint8_t> state(slots * max_flows), scount(slots * max_flows);

  ContentionOp op;
#if defined(__CUDACC__)
  op.link_off = raw(d_link_off); op.flow_off = raw(d_flow_off); op.cap = raw(d_cap);
  op.tier = raw(d_tier); op.flow_link_off = raw(d_flow_link_off); op.flow_links = raw(d_flow_links);
  op.size = raw(d_size); op.start = raw(d_start);
  op.rate = raw(d_rate); op.completion = raw(d_completion); op.slowest = raw(d_slowest);
  op.slowest_flow = raw(d_slowest_flow); op.min_rate = raw(d_min_rate); op.tier_util = raw(d_tier_util);
#else
  // OMP: "device" memory is host memory, so the caller's arrays are used in place.
  op.link_off = in.link_offsets.data(); op.flow_off = in.flow_offsets.data();
  op.cap = in.link_capacity_bytes_per_s.data(); op.tier = in.link_tier.data();
  op.flow_link_off = in.flow_link_offsets.data(); op.flow_links = in.flow_links.data();
  op.size = in.flow_size_bytes.data(); op.start = in.flow_start_s.data();
  op.rate = out.flow_rate_bytes_per_s.data(); op.completion = out.flow_completion_s.data();
  op.slowest = out.slowest_completion_s.data(); op.slowest_flow = out.slowest_flow.data();
  op.min_rate = out.min_rate_bytes_per_s.data(); op.tier_util = out.tier_utilisation.data();
#endif
  op.slot_links = max_links; op.slot_flows = max_flows;
  op.frozen = raw(frozen); op.share = raw(share); op.unfrozen_n = raw(unfrozen_n);
  op.link_list = raw(link_list); op.flow_list = raw(flow_list); op.remaining = raw(remaining);
  op.rate_tmp = raw(rate_tmp); op.flow_cap = raw(flow_cap); op.state = raw(state);
  op.spath = raw(spath); op.scount = raw(scount); op.slot_paths = max_paths;
  op.tiers = in.tiers;

#if defined(__CUDACC__)
  for (size_t begin = 0; begin < B; begin += slots) {  // one chunk of scenarios per launch
    const size_t end = std::min(B, begin + slots);
    op.chunk_begin = static_cast<uint32_t>(begin);
    thrust::for_each(thrust::device, thrust::counting_iterator<uint32_t>(uint32_t(begin)),
                     thrust::counting_iterator<uint32_t>(uint32_t(end)), op);
  }
#else
  // All scenarios in one parallel loop; slots are per thread, so no chunking needed.
  op.chunk_begin = 0;
  thrust::for_each(thrust::device, thrust::counting_iterator<uint32_t>(0),
                   thrust::counting_iterator<uint32_t>(uint32_t(B)), op);
#endif

#if defined(__CUDACC__)
  cudaDeviceSynchronize();
  tm.kernel_s = lap();
  thrust::copy(d_rate.begin(), d_rate.end(), out.flow_rate_bytes_per_s.begin());
  thrust::copy(d_completion.begin(), d_completion.end(), out.flow_completion_s.begin());
  thrust::copy(d_slowest.begin(), d_slowest.end(), out.slowest_completion_s.begin());
  thrust::copy(d_slowest_flow.begin(), d_slowest_flow.end(), out.slowest_flow.begin());
  thrust::copy(d_min_rate.begin(), d_min_rate.end(), out.min_rate_bytes_per_s.begin());
  thrust::copy(d_tier_util.begin(), d_tier_util.end(), out.tier_utilisation.begin());
  tm.download_s = lap();
#else
  tm.kernel_s = lap();
#endif
  if (timing) *timing = tm;
  return out;
}

}  // namespace floorsim::kernels::FLOORSIM_BACKEND
