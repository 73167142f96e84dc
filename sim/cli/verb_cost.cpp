// floorsim cost INPUT --prices FILE: dedicated vs shared vs reserved+burst per deadline class.
// INPUT: a scenario (run here), a run directory, or a sweep directory. Exit 0; 2 on bad input.
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "sim/app/cost.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"
#include "sim/core/output_guard.hpp"
#include "sim/core/warnings.hpp"

namespace floorsim::cli {
using nlohmann::json;

const VerbDoc kCostDoc{
    .usage = "SCENARIO.json|RUN_DIR|SWEEP_DIR --prices FILE [--out DIR] [--base-dir DIR] [--force]",
    .description =
        "Prices each deadline class three ways: shared (its used GPU-hours at the on-premises rate), dedicated (whole "
        "nodes holding its floor, paid all day, idle time included) and reserved+burst (the floor reserved over the "
        "class's window and charged as if used, as Slurm's reservation accounting books unused reserved time to the "
        "eligible accounts (https://slurm.schedmd.com/reservations.html), plus the capacity blocks' price), each with "
        "the expected missed-deadline cost (miss chance x the class's price). Prints the table, the break-even "
        "missed-deadline cost and utilisation, and which case for dedicated nodes applies (the floor is most of the "
        "cluster; isolation rules out sharing; a missed deadline costs more than idle nodes). A scenario is run here "
        "(twice when it has capacity blocks: with them, and without them for shared and for a block not had); a sweep gives the miss chance as "
        "the share of points that missed. Dedicated's miss chance is not simulated but a fit bound (p_miss_basis): a miss when the "
        "class's work exceeds the dedicated GPUs x its window, a lower bound as packing and failures are left out. --out writes "
        "cost.json, cost.csv and cost.md.",
    .placeholders = {{"input", "PATH"}, {"prices", "FILE"}, {"out", "DIR"}, {"base-dir", "DIR"}},
    .examples = {{"floorsim cost examples/cost/night.json --prices examples/cost/prices.json",
                  "price the deadline classes of a night with a capacity block"},
                 {"floorsim cost out/sweep --prices examples/cost/prices-sweep.json --out cost",
                  "price a sweep's results, miss chance = share of points"}},
};

namespace {

// Per class: first submission to last deadline (deadline classes only).
app::cost::Windows deadline_windows(const app::Scenario& sc) {
  app::cost::Windows span;
  for (const auto& j : sc.workload.jobs) {
    if (!(j.deadline_s < kNever)) continue;
    auto [it, fresh] = span.try_emplace(sc.workload.strings.str(j.klass), j.submit_s, j.deadline_s);
    if (!fresh) it->second = {std::min(it->second.first, j.submit_s), std::max(it->second.second, j.deadline_s)};
  }
  return span;
}

std::vector<json> read_lines(const std::string& path) {
  std::vector<json> lines;
  std::istringstream in(io::read_file(path));
  size_t n = 0;
  for (std::string l; std::getline(in, l);)
    if (++n, !l.empty()) lines.push_back(app::parse_json_text(l, path + ":" + std::to_string(n)));
  return lines;
}

app::cost::Observation observe(const std::string& input, const std::string& base_dir, const app::cost::Prices& prices,
                               std::vector<io::OutInput>& inputs, Warnings& warnings) {
  namespace fs = std::filesystem;
  if (fs::is_directory(input) && fs::exists(fs::path(input) / "results.jsonl")) {
    const std::string f = (fs::path(input) / "results.jsonl").string();
    const auto lines = read_lines(f);
    return app::cost::observe_sweep(lines, prices, "sweep " + input, f);
  }
  if (fs::is_directory(input)) {
    const std::string resolved = (fs::path(input) / "scenario.resolved.json").string();
    const std::string mfile = (fs::path(input) / "metrics.json").string();
    const app::Scenario sc = app::load_scenario(app::parse_json_text(io::read_file(resolved), resolved), resolved,
                                                base_dir.empty() ? "." : base_dir, &warnings);
    const json m = app::parse_json_text(io::read_file(mfile), mfile);
    return app::cost::observe_run(m, sc.resolved, deadline_windows(sc), nullptr, prices, "run " + input);
  }
  // A scenario: with the capacity blocks had, and (when one may not be) without any.
  json doc = app::parse_json_text(io::read_file(input), input);
  const std::string dir = fs::path(input).parent_path().string();
  const app::Scenario sc0 = app::load_scenario(doc, input, dir.empty() ? "." : dir, &warnings);
  auto more = app::run_inputs(sc0);
  inputs.insert(inputs.end(), more.begin(), more.end());
  const bool blocks = !sc0.resolved.value("capacity_blocks", json::array()).empty();
  auto run_with = [&](double p) {
    json d = doc;
    if (d.contains("capacity_blocks"))
      for (auto& b : d["capacity_blocks"]) b["unavailable_probability"] = p;
    app::RunOptions ro;
    ro.render_csv = false;
    ro.warnings = &warnings;
    return app::run_scenario(app::load_scenario(d, input, dir.empty() ? "." : dir, &warnings), ro).metrics;
  };
  const json with = run_with(0.0);
  std::optional<json> without;
  if (blocks) without = run_with(1.0);
  return app::cost::observe_run(with, sc0.resolved, deadline_windows(sc0), without ? &*without : nullptr, prices,
                                "scenario " + input);
}

}  // namespace

int verb_cost(const Args& args) {
  po::options_description opts;
  std::string input, prices_file, out, base_dir;
  bool force = false;
  opts.add_options()("input", po::value(&input)->required(), "scenario JSON (run here), run directory or sweep directory")
      ("prices", po::value(&prices_file)->required(), "prices JSON: on-premises GPU-hour or node capital/lifetime/power, cloud "
       "GPU-hour, capacity block GPU-hour, per class missed_deadline_usd, isolation, reserved_window_h (docs/cost.md)")
      ("out,o", po::value(&out)->default_value(""), std::string("write cost.json, cost.csv, cost.md here (empty = the table on stdout only)").append(kDirOutRule).c_str())
      ("base-dir", po::value(&base_dir)->default_value(""),
       "with a run directory: where the run's relative paths resolve (the original scenario's directory; empty = the current directory)");
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("input", 1);
  po::variables_map vm;
  if (!parse(args, "cost", kCostDoc, opts, pos, vm)) return kExitOk;
  std::vector<io::OutInput> inputs{{input, std::filesystem::is_directory(input)}, {prices_file, false}};
  std::optional<io::OutTarget> target;
  if (!out.empty()) target = io::check_output({out, io::OutKind::Directory, "cost", force, inputs});
  const auto prices = app::cost::load_prices(app::parse_json_text(io::read_file(prices_file), prices_file), prices_file);
  Warnings warnings;  // every run's, each printed once
  const auto obs = observe(input, base_dir, prices, inputs, warnings);
  const auto report = app::cost::price(obs, prices);
  for (const auto& w : report.obs.warnings) warnings.add(w);
  warnings.print();
  const std::string md = app::cost::to_markdown(report);
  std::cout << md;
  if (target) {
    target = io::check_output({out, io::OutKind::Directory, "cost", force, inputs});
    io::OutputDir dir(*target);
    dir.write("cost.json", app::dump(app::cost::to_json(report)));
    dir.write("cost.csv", app::to_csv(app::cost::options_table(report)));
    dir.write("cost.md", md);
    dir.commit();
  }
  return kExitOk;
}

}  // namespace floorsim::cli
