// floorsim report DIR -o report.html: one self-contained HTML file (inline SVG, no
// script, no network) from a run, sweep or review directory. The work is in sim/app/report.{hpp,cpp}.
#include <iostream>

#include "sim/app/report.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_guard.hpp"

namespace floorsim::cli {

const VerbDoc kReportDoc{
    .usage = "DIR [-o FILE] [--metric M]... [--force]",
    .description =
        "Write one self-contained HTML report (inline SVG; no script, no network) of a run or sweep directory. For a "
        "run: GPUs per class against its floor over time, the wait CDF per class, deadline margins, a Gantt view of "
        "the largest jobs, preemptions and lost GPU-hours, and the verdict when the run was a rehearsal. For a sweep: "
        "each metric against each axis, points coloured by verdict. For a review (`floorsim review --out`): entitlement "
        "against use and allocation per class, use and waits per class by week and by month, idle and fragmented "
        "capacity, the windows where wait piles up, the recommended floors and the alert thresholds.",
    .placeholders = {{"dir", "DIR"}, {"out", "FILE"}, {"metric", "M"}},
    .examples = {{"floorsim report out/rehearse -o rehearse.html", "the report of a rehearsal"},
                 {"floorsim report out/lhs -o lhs.html --metric wait_s.p99 --metric classes.var.deadline_margin_s",
                  "two chosen metrics of a sweep against every axis"}},
};

int verb_report(const Args& args) {
  po::options_description opts;
  std::string dir, out;
  std::vector<std::string> metrics;
  bool force = false;
  opts.add_options()("dir", po::value(&dir)->required(), "run directory (metrics.json, timeline.csv, jobs.csv), sweep directory (sweep.json, results.jsonl) or review directory (review.json)")
      ("out,o", po::value(&out)->default_value("report.html"),
                  std::string("HTML file to write, outside DIR").append(kFileOutRule).c_str())
      ("metric", po::value(&metrics)->composing(),
       "sweeps: a metric to plot against every axis (JSON pointer or dotted path; repeatable; default: utilization, "
       "wait_s.p99, makespan_s, preemptions, each class's deadline_margin_s, or each fabric case's slowest_s)");
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  if (!parse(args, "report", kReportDoc, opts, pos, vm)) return kExitOk;
  const io::OutTarget target = io::check_output({out, io::OutKind::File, "report", force, {{dir, true}}});
  app::report::Options ro;
  ro.metrics = metrics;
  const std::string html = app::report::render(dir, ro);
  io::write_output_file(target, html);
  std::cerr << "floorsim: report: wrote " << out << " (" << html.size() << " bytes)\n";
  return kExitOk;
}

}  // namespace floorsim::cli
