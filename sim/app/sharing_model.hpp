#pragma once
// GPU sharing between latency-critical requests (intraday re-pricing) and batch jobs: a pure
// model. Requests are not scheduler jobs; they are served, first come first served, on the GPUs
// of a node pool whose batch occupancy over time comes from a finished run, plus GPUs kept for
// requests only. Each request's latency = queueing + interference + service, where the
// interference depends on how the pool shares a GPU (NVIDIA's time-slicing, MPS, MIG, or
// priority-aware sharing in the manner of Orion, Strati et al., EuroSys 2024).
// docs/sharing.md gives each factor's default and says which are measured and which assumed.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/types.hpp"
#include "traces/synthetic.hpp"

namespace floorsim::app::sharing {

enum class Mode : uint8_t { Exclusive, TimeSlicing, Mps, Mig, Priority };
std::optional<Mode> parse_mode(std::string_view s);
const char* to_string(Mode m);

// A distribution of durations: the batch's kernel lengths, or the requests' service times.
struct Dist {
  enum class Kind : uint8_t { Deterministic, Exponential, Uniform };
  Kind kind = Kind::Deterministic;
  double mean_s = 0;
  double jitter = 0;  // Uniform: mean_s x [1 - jitter, 1 + jitter]

  double sample(traces::Rng& rng) const;
  // The remaining life of the interval in progress at a random instant of a renewal process
  // (length-biased interval, then a uniform point in it): mean E[S^2] / (2 E[S]).
  double residual(traces::Rng& rng) const;
  double second_moment() const;
  double mean_residual() const { return mean_s > 0 ? second_moment() / (2 * mean_s) : 0; }
};
std::optional<Dist::Kind> parse_dist(std::string_view s);

// How the pool's GPUs are shared, with every factor an input (defaults in sharing.cpp).
struct ModeParams {
  Mode mode = Mode::Exclusive;
  Dist kernel;                        // time_slicing, priority: the batch kernels in flight
  double context_switch_s = 0;        // time_slicing: one switch between contexts
  double slice_s = 0;                 // time_slicing: a context's slice
  double mps_request_slowdown = 1;    // mps: request service x this while batch runs beside it
  double mps_batch_slowdown = 1;      // mps: batch x this while a request runs beside it
  double mig_sm_fraction = 1;         // mig: SM share of the request instance (profile g / 7)
  int32_t mig_instances_per_gpu = 1;  // mig: request instances carved from each pool GPU
  double priority_blocking_fraction = 1;  // priority: share of an in-flight kernel's residual waited
  double priority_request_slowdown = 1;   // priority: service x this beside batch work
};

struct Interval {
  SimTime from_s = 0, to_s = 0;
};
// One GPU's batch work over time: sorted, disjoint intervals.
using BusyTimeline = std::vector<Interval>;
bool busy_at(const BusyTimeline& b, SimTime t);

struct Request {
  SimTime arrival_s = 0;
  double work_s = 0;  // seconds on a whole GPU with nothing beside it
};

struct Served {
  SimTime arrival_s = 0;
  double queue_s = 0;         // waiting for a GPU (or instance) free of other requests
  double interference_s = 0;  // added by batch work: kernel residual, switches, slowdown
  double service_s = 0;       // the request's own work on the GPU or instance it got
  uint32_t server = 0;        // dedicated GPUs first, then the pool's GPUs (or instances)
  double latency_s() const { return queue_s + interference_s + service_s; }
};

struct Pool {
  ModeParams params;
  std::vector<BusyTimeline> gpus;  // the pool's GPUs that may hold batch work
  int32_t dedicated_gpus = 0;      // GPUs that serve requests only (never batch)
};

// Serves `requests` (sorted by arrival) in arrival order, each on the server where it would
// finish first (ties: the lowest index). Deterministic for a given seed.
std::vector<Served> serve(std::span<const Request> requests, const Pool& pool, uint64_t seed);

// Wall seconds per second of batch work on a pool GPU where requests arrive at
// `rate_per_gpu_s` each needing `mean_work_s`: the first-order cost of sharing to the batch.
double batch_stretch(const ModeParams& p, double rate_per_gpu_s, double mean_work_s);

struct LatencyStats {
  size_t n = 0;
  double mean_s = 0, p50_s = 0, p99_s = 0, p999_s = 0, max_s = 0;
  double mean_queue_s = 0, mean_interference_s = 0, mean_service_s = 0;
  double within_target = 1;  // share of requests with latency <= target
};
// Requests that arrived in [from_s, to_s); percentiles by nearest rank.
LatencyStats latency_stats(std::span<const Served> s, SimTime from_s, SimTime to_s, double target_s);

// The window of `length_s` holding the most batch GPU-seconds over `gpus` (earliest on ties;
// starts are taken at interval starts). Returns {0, length_s} when there is no batch work.
Interval peak_window(std::span<const BusyTimeline> gpus, double length_s);

}  // namespace floorsim::app::sharing
