#pragma once
// `floorsim audit RUN_DIR --out PACK_DIR` (issue 9): the audit pack of a run, in three parts:
//   policy.json / policy.md  which QOS, partition, reservation, priority weight, association and
//                            ClusterQueue fields are controlled, their values, and which role may
//                            change them (and the sign-off rule, the loopholes in force);
//   approval_log.csv / .json the run's approval log (header only when it had no changes);
//   sacct.txt                per-job accounting in `sacct --parsable2` form with Slurm's column
//                            names, one allocation row per job and a `<id>.batch` step row per
//                            job that started.
// The accounting needs what jobs.csv does not hold (time limits, CPUs), so the pack re-runs the
// run's scenario (deterministic) and checks that the re-run's jobs.csv equals the run's.
#include <string>

#include <nlohmann/json.hpp>

#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"

namespace floorsim::app {

// Wall-clock origin of simulated time in the accounting file: t = 0 is 2026-01-01T00:00:00
// (sacct prints local time without a zone; the sacct reader uses only differences).
inline constexpr const char* kAuditEpoch = "2026-01-01T00:00:00";

// The sacct columns written, in order (names as `sacct --format` spells them).
const std::vector<std::string>& sacct_columns();
// Renders the accounting file. `r` must come from run_scenario with keep_runs.
std::string sacct_parsable2(const Scenario& sc, const RunResult& r);
// "2026-01-01T01:02:03" for simulated second t (rounded to whole seconds, as sacct shows).
std::string sacct_time(double t_s);
// "[D-]HH:MM:SS".
std::string sacct_duration(double s);

nlohmann::json policy_json(const Scenario& sc);
std::string policy_md(const nlohmann::json& policy);

// Builds and writes the pack atomically. Throws InputError when the re-run disagrees with
// RUN_DIR/jobs.csv.
void write_audit_pack(const Scenario& sc, const std::string& run_dir, const io::OutTarget& pack);

}  // namespace floorsim::app
