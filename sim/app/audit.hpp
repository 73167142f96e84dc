#pragma once
// `floorsim audit RUN_DIR --out PACK_DIR` (issue 9): the audit pack of a run, in three parts:
//   policy.json / policy.md  which QOS, partition, reservation, priority weight, association and
//                            ClusterQueue fields are controlled, their values, and which role may
//                            change them (and the sign-off rule, the loopholes in force);
//   approval_log.csv / .json the run's approval log (header only when it had no changes);
//   sacct.txt                per-job accounting in `sacct --parsable2` form (or --parsable, or
//                            another --delimiter) with Slurm's column names: one allocation row
//                            per attempt, as `sacct --duplicates` lists a requeued job, and a
//                            `<id>.batch` step row per attempt that started; records older than
//                            the retention period (slurmdbd.conf PurgeJobAfter) are purged.
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
// How the accounting file is written: sacct's --parsable2 (the default), --parsable (a
// delimiter after the last field too) or --delimiter; and slurmdbd's PurgeJobAfter.
struct SacctOptions {
  std::string delimiter = "|";
  bool trailing_delimiter = false;          // sacct --parsable
  double purge_after_s = kNever;            // records of jobs that ended longer ago are purged
  std::string purge_after_text = "none";    // as given, for the pack's policy file
};
// Renders the accounting file. `r` must come from run_scenario with keep_runs. `purged` (if
// given) receives the number of allocation records the retention period removed.
std::string sacct_text(const Scenario& sc, const RunResult& r, const SacctOptions& o, size_t* purged);
// sacct_text with the defaults: --parsable2, nothing purged.
std::string sacct_parsable2(const Scenario& sc, const RunResult& r);
// PurgeJobAfter's syntax (slurmdbd.conf(5)): a whole number of months, or with the suffix
// "hours", "days" or "months"; "none" keeps every record. A month is 30 days here.
// Throws InputError naming `what` otherwise.
double parse_purge_after(const std::string& text, const std::string& what);
// "2026-01-01T01:02:03" for simulated second t (rounded to whole seconds, as sacct shows).
std::string sacct_time(double t_s);
// "[D-]HH:MM:SS".
std::string sacct_duration(double s);

nlohmann::json policy_json(const Scenario& sc);
std::string policy_md(const nlohmann::json& policy);

// Builds and writes the pack atomically. Throws InputError when the re-run disagrees with
// RUN_DIR/jobs.csv.
// `warnings`: the re-run model's (null: printed once it is built).
void write_audit_pack(const Scenario& sc, const std::string& run_dir, const io::OutTarget& pack, const SacctOptions& o = {},
                      Warnings* warnings = nullptr);

}  // namespace floorsim::app
