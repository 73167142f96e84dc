#pragma once
// `floorsim report DIR -o report.html`: one self-contained HTML file (inline SVG, no
// script, no network) from a run directory or a sweep directory.
//
// Run directory (metrics.json + timeline.csv + jobs.csv [+ verdict.json, scenario.resolved.json]):
//   chart-gpus-<class>      GPUs allocated / demanded per class over time against its floor
//   chart-wait-cdf          wait CDF per class (jobs that started)
//   chart-deadline-margins  worst deadline margin per deadline class (and the rehearsal target)
//   chart-gantt             the largest jobs (GPUs x run time): submit, start, end; preempted marked
//   chart-preemptions       preemptions, requeues and lost GPU-hours per class
// Sweep directory (sweep.json + results.jsonl):
//   chart-sweep-<axis>-<metric>  each metric against each axis (points coloured by verdict)
// Review directory (review.json, from `floorsim review --out`): see report_review.hpp.
// Every chart is an <svg> with that id and a <title>. Missing optional files are stated in the
// page instead of a chart; a missing metrics.json / results.jsonl is an InputError.
#include <string>
#include <vector>

namespace floorsim::app::report {

struct Options {
  std::vector<std::string> metrics;  // sweep: JSON pointers / dotted paths to plot (empty = defaults)
  size_t gantt_jobs = 40;            // largest jobs in the Gantt view
};

// Renders the HTML. Throws InputError naming the file at fault.
std::string render(const std::string& dir, const Options& o = {});

// CSV with double-quoted fields (jobs.csv quotes host lists that hold commas). Exposed for tests.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

}  // namespace floorsim::app::report
