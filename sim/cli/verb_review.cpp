// floorsim review INPUT --entitlements FILE: months of accounting against the entitlements.
// INPUT: a sacct --parsable2 dump, or a run directory (jobs.csv). Exit 0; 2 on bad input.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "sim/app/report.hpp"
#include "sim/app/review.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"
#include "sim/core/output_guard.hpp"
#include "traces/trace.hpp"
#include "traces/window.hpp"

namespace floorsim::cli {
using nlohmann::json;

const VerbDoc kReviewDoc{
    .usage = "SACCT_FILE|RUN_DIR --entitlements FILE [--out DIR] [--force]",
    .description =
        "Reviews long-horizon accounting against the entitlements: per class and per week and calendar month, "
        "GPU-hours used, entitled and allocated (a reserved floor's idle time is booked as used, as Slurm's "
        "reservation accounting does, https://slurm.schedmd.com/reservations.html), wait percentiles; capacity "
        "idle, and idle while jobs waited; the days where cumulative wait piles up; a recommended rebalancing of "
        "the floors toward classes whose demand (p95 of GPUs running + waiting) exceeds their floor; and Prometheus alerting rules "
        "(quota share, queueing delay, SLA margin; https://prometheus.io/docs/prometheus/latest/configuration/"
        "alerting_rules/). Reads a `sacct --parsable2` dump (the class from the account, QOS, partition or user) "
        "or a run directory's jobs.csv. Prints the review as Markdown; --out writes review.md, review.json, "
        "weekly.csv, monthly.csv and alerts.yml, and `floorsim report DIR` renders that directory as one HTML page.",
    .placeholders = {{"input", "PATH"}, {"entitlements", "FILE"}, {"out", "DIR"}},
    .examples = {{"floorsim review sacct-q1.txt --entitlements examples/review/entitlements.json",
                  "review a quarter of a desk's sacct accounting (examples/review/make_sacct.py writes one)"},
                 {"floorsim review out/run --entitlements ent.json --out review", "review a run, with alert rules in review/alerts.yml"},
                 {"floorsim report review -o review.html", "the review as one HTML page (tables and charts)"}},
};

namespace {

std::vector<app::review::JobRecord> from_sacct(const std::string& path, const app::review::Entitlements& e) {
  traces::ReadOptions o;
  o.keep_cpu_jobs = false;
  const auto td = traces::read_trace(path, traces::Format::Sacct, o);
  const double t0 = std::isnan(td.report.wall_t0_s) ? 0 : td.report.wall_t0_s;
  std::vector<app::review::JobRecord> out;
  const auto& w = td.workload;
  for (const auto& j : w.jobs) {
    const StrId f = e.class_from == "qos" ? j.qos : e.class_from == "partition" ? j.partition : e.class_from == "user" ? j.user
                  : e.class_from == "class" ? j.klass : j.account;
    app::review::JobRecord r{.klass = w.strings.str(f), .gpus = j.gpus, .submit_s = t0 + j.submit_s};
    if (j.recorded_start_s >= 0) r.start_s = t0 + j.recorded_start_s, r.end_s = r.start_s + j.runtime_s;
    out.push_back(r);
  }
  return out;
}

// jobs.csv of a run: class, gpus, submit_s, start_s, end_s (times from the run's clock t0 when set).
std::vector<app::review::JobRecord> from_run(const std::string& dir) {
  namespace fs = std::filesystem;
  const std::string f = (fs::path(dir) / "jobs.csv").string();
  double t0 = 0;
  const std::string resolved = (fs::path(dir) / "scenario.resolved.json").string();
  if (fs::exists(resolved)) {
    const json sc = app::parse_json_text(io::read_file(resolved), resolved);
    if (const std::string c = sc.value("clock", json::object()).value("t0", ""); !c.empty())
      t0 = traces::parse_wall_time(c).value_or(0);
  }
  const auto rows = app::report::parse_csv(io::read_file(f));
  if (rows.empty()) throw InputError(f, "1", "empty file; expected jobs.csv with a header");
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < rows[0].size(); ++i) col[rows[0][i]] = i;
  for (const char* c : {"class", "gpus", "submit_s", "start_s", "end_s"})
    if (!col.count(c)) throw InputError(f, "1", std::string("no column ") + c + "; expected jobs.csv as `floorsim run` writes it");
  std::vector<app::review::JobRecord> out;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (r.size() != rows[0].size()) throw InputError(f, std::to_string(i + 1), "a row of another width than the header");
    auto num = [&](const char* c) {
      const std::string& v = r[col[c]];
      try {
        return v.empty() ? -1.0 : std::stod(v);
      } catch (const std::exception&) {
        throw InputError(f, std::to_string(i + 1), std::string("column ") + c + " is '" + v + "'; expected a number");
      }
    };
    app::review::JobRecord j{.klass = r[col["class"]], .gpus = static_cast<int64_t>(num("gpus")), .submit_s = t0 + num("submit_s")};
    if (num("start_s") >= 0) j.start_s = t0 + num("start_s"), j.end_s = t0 + num("end_s");
    out.push_back(j);
  }
  return out;
}

}  // namespace

int verb_review(const Args& args) {
  po::options_description opts;
  std::string input, ent_file, out;
  bool force = false;
  opts.add_options()("input", po::value(&input)->required(), "a sacct --parsable2 dump, or a run directory")
      ("entitlements", po::value(&ent_file)->required(), "entitlements JSON: capacity_gpus, class_from, classes.NAME.floor_gpus, "
       "reserved, wait_alert_s, sla_margin_s, quota_fraction (docs/cost.md)")
      ("out,o", po::value(&out)->default_value(""), std::string("write review.md, review.json, weekly.csv, monthly.csv, alerts.yml here (empty = the review on stdout only)").append(kDirOutRule).c_str());
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("input", 1);
  po::variables_map vm;
  if (!parse(args, "review", kReviewDoc, opts, pos, vm)) return kExitOk;
  const bool dir_in = std::filesystem::is_directory(input);
  std::optional<io::OutTarget> target;
  if (!out.empty()) target = io::check_output({out, io::OutKind::Directory, "review", force, {{input, dir_in}, {ent_file, false}}});
  const auto ent = app::review::load_entitlements(app::parse_json_text(io::read_file(ent_file), ent_file), ent_file);
  const auto jobs = dir_in ? from_run(input) : from_sacct(input, ent);
  if (jobs.empty()) throw InputError(input, "", "no GPU job to review; expected accounting with GPU jobs");
  auto r = app::review::review(jobs, ent);
  r.source = (dir_in ? "run " : "sacct ") + input;
  for (const auto& w : r.warnings) std::cerr << "floorsim: warning: " << w << "\n";
  const std::string md = app::review::to_markdown(r, r.source);
  std::cout << md;
  if (target) {
    io::OutputDir d(*target);
    d.write("review.md", md);
    d.write("review.json", app::dump(app::review::to_json(r)));
    d.write("weekly.csv", app::to_csv(app::review::rollup_table(r.weekly)));
    d.write("monthly.csv", app::to_csv(app::review::rollup_table(r.monthly)));
    d.write("alerts.yml", app::review::alert_rules_yaml(r, ent));
    d.commit();
  }
  return kExitOk;
}

}  // namespace floorsim::cli
