// `floorsim trace stats FILE --format F [--json]` and
// `floorsim trace convert IN --format F --to swf|csv -o OUT`.
// The work is done in traces/ (read_trace, compute_stats, write_swf/write_csv), which the
// test_traces binary covers; this file only maps flags onto ReadOptions.
#include <iostream>
#include <optional>

#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_guard.hpp"
#include "traces/stats.hpp"
#include "traces/trace.hpp"

namespace floorsim::cli {

const VerbDoc kTraceDoc{
    .usage = "stats|convert FILE --format FORMAT [--json] [--to swf|csv -o FILE [--force]]",
    .description =
        "Read a job trace: the Standard Workload Format of the Parallel Workloads Archive (swf), the Helios, Philly "
        "and Alibaba PAI GPU-cluster traces, Slurm `sacct --parsable2` output, or floorsim's own CSV. `stats` prints "
        "rows read, jobs kept, rows skipped and fix-ups applied by reason, and the job mix; `convert` writes the jobs "
        "as SWF or CSV.",
    .placeholders = {{"action", "ACTION"}, {"input", "FILE"}, {"format", "FORMAT"}, {"to", "FORMAT"}, {"output", "FILE"},
                     {"gpus-per-proc", "N"}, {"max-jobs", "N"}, {"missing-limit", "WHAT"}},
    .examples = {{"floorsim trace stats examples/traces/quant_sacct.log --format sacct", "what floorsim reads from a sacct dump"},
                 {"floorsim trace convert examples/traces/quant_sacct.log --format sacct --to csv -o jobs.csv",
                  "the same jobs as floorsim CSV"}},
};

int verb_trace(const Args& args) {
  po::options_description opt;
  std::string action, input, format, to, output, missing_limit;
  traces::ReadOptions ro;
  size_t max_jobs = 0;
  int gpus_per_proc = 1;
  opt.add_options()
      ("action", po::value(&action), "stats | convert")
      ("input", po::value(&input), "trace file to read")
      ("format", po::value(&format),
       "trace format: swf | helios | philly | pai | sacct | csv (required; no default)")
      ("json", po::bool_switch(), "stats: print JSON instead of text (off)")
      ("to", po::value(&to), "convert: output format, swf | csv (required for convert)")
      ("output,o", po::value(&output), std::string("convert: output file (required for convert)").append(kFileOutRule).c_str())
      ("gpus-per-proc", count_value(&gpus_per_proc, 1)->default_value(1), "SWF: GPUs per processor")
      ("keep-cpu-jobs", po::bool_switch(), "keep jobs with no GPUs (off: they are skipped and counted)")
      ("drop-zero-runtime", po::bool_switch(), "skip jobs whose runtime is <= 0 (off)")
      ("max-jobs", count_value(&max_jobs, size_t{0})->default_value(0), "keep only the first N jobs by submit time (0 = all)")
      ("missing-limit", po::value(&missing_limit)->default_value("runtime"),
       "time limit of a job whose trace gives none: runtime | unlimited");
  bool force = false;
  add_force_option(opt, &force);
  po::positional_options_description pos;
  pos.add("action", 1).add("input", 1);
  po::variables_map vm;
  if (!parse(args, "trace", kTraceDoc, opt, pos, vm)) return kExitOk;

  if (action != "stats" && action != "convert")
    throw UsageError(action.empty() ? "missing action; expected 'stats' or 'convert'"
                                    : "unknown action '" + action + "'; expected 'stats' or 'convert'");
  if (input.empty()) throw UsageError("missing the trace FILE");
  if (format.empty()) throw UsageError("missing --format; expected swf, helios, philly, pai, sacct or csv");
  traces::Format fmt;
  try {
    fmt = traces::parse_format(format);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--format: ") + e.what());
  }
  if (missing_limit != "runtime" && missing_limit != "unlimited")
    throw UsageError("--missing-limit is '" + missing_limit + "'; expected runtime or unlimited");
  ro.gpus_per_proc = gpus_per_proc;
  ro.keep_cpu_jobs = vm["keep-cpu-jobs"].as<bool>();
  ro.drop_zero_runtime = vm["drop-zero-runtime"].as<bool>();
  ro.max_jobs = max_jobs;
  ro.missing_limit_is_runtime = missing_limit == "runtime";

  std::optional<io::OutTarget> target;
  if (action == "convert") {
    if (to != "swf" && to != "csv") throw UsageError("--to is '" + to + "'; expected swf or csv");
    if (output.empty()) throw UsageError("missing -o OUT");
    target = io::check_output({output, io::OutKind::File, "trace", force, {{input, false}}});
  }
  const traces::TraceData data = traces::read_trace(input, fmt, ro);  // InputError -> exit 2 in main
  if (action == "stats") {
    const auto st = traces::compute_stats(data);
    std::cout << (vm["json"].as<bool>() ? traces::format_stats_json(st) : traces::format_stats_text(st));
    return kExitOk;
  }
  io::write_output_file(*target, to == "swf" ? traces::swf_text(data.workload) : traces::csv_text(data.workload));
  std::cerr << "floorsim: trace: wrote " << data.workload.jobs.size() << " jobs to " << output << " (" << data.report.rows
            << " rows read)\n";
  return kExitOk;
}

}  // namespace floorsim::cli
