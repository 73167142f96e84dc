// floorsim compare BASELINE CURRENT --bands BANDS.json [--junit FILE]: the regression
// gate. Exit 0 when every metric is inside its band, 1 on a regression, 2 on bad input (and then
// the JUnit file holds one test case in error naming it, and nothing else is written). The work is in sim/app/compare.{hpp,cpp}.
#include <filesystem>
#include <iostream>
#include <optional>

#include "sim/app/compare.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_guard.hpp"

namespace floorsim::cli {

const VerbDoc kCompareDoc{
    .usage = "BASELINE CURRENT --bands FILE [--junit FILE] [--force] [--quiet]",
    .description =
        "The regression gate: compare each metric named in the bands file between a baseline and a current result "
        "(metrics.json, a run directory, a sweep directory or results.jsonl; sweeps point by point) and print metric, "
        "baseline, current, change, band and verdict. Exit 1 when any metric leaves its band, so CI can fail on it; "
        "--junit also writes one JUnit test case per metric.",
    .placeholders = {{"baseline", "PATH"}, {"current", "PATH"}, {"bands", "FILE"}, {"junit", "FILE"}},
    .examples = {{"floorsim compare examples/ci/baseline-metrics.json out/quickstart --bands examples/ci/bands.json",
                  "the quickstart run against its committed baseline"},
                 {"floorsim compare old-sweep new-sweep --bands bands.json --junit gate.xml -q",
                  "two sweeps point by point, only regressions printed, JUnit XML for the CI server"}},
};

int verb_compare(const Args& args) {
  po::options_description opts;
  std::string baseline, current, bands, junit;
  bool quiet = false, force = false;
  opts.add_options()("baseline", po::value(&baseline)->required(), "baseline: metrics.json, a run directory, a sweep directory or results.jsonl")
      ("current", po::value(&current)->required(), "current: the same kind as the baseline")
      ("bands", po::value(&bands)->required(), "tolerance bands JSON: {\"bands\": [{\"metric\", \"upper\"/\"lower\": {\"abs\", \"rel\"}, \"max\", \"min\"}]} (required)")
      ("junit", po::value(&junit)->default_value("", "\"\""), std::string("also write JUnit XML here (\"\" = none)").append(kFileOutRule).c_str())
      ("quiet,q", po::bool_switch(&quiet)->default_value(false), "print only regressions and the summary line (off)");
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("baseline", 1).add("current", 1);
  po::variables_map vm;
  if (!parse(args, "compare", kCompareDoc, opts, pos, vm)) return kExitOk;
  std::optional<io::OutTarget> target;
  if (!junit.empty())
    target = io::check_output({junit, io::OutKind::File, "compare", force,
                               {{baseline, std::filesystem::is_directory(baseline)}, {current, std::filesystem::is_directory(current)}, {bands, false}}});
  app::compare::Result r;
  try {
    const auto band_list = app::compare::load_bands_file(bands);
    const auto base = app::compare::load_input(baseline);
    const auto cur = app::compare::load_input(current);
    r = app::compare::compare(base, cur, band_list, bands);
    if (target) io::write_output_file(*target, app::compare::junit_xml(r, base.file + " vs " + cur.file));
  } catch (const InputError& e) {
    if (target) io::write_output_file(*target, app::compare::junit_error_xml(std::string("floorsim: ") + e.what(), baseline + " vs " + current));
    throw;  // main prints the same line and exits 2
  } catch (const std::exception& e) {
    if (target) io::write_output_file(*target, app::compare::junit_error_xml(std::string("floorsim: compare: ") + e.what(), baseline + " vs " + current));
    throw;
  }
  if (quiet) {
    app::compare::Result shown;
    for (const auto& row : r.rows)
      if (!row.pass) shown.rows.push_back(row);
    shown.failures = r.failures;
    std::string t = app::compare::table(shown);
    t = t.substr(0, t.rfind('\n', t.size() - 2) + 1);  // drop its summary line, print the full one
    std::cout << (shown.rows.empty() ? "" : t)
              << (r.failures ? "REGRESSION" : "PASS") << ": " << r.failures << " of " << r.rows.size() << " checks outside their band\n";
  } else {
    std::cout << app::compare::table(r);
  }
  return r.failures ? kExitCheckFailed : kExitOk;
}

}  // namespace floorsim::cli
