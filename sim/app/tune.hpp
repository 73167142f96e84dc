#pragma once
// `floorsim tune`: a seeded search over Slurm multifactor priority weights and backfill
// parameters of a scenario's scheduler block, for one objective, judged on a held-out part of
// the workload (a later time window or another scenario) so the tuned values are not only fitted
// to the jobs they were tuned on.
//
// The search (deterministic for a seed, whatever the thread count):
//  1. the baseline: the scenario's own values (the multifactor baseline);
//  2. `samples` points drawn uniformly (integers) in each parameter's [min, max], seeded;
//  3. coordinate refinement from the best so far: every parameter moved by +-step (a quarter of
//     its range, halved after each of `rounds` levels); the best improving move is taken and the
//     moves tried again until none improves, then the step is halved.
// Points are compared by (jobs never started, objective): a setting that leaves jobs waiting at
// the horizon cannot win on their missing waits. Ties keep the earlier point (the baseline first).
// Each batch of points runs on a pool of threads; results are kept by point, so the search and
// its output do not depend on the thread count.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/types.hpp"
#include "sim/core/warnings.hpp"

namespace floorsim::app::tune {

using json = nlohmann::json;

inline constexpr const char* kFormat = "floorsim-tune/1";  // tune.json "format"

enum class Metric { MeanWait, Makespan, P99Wait, FloorAttainment };

struct Objective {
  Metric metric = Metric::MeanWait;
  std::string klass;  // "" = all jobs (floor attainment: the lowest over classes with a floor)
  bool maximize() const { return metric == Metric::FloorAttainment; }
};

struct Param {
  std::string name;  // a key of the slurm scheduler block
  int64_t min = 0, max = 0;
};

// Which jobs a run keeps: submitted in [from_s, to_s).
struct Window {
  double from_s = 0, to_s = 0;
  bool all() const { return from_s == 0 && to_s == 0; }
};

struct TuneSpec {
  std::string file, name;
  json resolved;            // the tune file with every default written in
  json base_doc;            // the scenario the search runs
  std::string base_file, base_dir;
  json holdout_doc;         // the held-out scenario (the base itself for a time split)
  std::string holdout_file, holdout_dir;
  Window tune_window, holdout_window;  // both all() for a held-out scenario
  Objective objective;
  std::vector<Param> params;
  std::vector<int64_t> baseline;  // the base scenario's own values
  uint64_t seed = 1;
  size_t samples = 16, rounds = 2;
  Warnings warnings;  // what the scenarios raise when loaded, each once (the caller prints them)
};

// Parses and checks the tune file: parameters must be tunable keys that the scenario's
// slurm.conf does not set (slurm.conf keys win, so tuning them would do nothing). Throws
// InputError naming the tune file and JSON pointer.
TuneSpec load_tune_file(const std::string& path);
TuneSpec load_tune(const json& doc, const std::string& file, const std::string& dir);

// One evaluated point: how many jobs never started and the objective (NaN when undefined).
struct Score {
  int64_t unstarted = 0;
  double value = 0;
};
// The objective's value in a run's metrics.json (NaN when the metric is absent or null).
double objective_value(const Objective& o, const json& metrics);
// True when `a` is strictly better than `b`: fewer jobs unstarted, then a better objective
// (a NaN objective is worst).
bool better(const Objective& o, const Score& a, const Score& b);
// The `samples` seeded random points (step 2 of the search).
std::vector<std::vector<int64_t>> random_points(const std::vector<Param>& ps, size_t samples, uint64_t seed);
// Removes the jobs submitted outside the window; returns how many are kept.
size_t keep_window(Workload& w, const Window& win);

struct Options {
  unsigned threads = 1;
};

struct Result {
  json doc;         // tune.json
  std::string csv;  // evaluations.csv
  std::string table;  // the summary printed on stdout
  std::vector<std::string> warnings;  // the runs' warnings beyond TuneSpec::warnings, each once
};

// Runs the search and the held-out comparison.
Result run_tune(const TuneSpec& s, const Options& o);

}  // namespace floorsim::app::tune
