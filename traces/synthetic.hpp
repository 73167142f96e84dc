#pragma once
// Synthetic quant workload classes (issue 7): deadline-bound batches (VaR/stress with core
// scenarios first and the stress grid after, EOD pricing), an interactive request stream with a
// non-stationary rate (quiet windows and pile-ups), long preemptible gang jobs with checkpoints
// (training) and bursts of preemptible jobs (one-off backtests).
//
// Determinism: one std::mt19937_64 per class, seeded by splitmix64(seed, class index); every
// random figure comes from our own transforms of its raw 64-bit output (uniform = top 53 bits,
// exponential = -log(1 - u)), never from libstdc++ distributions, whose algorithms are
// implementation-defined. A class draws its numbers in job order, so a larger load multiplier
// keeps the earlier draws: batches grow by appending shards and a stream's arrivals are the same
// unit-rate sequence mapped through a steeper cumulative intensity (a time change), which keeps
// the growth search (`rehearse --growth`) monotone in practice.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sim/core/types.hpp"

namespace floorsim::traces {

enum class GenKind : uint8_t {
  DeadlineBatch,  // core_jobs shards at start_s, then `jobs` grid shards at start_s + grid_after_s
  Stream,         // Poisson arrivals over [start_s, end_s) at rate_per_s x profile multiplier
  Gang,           // `jobs` multi-node jobs submitted uniformly over [start_s, start_s + spread_s]
  Burst,          // `jobs` jobs submitted uniformly over [start_s, start_s + spread_s]
};

// A piece of a stream's rate profile: between from_s and to_s the rate is multiplied.
// Where pieces overlap, the first listed wins; outside every piece the multiplier is 1.
struct RatePiece {
  SimTime from_s = 0, to_s = 0;
  double multiplier = 1;
};

struct ClassGen {
  std::string name;  // class name (also the default user and account)
  GenKind kind = GenKind::Burst;
  std::string user, account, qos, partition;
  std::string core_qos;        // DeadlineBatch: QOS of the core shards (empty = qos, as the grid)
  int32_t priority = 0;
  bool preemptible = false;
  bool requeueable = true;
  SimTime checkpoint_interval_s = 0;
  SimTime start_s = 0;
  SimTime end_s = 0;           // Stream only: end of the arrival window
  SimTime spread_s = 0;        // Gang/Burst: submissions spread uniformly over this
  SimTime grid_after_s = 0;    // DeadlineBatch: grid shards are submitted this long after the core
  SimTime deadline_s = kNever; // absolute deadline given to every job of the class
  int32_t jobs = 0;            // shards / jobs (scaled by the load multiplier)
  int32_t core_jobs = 0;       // DeadlineBatch: core scenario shards (scaled too)
  int32_t gpus = 1;
  int32_t nodes = 0;
  SimTime runtime_s = 60;      // mean runtime
  double runtime_jitter = 0;   // runtime uniform in runtime_s x [1 - j, 1 + j]
  double time_limit_factor = 1.5;  // requested limit = runtime x factor (never below the runtime)
  double rate_per_s = 0;       // Stream: base arrival rate
  std::vector<RatePiece> profile;
};

struct SyntheticSpec {
  std::vector<ClassGen> classes;
  double load_multiplier = 1;  // scales batch/gang/burst job counts and stream rates
  uint64_t seed = 1;
};

struct GeneratedClass {
  std::string name;
  size_t jobs = 0;
  double gpu_s = 0;            // total work (GPU-seconds, uninterrupted)
  std::vector<int64_t> grid_ids;  // DeadlineBatch: ids of the grid shards (the reduced-set fallback drops them)
};

// Appends the generated jobs to `w` (ids from first_id upward, in class order then job order)
// and returns one summary per class. Job order in `w` is not sorted here.
std::vector<GeneratedClass> generate(const SyntheticSpec& spec, int64_t first_id, Workload& w);

// A replayed arrival rate (a stream's "rate_file"): CSV with a header naming time_s and
// rate_per_s; each row's rate holds from its time until the next row's (the last row until the
// stream's end). Rows must have strictly increasing times and finite rates >= 0. Returns the
// profile that makes a stream with base rate 1/s follow it: one piece per row, then a catch-all
// zero piece (first match wins), so no arrival falls outside the recorded span. Throws
// InputError(path, line, ...) on bad input.
std::vector<RatePiece> read_rate_profile(const std::string& path, std::string_view text);

// Scaled job count: round(n x m) with halves rounded up, never negative.
int32_t scaled_count(int32_t n, double m);

// How many jobs generate() makes for class `c` at load multiplier `m`, without making them:
// exact for batches, gangs and bursts, the expected count (the integrated intensity) for a
// stream. Lets a loader refuse a workload too large to hold before allocating it.
double expected_jobs(const ClassGen& c, double m);

// The random source above, exposed for tests.
class Rng {
 public:
  Rng(uint64_t seed, uint64_t stream);
  double uniform();      // [0, 1) from the top 53 bits of one mt19937_64 output
  double exponential();  // mean 1: -log(1 - u)

 private:
  std::mt19937_64 gen_;
};

}  // namespace floorsim::traces
