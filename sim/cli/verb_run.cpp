// floorsim run / validate / schema.
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "schedulers/registry.hpp"
#include "sim/app/inputs.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"
#include "sim/core/output_guard.hpp"

namespace floorsim::cli {

namespace {

void print_summary(const app::Scenario& sc, const app::RunResult& r, std::ostream& os) {
  const auto& m = r.metrics;
  os << fmt::format("scenario {} under {}: {} jobs, makespan {:.0f} s, utilization {:.3f}, {} events, {} passes\n",
                    m["scenario"].get<std::string>(), m["scheduler"].get<std::string>(), m["jobs"].get<size_t>(),
                    m["makespan_s"].get<double>(), m["utilization"].get<double>(), m["events"].get<uint64_t>(),
                    m["passes"].get<uint64_t>());
  os << fmt::format("wait_s: mean {:.1f}  p50 {:.1f}  p95 {:.1f}  p99 {:.1f}  max {:.1f}\n", m["wait_s"]["mean"].get<double>(),
                    m["wait_s"]["p50"].get<double>(), m["wait_s"]["p95"].get<double>(), m["wait_s"]["p99"].get<double>(),
                    m["wait_s"]["max"].get<double>());
  os << fmt::format("{:<16} {:>8} {:>10} {:>10} {:>10} {:>10} {:>12}\n", "class", "jobs", "floor", "attain", "p99_wait", "preempt",
                    "margin_s");
  for (auto it = m["classes"].begin(); it != m["classes"].end(); ++it) {
    const auto& c = it.value();
    os << fmt::format("{:<16} {:>8} {:>10} {:>10.3f} {:>10.1f} {:>10} {:>12}\n", it.key(), c["jobs"].get<size_t>(),
                      c["floor_gpus"].get<int64_t>(), c["floor_attainment"].get<double>(), c["wait_s"]["p99"].get<double>(),
                      c["preemptions"].get<uint64_t>(),
                      c["deadline_margin_s"].is_null() ? std::string("-") : fmt::format("{:.0f}", c["deadline_margin_s"].get<double>()));
  }
}

}  // namespace

const VerbDoc kRunDoc{
    .usage = "SCENARIO.json [--out DIR] [--force] [--check-invariants] [--progress WHEN] [--quiet]",
    .description =
        "Simulate one scenario (cluster, workload or trace, scheduler model, optional fabric, failures and policy "
        "changes) from its first submission to its last job and print the per-class summary: jobs, floor, floor "
        "attainment, p99 wait, preemptions and deadline margin. Writes metrics.json, jobs.csv, timeline.csv and "
        "scenario.resolved.json (and the approval log when the scenario lists policy changes) into DIR, all at once "
        "or not at all. The same scenario and seed give byte-identical files.",
    .placeholders = {{"scenario", "FILE"}, {"out", "DIR"}, {"progress", "WHEN"}},
    .examples = {{"floorsim run examples/quickstart.json --out out/quickstart",
                  "a 4-node night under EASY backfill: the risk floor is only 67% attained"},
                 {"floorsim run examples/slurm-quant/scenario.json --out out/slurm --check-invariants",
                  "the Slurm model read from slurm.conf and a sacctmgr dump, with the engine's invariants checked "
                  "after every event"}},
};

const VerbDoc kValidateDoc{
    .usage = "SCENARIO.json [--quiet]",
    .description =
        "Check a scenario strictly (an unknown key, a wrong type or an out-of-range value is an error naming the file "
        "and JSON pointer). Every file it names is opened and read by its reader (trace, slurm.conf, sacctmgr dump, "
        "topology.conf, gres.conf, Kueue and KAI manifests, fabric scenario): a missing or unreadable file, or an "
        "error in one, is reported as for `run`. Then print it with every default written in: the "
        "document `run` saves as scenario.resolved.json.",
    .placeholders = {{"scenario", "FILE"}},
    .examples = {{"floorsim validate examples/quickstart.json", "print the quickstart scenario with every default"},
                 {"floorsim validate my-site.json -q && echo ok", "only the exit status: 0 valid, 2 not"}},
};

const VerbDoc kSchemaDoc{
    .usage = "[--format json|table]",
    .description =
        "Print the scenario format: the JSON Schema (for editors and CI validators), or a table of every key with "
        "its type, default and meaning, followed by each scheduler model's own keys. docs/scenario.md is generated "
        "from the table.",
    .placeholders = {{"format", "FORMAT"}},
    .examples = {{"floorsim schema > scenario.schema.json", "the JSON Schema"},
                 {"floorsim schema --format table | less", "every key with its default"}},
};

int verb_run(const Args& args) {
  po::options_description opts;
  std::string scenario, out, progress;
  bool check = false, quiet = false, force = false;
  opts.add_options()("scenario", po::value(&scenario)->required(), "scenario JSON file")
      ("out,o", po::value(&out)->default_value("out"), std::string("output directory").append(kDirOutRule).c_str())
      ("check-invariants", po::bool_switch(&check)->default_value(false), "verify engine invariants after every event (sim/core/invariants.hpp)")
      ("quiet,q", po::bool_switch(&quiet)->default_value(false), "print nothing on success");
  add_progress_option(opts, &progress);
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse(args, "run", kRunDoc, opts, pos, vm)) return 0;
  app::Progress bar(progress_stream(progress, quiet), "run");
  const app::Scenario sc = app::load_scenario_file(scenario);
  const io::OutTarget target = io::check_output({out, io::OutKind::Directory, "run", force, app::run_inputs(sc)});
  app::RunOptions ro;
  ro.check_invariants = check;
  ro.progress = &bar;
  // jobs.csv goes straight to the staged directory as it is rendered (a trace of millions of
  // jobs makes one as large as itself); nothing is published unless the whole run succeeds.
  io::OutputDir dir(target);
  std::optional<io::AtomicFileWriter> jobs_csv;
  if (sc.resolved["output"]["jobs_csv"].get<bool>()) ro.jobs_csv_out = &jobs_csv.emplace(dir.file("jobs.csv"), dir.shown("jobs.csv"));
  const app::RunResult r = app::run_scenario(sc, ro);
  bar.finish();
  if (jobs_csv) jobs_csv->finish();
  app::write_run_outputs(sc, r, dir);
  if (!quiet) {
    print_summary(sc, r, std::cout);
    if (!sc.changes.empty()) {
      const auto& g = r.metrics["governance"];
      std::cout << fmt::format("policy changes: {} applied, {} applied without sign-off, {} rejected (approval_log.csv)\n",
                               g["applied"].get<uint64_t>(), g["applied_unapproved"].get<uint64_t>(), g["rejected"].get<uint64_t>());
    }
    std::cout << "wrote " << out << "/{metrics.json,jobs.csv,timeline.csv,scenario.resolved.json"
              << (sc.changes.empty() ? "" : ",approval_log.csv,approval_log.json") << "}\n";
  }
  return 0;
}

int verb_validate(const Args& args) {
  po::options_description opts;
  std::string scenario;
  bool quiet = false;
  opts.add_options()("scenario", po::value(&scenario)->required(), "scenario JSON file")
      ("quiet,q", po::bool_switch(&quiet)->default_value(false), "print nothing on success, only the exit code");
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse(args, "validate", kValidateDoc, opts, pos, vm)) return 0;
  // Every file the scenario names is opened first (one line for a missing one, whichever it is),
  // then read by its reader: the trace while loading, the model's files while building the model.
  const app::json doc = app::parse_json_text(io::read_file(scenario), scenario);
  std::string base = std::filesystem::path(scenario).parent_path().string();
  if (base.empty()) base = ".";
  app::check_files_readable(doc, base, scenario);
  const app::Scenario sc = app::load_scenario(doc, scenario, base);
  app::make_scheduler(sc);
  if (!quiet) std::cout << app::dump(sc.resolved);
  return 0;
}

int verb_schema(const Args& args) {
  po::options_description opts;
  std::string format;
  opts.add_options()("format", po::value(&format)->default_value("json"),
                     "json: the JSON Schema; table: every key with its type, default and meaning");
  po::positional_options_description pos;
  po::variables_map vm;
  if (!parse(args, "schema", kSchemaDoc, opts, pos, vm)) return 0;
  if (format == "json") {
    std::cout << app::dump(app::scenario_schema());
  } else if (format == "table") {
    std::cout << "scenario keys (key (type, default): meaning)\n" << cfg::describe(*app::scenario_spec(), 2);
    for (const auto& e : scheduler_registry())
      std::cout << "\nscheduler \"" << e.type << "\": " << e.doc << "\n" << cfg::describe(*e.params(), 2);
  } else {
    throw UsageError("--format must be json or table, got '" + format + "'");
  }
  return 0;
}

}  // namespace floorsim::cli
