#pragma once
// Runs a loaded scenario and renders the output contract: metrics.json, jobs.csv,
// timeline.csv, scenario.resolved.json (DESIGN.md "Output contract").
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/app/attempts.hpp"
#include "sim/app/progress.hpp"
#include "sim/app/scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"
#include "sim/core/output_guard.hpp"
#include "sim/core/scheduler_api.hpp"

namespace floorsim::app {

inline constexpr int kOutputVersion = 1;

struct RunOptions {
  bool check_invariants = false;  // forces engine.check_invariants
  bool render_csv = true;         // false: metrics only (sweeps, benchmarks)
  std::vector<std::string> force_changes;  // change ids applied as proposed, bypassing review (impact)
  bool keep_runs = false;         // fill RunResult::runs, node_lists and attempts (audit accounting)
  std::optional<WatchdogLimits> watchdog;  // tighter no-progress limits (the fuzzer's short runs)
  Progress* progress = nullptr;   // jobs finished and simulated time, per scheduling pass
  Warnings* warnings = nullptr;   // the model's warnings (null: printed once it is built)
  // jobs.csv written here as it is rendered (finish() is the caller's), instead of held whole
  // in RunResult::jobs_csv: a large trace's jobs.csv is as large as the trace.
  io::AtomicFileWriter* jobs_csv_out = nullptr;
};

struct RunResult {
  json metrics;
  std::string jobs_csv;
  bool jobs_csv_streamed = false;  // went to RunOptions::jobs_csv_out (jobs_csv is empty)
  std::string timeline_csv;
  EngineStats stats;
  json approval_log;         // array, one entry per policy change (empty without changes)
  std::string approval_csv;  // approval_log.csv ("" without changes)
  std::vector<JobRun> runs;              // by JobIdx, with keep_runs
  std::vector<std::string> node_lists;   // by JobIdx, Slurm hostlist of the last allocation, with keep_runs
  AttemptLog attempts;                   // by JobIdx, the attempts that ended in a requeue, with keep_runs
  SimTime end_s = 0;                     // simulated time when the run stopped
};

// The run stopped making progress (the engine's watchdog, NoProgressError): reported against the
// scenario's scheduler block, since the input drove the model into the loop.
class StalledRunError : public InputError {
 public:
  using InputError::InputError;
};

// The scenario's scheduler model, built as a run builds it: reads the files its block names
// (slurm.conf, sacctmgr dump, manifests, ...). Throws InputError on bad model input. What the
// model cannot apply goes to `warnings` (null: printed once the model is built).
std::unique_ptr<Scheduler> make_scheduler(const Scenario& sc, Warnings* warnings = nullptr);

// Throws StalledRunError when the engine's watchdog stops the run.
RunResult run_scenario(const Scenario& sc, const RunOptions& opts = {});

// Writes the four files (plus approval_log.csv/.json when the scenario has changes) into `out`
// atomically (a temporary directory renamed at the end; see output_guard.hpp).
void write_run_outputs(const Scenario& sc, const RunResult& r, const io::OutTarget& out);
// The same into a directory already staged (jobs.csv streamed there is left as written); commits it.
void write_run_outputs(const Scenario& sc, const RunResult& r, io::OutputDir& dir);

// What a run of `sc` reads (the scenario file and every file it names): an output may not be one.
std::vector<io::OutInput> run_inputs(const Scenario& sc);

// approval_log.json and approval_log.csv, when the scenario has changes (also used by rehearse).
void write_approval_log(const Scenario& sc, const RunResult& r, const io::OutputDir& dir);

// Deterministic JSON text (sorted keys, 2-space indent, trailing newline).
std::string dump(const json& j);

}  // namespace floorsim::app
