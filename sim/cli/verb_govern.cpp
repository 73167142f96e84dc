// floorsim impact / audit / lint (issue 9: change control).
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "sim/app/audit.hpp"
#include "sim/app/impact.hpp"
#include "sim/app/lint.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::cli {

int verb_impact(const Args& args) {
  po::options_description opts;
  std::string scenario, out;
  std::vector<std::string> ids;
  bool as_json = false;
  opts.add_options()("scenario", po::value(&scenario)->required(), "scenario JSON file with a \"changes\" list")
      ("change", po::value(&ids)->composing(), "change id to analyse (repeatable; default: every change)")
      ("out,o", po::value(&out)->default_value(""), "also write impact.json into this directory (\"\" = none)")
      ("json", po::bool_switch(&as_json)->default_value(false), "print JSON instead of the table");
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse(args, "impact", "SCENARIO.json [--change ID]... [--out DIR] [--json]", opts, pos, vm)) return 0;
  const app::Scenario sc = app::load_scenario_file(scenario);
  const app::Impact im = app::analyse_impact(sc, ids);
  const auto j = app::to_json(im);
  if (!out.empty()) {
    io::AtomicDir dir(out);
    io::write_file_atomic(dir.file("impact.json"), app::dump(j));
    dir.commit();
  }
  std::cout << (as_json ? app::dump(j) : app::impact_table(im));
  return 0;
}

int verb_audit(const Args& args) {
  po::options_description opts;
  std::string run_dir, out, scenario;
  opts.add_options()("run_dir", po::value(&run_dir)->required(), "a `floorsim run` output directory")
      ("out,o", po::value(&out)->default_value("audit"), "audit pack directory (replaced atomically)")
      ("scenario", po::value(&scenario)->default_value(""),
       "the scenario file the run came from (default: RUN_DIR/scenario.resolved.json; needed when it names files by relative path)");
  po::positional_options_description pos;
  pos.add("run_dir", 1);
  po::variables_map vm;
  if (!parse(args, "audit", "RUN_DIR --out PACK_DIR [--scenario SCENARIO.json]", opts, pos, vm)) return 0;
  const std::string file = scenario.empty() ? (std::filesystem::path(run_dir) / "scenario.resolved.json").string() : scenario;
  auto build = [&]() {
    try {
      const app::Scenario sc = app::load_scenario_file(file);
      app::write_audit_pack(sc, run_dir, out);
    } catch (const InputError& e) {
      if (!scenario.empty()) throw;
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
      ("review-cadence-s", positive_value(&lo.review_cadence_s)->default_value(7 * 86400.0), "usage review cadence (rule decay-half-life-off-review-cadence)")
      ("high-priority", po::value(&lo.high_priority_value)->default_value(1000), "a priority class at or above this value is high")
      ("max-high-priority", count_value(&lo.max_high_priority_classes, int64_t{0})->default_value(2), "high-priority classes allowed")
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
  const auto f = app::lint_config(config, lo);
  std::cout << (format == "json" ? app::dump(app::to_json(f)) : app::lint_table(f));
  return f.empty() ? kExitOk : kExitCheckFailed;
}

}  // namespace floorsim::cli
