#pragma once
// Trace readers map real logs onto JobSpec, with the choices documented per format, and report
// what they skipped and why. Writers produce SWF and CSV.
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "sim/core/types.hpp"

namespace floorsim::traces {

enum class Format { Swf, Helios, Philly, PaiOpenb, Sacct, Csv };

// Parses "swf", "helios", "philly", "pai", "sacct", "csv"; throws std::invalid_argument.
Format parse_format(const std::string& name);
std::string format_name(Format f);

struct ReadOptions {
  // Scale SWF processors into GPUs: gpus = procs * gpus_per_proc (1 = a processor is a GPU).
  int32_t gpus_per_proc = 1;
  // What to do with a job whose time limit is unknown: use its runtime (a perfect estimate,
  // reported as a count) when true, else leave it unlimited (kNever).
  bool missing_limit_is_runtime = true;
  // Keep CPU-only jobs (gpus == 0)? Helios and PAI have many; default drops them.
  bool keep_cpu_jobs = false;
  // Drop jobs whose runtime is <= 0 (zero-length records).
  bool drop_zero_runtime = false;
  // Only the first N jobs (0 = all), to bound replays.
  size_t max_jobs = 0;
};

struct ReadReport {
  std::string file;
  std::string format;
  size_t rows = 0;                           // data rows seen
  size_t jobs = 0;                           // jobs kept
  std::map<std::string, size_t> skipped;     // reason -> rows skipped
  std::map<std::string, size_t> adjusted;    // documented fix-ups applied (reason -> count)
  std::map<std::string, std::string> header; // header facts (SWF ; Key: Value lines)
  // Wall-clock time (seconds since 1970-01-01 as the log writes it) of submit_s = 0: the
  // earliest submit of a format that records dates (sacct, Helios, Philly); NaN otherwise.
  double wall_t0_s = std::numeric_limits<double>::quiet_NaN();
};

struct TraceData {
  // Jobs sorted by (submit_s, id). submit_s is relative to the trace's own epoch: SWF keeps its
  // offsets from UnixStartTime; formats with dates use seconds since the earliest submit.
  Workload workload;
  ReadReport report;
};

// Reads a trace file. Throws InputError (file:line: message) on malformed input that cannot be
// skipped safely; skips and counts rows that are well-formed but unusable.
TraceData read_trace(const std::string& path, Format format, const ReadOptions& opts = {});

// The text of `w` as SWF / floorsim CSV; write_* write it to `path` atomically.
std::string swf_text(const Workload& w);
std::string csv_text(const Workload& w);
void write_swf(const std::string& path, const Workload& w);
void write_csv(const std::string& path, const Workload& w);

}  // namespace floorsim::traces
