// floorsim impact / audit / lint: change control.
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

const VerbDoc kImpactDoc{
    .usage = "SCENARIO.json [--change ID]... [--out DIR] [--json] [--force]",
    .description =
        "Before a policy change is approved, show what it does: run the scenario once without its proposed changes "
        "and once with each, and print per class the floor attainment, deadline margin and p99 wait before, after "
        "and their difference. Changes are QOS, reservation, priority-weight, association or ClusterQueue edits "
        "listed under the scenario's \"changes\".",
    .placeholders = {{"scenario", "FILE"}, {"change", "ID"}, {"out", "DIR"}},
    .examples = {{"floorsim impact examples/govern/changes.json", "every change of the example change log"},
                 {"floorsim impact examples/govern/changes.json --change pricing-priority-no-risk --out out/impact",
                  "one change, also written to out/impact/impact.json"}},
};

const VerbDoc kAuditDoc{
    .usage = "RUN_DIR [--out DIR] [--scenario FILE] [--sacct-format parsable2|parsable] [--delimiter C] [--purge-job-after N] [--force]",
    .description =
        "Write the audit pack of a run: re-run its scenario (checking that it reproduces jobs.csv), then write the "
        "controlled policy (every QOS, partition, reservation, priority weight, association and ClusterQueue field, "
        "who may change it and how), the approval log of its policy changes, and the accounting in sacct "
        "--parsable2 form: Partition and QOS as slurmctld records them (the default partition, the association's "
        "DefaultQOS or normal, when the job names none), one row per attempt of a requeued job as sacct --duplicates "
        "lists them, and the records slurmdbd would still hold after PurgeJobAfter (slurmdbd.conf).",
    .placeholders = {{"run-dir", "DIR"}, {"out", "DIR"}, {"scenario", "FILE"}, {"sacct-format", "FORMAT"}, {"delimiter", "C"},
                     {"purge-job-after", "N"}},
    .examples = {{"floorsim audit out/govern --out out/audit --scenario examples/govern/changes.json",
                  "the pack of a run of the change-control example"},
                 {"floorsim audit out/quickstart --out out/quickstart-audit",
                  "a run whose scenario names no file by relative path needs no --scenario"},
                 {"floorsim audit out/quickstart --out out/audit-90d --purge-job-after 90days --delimiter ,",
                  "keep what a 90-day PurgeJobAfter keeps, comma-separated"}},
};

const VerbDoc kLintDoc{
    .usage = "CONFIG [--dump FILE] [--format table|json] | --rules",
    .description =
        "Policy lint: check a scenario JSON, a slurm.conf (with its sacctmgr dump) or Kueue YAML against rules that "
        "catch configurations which do not do what their author meant (floors past capacity, limits never "
        "enforced, a backfill window shorter than the longest time limit, ...). Each finding names the file and "
        "line or JSON pointer. Exit 1 when there are findings.",
    .placeholders = {{"config", "FILE"}, {"dump", "FILE"}, {"review-cadence-s", "S"}, {"high-priority", "N"},
                     {"max-high-priority", "N"}, {"format", "FORMAT"}},
    .examples = {{"floorsim lint examples/slurm-quant/slurm.conf --dump examples/slurm-quant/quant.dump",
                  "a slurm.conf with its sacctmgr dump"},
                 {"floorsim lint --rules", "every rule, its severity and what makes it fire"}},
};

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
  if (!parse(args, "impact", kImpactDoc, opts, pos, vm)) return 0;
  Warnings warnings;  // printed once both runs are done: an error (no changes) stands alone
  const app::Scenario sc = app::load_scenario_file(scenario, &warnings);
  std::optional<io::OutTarget> target;
  if (!out.empty()) target = io::check_output({out, io::OutKind::Directory, "impact", force, app::run_inputs(sc)});
  const app::Impact im = app::analyse_impact(sc, ids, &warnings);
  warnings.print();
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
  std::string run_dir, out, scenario, format, purge;
  app::SacctOptions so;
  bool force = false;
  opts.add_options()("run-dir", po::value(&run_dir)->required(), "a `floorsim run` output directory")
      ("sacct-format", po::value(&format)->default_value("parsable2"),
       "sacct.txt as `sacct --parsable2` (fields joined by the delimiter) or `--parsable` (a delimiter after the last field too)")
      ("delimiter", po::value(&so.delimiter)->default_value("|"), "field delimiter, as sacct --delimiter")
      ("purge-job-after", po::value(&purge)->default_value("none"),
       "retention: drop records of jobs that ended longer than this before the run's end, as slurmdbd.conf PurgeJobAfter "
       "(N months, Nhours, Ndays, Nmonths; none = keep all)")
      ("out,o", po::value(&out)->default_value("audit"), std::string("audit pack directory").append(kDirOutRule).c_str())
      ("scenario", po::value(&scenario)->default_value(""),
       "the scenario file the run came from (default: RUN_DIR/scenario.resolved.json; needed when it names files by relative path)");
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("run-dir", 1);
  po::variables_map vm;
  if (!parse(args, "audit", kAuditDoc, opts, pos, vm)) return 0;
  if (format != "parsable2" && format != "parsable") throw UsageError("--sacct-format " + format + ": expected parsable2 or parsable");
  if (so.delimiter.empty() || so.delimiter.find('\n') != std::string::npos) throw UsageError("--delimiter: expected a non-empty delimiter");
  so.trailing_delimiter = format == "parsable";
  so.purge_after_s = app::parse_purge_after(purge, "--purge-job-after");
  so.purge_after_text = purge;
  const std::string file = scenario.empty() ? (std::filesystem::path(run_dir) / "scenario.resolved.json").string() : scenario;
  // The run directory is an input as a whole: the pack may not replace it nor lie inside it.
  io::check_output({out, io::OutKind::Directory, "audit", force, {{run_dir, true}, {scenario, false}}});
  Warnings warnings;  // the scenario's and its model's, printed once the pack is written
  auto build = [&]() {
    try {
      const app::Scenario sc = app::load_scenario_file(file, &warnings);
      auto inputs = app::run_inputs(sc);
      inputs.push_back({run_dir, true});
      app::write_audit_pack(sc, run_dir, io::check_output({out, io::OutKind::Directory, "audit", force, inputs}), so, &warnings);
    } catch (const InputError& e) {
      if (!scenario.empty() || e.file() == out) throw;  // not about the scenario's paths
      // The resolved copy keeps the scenario's relative paths, which do not resolve from RUN_DIR.
      const std::string head = (e.file().empty() ? std::string("<input>") : e.file()) + (e.where().empty() ? "" : ":" + e.where()) + ": ";
      throw InputError(e.file(), e.where(), std::string(e.what()).substr(head.size()) +
                                                " (reading RUN_DIR/scenario.resolved.json: pass --scenario with the file the run came from)");
    }
  };
  build();
  warnings.print();
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
  if (!parse(args, "lint", kLintDoc, opts, pos, vm)) return 0;
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
