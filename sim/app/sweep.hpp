#pragma once
// `floorsim sweep` / `floorsim merge` (issue 8): many scenarios from one base and a set of axes.
//
// A sweep file names a base (a scenario file relative to the sweep file, the built-in quant
// night "rehearse", or for kind "fabric" a fabric scenario file) and axes, each addressing one
// field of the base by JSON pointer. The axes expand as a grid (cartesian product, first axis
// slowest), a list (axes zipped: all have the same number of values) or a Latin hypercube
// (`samples` points, seeded, deterministic). Point i is scenario i ("index").
//
// Kind "scenario": each point is loaded through the normal scenario parser (load_scenario, or
// load_rehearsal when the base is a rehearsal, which also judges the night) and run on a pool
// of threads. Kind "fabric": every point is a fabric variant; all variants x traffic profiles x
// (healthy + degraded cases) are routed into one kernels::ContentionBatch and solved by ONE
// batch_contention call (fabric_batch_lines); fabric_reference_lines is the same thing one
// variant at a time through fabric::run_traffic, and the two agree (test_app).
//
// Output directory: sweep.json (the resolved sweep, the number of points and the shard),
// results.jsonl (one line per point: {"index","axes","metrics"[, "verdict"][, "error"]}),
// results.csv (index, axes, then flattened metrics). Lines are appended and flushed as points
// finish, so a killed sweep resumes (--resume) where it stopped; at the end both files are
// rewritten sorted by index, so they are byte-identical whatever the thread count, and a merge
// of shards equals the unsharded run. At the end sweep.json also flags, per axis, whether its
// values changed any result ("changes_results", axis_effects).
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/progress.hpp"
#include "sim/core/output_guard.hpp"
#include "sim/core/warnings.hpp"

namespace floorsim::app::sweep {

using json = nlohmann::json;

struct Axis {
  std::string name;     // column name (default: the pointer)
  std::string pointer;  // JSON pointer into the base document
  std::vector<json> values;  // grid / list
  double min = 0, max = 0;   // lhs
  bool integer = false;      // lhs: round to integers
};

struct SweepSpec {
  std::string file;      // the sweep file as given (error messages)
  json resolved;         // the sweep file with every default written in
  std::string name;
  std::string kind;      // "scenario" | "fabric"
  std::string mode;      // "grid" | "list" | "lhs"
  bool rehearse = false; // judge each run (base is a rehearsal)
  json base_doc;         // the base document with "patch" merged in
  std::string base_file; // for the scenario parser's messages
  std::string base_dir;  // relative paths inside the base resolve against this
  std::vector<Axis> axes;
  size_t samples = 0;    // lhs
  uint64_t seed = 1;     // lhs
  std::vector<std::vector<json>> points;  // points[index][axis]
  // What the base and the points' documents raise when loaded, each once (the caller prints them).
  Warnings warnings;
};

// Parses the sweep file, expands its points and validates EVERY point's document through the
// scenario (or fabric) parser, so nothing runs when one is bad. Throws InputError naming the
// sweep file and the JSON pointer of the axis (or field) at fault.
SweepSpec load_sweep_file(const std::string& path);
SweepSpec load_sweep(const json& doc, const std::string& file, const std::string& dir);

// The base document with point `index` applied (axis pointers set).
json point_document(const SweepSpec& s, size_t index);
// {"axis name": value, ...}
json point_axes(const SweepSpec& s, size_t index);

// Kind "scenario": loads and runs point `index`; returns its result line. Its warnings go to
// `warnings` (null: printed).
json evaluate_point(const SweepSpec& s, size_t index, Warnings* warnings = nullptr);
// Kind "fabric": result lines of `indices`, all solved by one batch contention call.
std::vector<json> fabric_batch_lines(const SweepSpec& s, const std::vector<size_t>& indices);
// Kind "fabric", one variant at a time through fabric::run_traffic (the per-scenario path).
std::vector<json> fabric_reference_lines(const SweepSpec& s, const std::vector<size_t>& indices);

struct Shard {
  size_t index = 0, count = 1;  // 0-based: index in 0..count-1 (Slurm --array=0-(N-1))
  bool owns(size_t point) const { return point % count == index; }
};
// Parses "i/N" with 0 <= i < N; throws std::invalid_argument with a message.
Shard parse_shard(const std::string& text);

struct RunOptions {
  unsigned threads = 1;
  bool resume = false;
  Shard shard;
  Progress* progress = nullptr;  // points finished (null or off: none)
};

struct Summary {
  size_t points = 0;      // in the whole sweep
  size_t in_shard = 0;
  size_t already_done = 0;  // found complete in the output (--resume)
  size_t ran = 0;
  size_t errors = 0;        // points whose run threw (recorded as an "error" line)
  size_t verdict_fail = 0;  // rehearsal points whose verdict failed
  double wall_s = 0;
  std::vector<std::string> no_effect_axes;  // axes that changed no result (see axis_effects)
  // Warnings the runs raised beyond the spec's own (SweepSpec::warnings), each once, in the
  // order of the first point that raised it: the same whatever the thread count.
  std::vector<std::string> warnings;
};

// Per axis, whether its values change any result: false when every group of points that differ
// only in this axis has identical results (metrics without the echoes of the scenario's own
// inputs: output_version, scenario, scheduler, classes' floor_gpus, the model's warnings;
// verdict; error), true when
// some group differs, null when no two points differ only in it (a Latin hypercube, one value).
// A false axis is a trap: the field it sets is overridden (slurm.conf keys win over the
// scheduler block) or read by nothing.
std::vector<json> axis_effects(const json& axes, const std::vector<json>& lines);
// sweep.json with each axis's "changes_results" (axis_effects) and "no_effect_axes" (names),
// written at the end of a run or merge; resume and merge compare sweep.json without them.
json with_axis_effects(json sweep_json, const std::vector<json>& lines);
json without_axis_effects(json sweep_json);

// Runs the shard's points not already complete; writes DIR/{sweep.json,results.jsonl,results.csv}.
// Into a new or empty DIR, or with --resume, the files are written in place as points finish;
// replacing an earlier output (--force, or another verb's output) is staged and renamed in.
// Throws InputError when DIR holds another sweep (or any results without --resume or --force).
Summary run_sweep(const SweepSpec& s, const io::OutTarget& out, const RunOptions& o);

// Joins shard output directories into `out_dir` (atomically). Throws InputError naming the
// shard directory when shards disagree on the sweep, or an index is missing or doubled.
// `no_effect` (when given) receives the names of the axes that changed no result.
size_t merge_shards(const io::OutTarget& out_dir, const std::vector<std::string>& shard_dirs,
                    std::vector<std::string>* no_effect = nullptr);

// Reads DIR/results.jsonl: complete lines only (a torn last line, left by a kill, is dropped).
// A malformed line before the last is an InputError(file, line).
std::vector<json> read_results(const std::string& path, bool* torn = nullptr);

// The CSV of sorted lines: index, one column per axis, then every numeric/boolean leaf of the
// lines' "metrics" (and "verdict") in sorted pointer order (union over lines).
std::string results_csv(const SweepSpec& s, const std::vector<json>& lines);
std::string results_csv(const json& sweep_json, const std::vector<json>& lines);

}  // namespace floorsim::app::sweep
