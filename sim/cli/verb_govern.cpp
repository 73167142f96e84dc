// floorsim impact / audit / lint (issue 9: change control).
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "sim/app/audit.hpp"
#include "sim/app/impact.hpp"
#include "sim/app/lint.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_guard.hpp"

namespace floorsim::cli {

int verb_impact(const Args& args) {
  po::options_description opts;
  std::string scenario, out;
  std::vector<std::string> ids;
  bool as_json = false, force = false;
  opts.add_options()("scenario", po::value(&scenario)->required(), "scenario JSON file with a \"changes\" list")
      ("change", po::value(&ids)->composing(), "change id to analyse (repeatable; default: every change)")
      ("out,o", po::value(&out)->default_value(""),
       std::string("also write impact.json into this directory (\"\" = none)").append(kDirOutRule).c_str())
      ("json", po::bool_switch(&as_json)->default_value(false), "print JSON instead of the table");
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse(args, "impact", "SCENARIO.json [--change ID]... [--out DIR] [--json] [--force]", opts, pos, vm)) return 0;
  const app::Scenario sc = app::load_scenario_file(scenario);
  std::optional<io::OutTarget> target;
  if (!out.empty()) target = io::check_output({out, io::OutKind::Directory, "impact", force, app::run_inputs(sc)});
  const app::Impact im = app::analyse_impact(sc, ids);
  const auto j = app::to_json(im);
  if (target) {
    io::OutputDir dir(*target);
    dir.write("impact.json", app::dump(j));
    dir.commit();
  }
  std::cout << (as_json ? app::dump(j) : app::impact_table(im));
  return 0;
}

int verb_audit(const Args& args) {
  po::options_description opts;
  std::string run_dir, out, scenario;
  bool force = false;
  opts.add_options()("run_dir", po::value(&run_dir)->required(), "a `floorsim run` output directory")
      ("out,o", po::value(&out)->default_value("audit"), std::string("audit pack directory").append(kDirOutRule).c_str())
      ("scenario", po::value(&scenario)->default_value(""),
       "the scenario file the run came from (default: RUN_DIR/scenario.resolved.json; needed when it names files by relative path)");
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("run_dir", 1);
  po::variables_map vm;
  if (!parse(args, "audit", "RUN_DIR --out PACK_DIR [--scenario SCENARIO.json] [--force]", opts, pos, vm)) return 0;
  const std::string file = scenario.empty() ? (std::filesystem::path(run_dir) / "scenario.resolved.json").string() : scenario;
  // The run directory is an input as a whole: the pack may not replace it nor lie inside it.
  io::check_output({out, io::OutKind::Directory, "audit", force, {{run_dir, true}, {scenario, false}}});
  auto build = [&]() {
    try {
      const app::Scenario sc = app::load_scenario_file(file);
      auto inputs = app::run_inputs(sc);
      inputs.push_back({run_dir, true});
      app::write_audit_pack(sc, run_dir, io::check_output({out, io::OutKind::Directory, "audit", force, inputs}));
    } catch (const InputError& e) {
      if (!scenario.empty() || e.file() == out) throw;  // not about the scenario's paths
      // The resolved copy keeps the scenario's relative paths, which do not resolve from RUN_DIR.
      const std::string head = (e.file().empty() ? std::string("<input>") : e.file()) + (e.where().empty() ? "" : ":" + e.where()) + ": ";
      throw InputError(e.file(), e.where(), std::string(e.what()).substr(head.size()) +
                                                " (reading RUN_DIR/scenario.resolved.json: pass --scenario with the file the run came from)");
    }
  };
  build();
  std::cout << "wrote " << out << "/{policy.json,policy.md,approval_log.csv,approval_log.json,sacct.txt}\n";
  return 0;
}

int verb_lint(const Args& args) {
  po::options_description opts;
  std::string config, format;
  app::LintOptions lo;
  bool list = false;
  opts.add_options()("config", po::value(&config), "scenario JSON, slurm.conf, or Kueue YAML")
      ("dump", po::value(&lo.dump)->default_value(""), "sacctmgr dump read with a slurm.conf")
      ("review-cadence-s", po::value(&lo.review_cadence_s)->default_value(7 * 86400.0), "usage review cadence (rule decay-half-life-off-review-cadence)")
      ("high-priority", po::value(&lo.high_priority_value)->default_value(1000), "a priority class at or above this value is high")
      ("max-high-priority", po::value(&lo.max_high_priority_classes)->default_value(2), "high-priority classes allowed")
      ("format", po::value(&format)->default_value("table"), "table or json")
      ("rules", po::bool_switch(&list)->default_value(false), "list the rules and exit");
  po::positional_options_description pos;
  pos.add("config", 1);
  po::variables_map vm;
  if (!parse(args, "lint", "CONFIG [--dump DUMP] [--format table|json]", opts, pos, vm)) return 0;
  if (list) {
    for (const auto& r : app::lint_rules()) std::cout << fmt::format("{:<36} {:<8} {}\n", r.name, r.severity, r.what);
    return 0;
  }
  if (config.empty()) throw UsageError("missing CONFIG");
  if (format != "table" && format != "json") throw UsageError("--format must be table or json");
  if (lo.review_cadence_s <= 0) throw UsageError("--review-cadence-s must be > 0");
  const auto f = app::lint_config(config, lo);
  std::cout << (format == "json" ? app::dump(app::to_json(f)) : app::lint_table(f));
  return f.empty() ? kExitOk : kExitCheckFailed;
}

}  // namespace floorsim::cli
