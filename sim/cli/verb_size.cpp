// floorsim size INPUT: entitlement sizing from a scenario (run in memory) or a run directory
// (scenario.resolved.json + timeline.csv written by `run` or `rehearse`). Exit 0; 2 on bad input.
#include <filesystem>
#include <iostream>
#include <optional>

#include "sim/app/runner.hpp"
#include "sim/app/size.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"
#include "sim/core/output_guard.hpp"

namespace floorsim::cli {

const VerbDoc kSizeDoc{
    .usage = "SCENARIO.json|RUN_DIR [--json FILE] [--base-dir DIR] [--force]",
    .description =
        "Entitlement sizing: from a scenario (run first, in memory) or a run directory, report each class's peak "
        "GPU demand and propose floors: for a deadline class the peak demand inside its deadline window (the "
        "deadline classes must fit the cluster together), for the others 1.5 x the observed peak, with a warning "
        "where a floor would be more than 80% used.",
    .placeholders = {{"input", "PATH"}, {"json", "FILE"}, {"base-dir", "DIR"}},
    .examples = {{"floorsim size examples/rehearse-default.json", "size the floors of the built-in quant night"},
                 {"floorsim size out/rehearse --json sizing.json", "size from a rehearsal already run, also as JSON"}},
};

int verb_size(const Args& args) {
  namespace fs = std::filesystem;
  po::options_description opts;
  std::string input, json_out, base_dir;
  bool force = false;
  opts.add_options()("input", po::value(&input)->required(), "scenario JSON (run first) or a run output directory")
      ("json", po::value(&json_out)->default_value(""),
                                                                        std::string("also write the sizing as JSON to this file (empty = none)").append(kFileOutRule).c_str())
      ("base-dir", po::value(&base_dir)->default_value(""),
       "with a run directory: where the run's relative paths (trace, configs) resolve, i.e. the original "
       "scenario's directory (empty = the current directory)");
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("input", 1);
  po::variables_map vm;
  if (!parse(args, "size", kSizeDoc, opts, pos, vm)) return kExitOk;
  app::Scenario sc;
  std::string timeline, tfile;
  SimTime end_s = 0;
  const bool run_dir = fs::is_directory(input);
  // Checked once before reading (a run directory is an input as a whole), again with the files
  // the scenario names before running it.
  std::optional<io::OutTarget> target;
  auto check = [&](std::vector<io::OutInput> in) {
    in.push_back({input, run_dir});
    if (!json_out.empty()) target = io::check_output({json_out, io::OutKind::File, "size", force, in});
  };
  check({});
  if (run_dir) {
    const std::string resolved = (fs::path(input) / "scenario.resolved.json").string();
    tfile = (fs::path(input) / "timeline.csv").string();
    // scenario.resolved.json keeps the paths as written, relative to the original scenario file,
    // which a run directory does not record: --base-dir names it.
    sc = app::load_scenario(app::parse_json_text(io::read_file(resolved), resolved), resolved,
                            base_dir.empty() ? "." : base_dir);
    check(app::run_inputs(sc));
    timeline = io::read_file(tfile);
    const std::string metrics = (fs::path(input) / "metrics.json").string();
    const auto m = app::parse_json_text(io::read_file(metrics), metrics);
    end_s = sc.workload.jobs.empty() ? 0 : sc.workload.jobs.front().submit_s + m.value("makespan_s", 0.0);
  } else {
    sc = app::load_scenario_file(input);
    check(app::run_inputs(sc));
    sc.engine.keep_timeline = true;
    sc.resolved["output"]["timeline"] = true;
    const auto r = app::run_scenario(sc);
    timeline = r.timeline_csv;
    tfile = input + " (timeline)";
    end_s = sc.workload.jobs.empty() ? 0 : sc.workload.jobs.front().submit_s + r.metrics["makespan_s"].get<double>();
  }
  const auto s = app::size_floors(sc, app::parse_timeline(timeline, tfile), end_s);
  std::cout << app::sizing_table(s);
  if (target) io::write_output_file(*target, app::dump(app::to_json(s)));
  return kExitOk;
}

}  // namespace floorsim::cli
