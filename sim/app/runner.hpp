#pragma once
// Runs a loaded scenario and renders the output contract: metrics.json, jobs.csv,
// timeline.csv, scenario.resolved.json (DESIGN.md "Output contract").
#include <string>

#include <nlohmann/json.hpp>

#include "sim/app/scenario.hpp"

namespace floorsim::app {

inline constexpr int kOutputVersion = 1;

struct RunOptions {
  bool check_invariants = false;  // forces engine.check_invariants
  bool render_csv = true;         // false: metrics only (sweeps, benchmarks)
};

struct RunResult {
  json metrics;
  std::string jobs_csv;
  std::string timeline_csv;
  EngineStats stats;
};

RunResult run_scenario(const Scenario& sc, const RunOptions& opts = {});

// Writes the four files into `out_dir` atomically (a temporary directory renamed at the end).
void write_run_outputs(const Scenario& sc, const RunResult& r, const std::string& out_dir);

// Deterministic JSON text (sorted keys, 2-space indent, trailing newline).
std::string dump(const json& j);

}  // namespace floorsim::app
