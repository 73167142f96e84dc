// floorsim rehearse [SCENARIO]: the night rehearsal. Exit 0 when every criterion
// holds, 1 when one fails, 2 on bad input.
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "sim/app/inputs.hpp"
#include "sim/app/rehearse.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"
#include "sim/core/output_guard.hpp"
#include "sim/core/warnings.hpp"

namespace floorsim::cli {

const VerbDoc kRehearseDoc{
    .usage = "[SCENARIO.json] [--out DIR] [--growth] [--force] [--print-default] [--progress WHEN] [--quiet]",
    .description =
        "Rehearse a night before it happens: replay every class at peak (VaR and end-of-day batches with deadlines, "
        "the intraday stream, training gangs, backtests) with a node failure part-way through, and judge it: do "
        "deadline floors fit the cluster, does each batch finish with margin, does intraday p99 wait hold, does "
        "preemption cascade, did any policy change skip its sign-off. Each failed criterion names the layer to fix "
        "(floor, isolation, slack, governance). Without a file it runs the built-in quant night. --growth then "
        "searches the largest load growth at which every criterion still holds.",
    .placeholders = {{"scenario", "FILE"}, {"out", "DIR"}, {"progress", "WHEN"}},
    .examples = {{"floorsim rehearse --out out/rehearse --growth",
                  "the built-in quant night, its verdict, and how much more load it absorbs"},
                 {"floorsim rehearse examples/rehearse-no-pool.json --out out/no-pool",
                  "the same night with nothing held back for intraday: it fails and names the isolation layer"}},
};

int verb_rehearse(const Args& args) {
  po::options_description opts;
  std::string scenario, out, progress;
  bool growth = false, quiet = false, print_default = false, force = false;
  opts.add_options()("scenario", po::value(&scenario)->default_value(""), "scenario JSON file (empty = the built-in quant night)")
      ("out,o", po::value(&out)->default_value("out"), std::string("output directory: run's four files plus verdict.json").append(kDirOutRule).c_str())
      ("growth", po::bool_switch(&growth)->default_value(false),
       "also search (bisection on workload.synthetic.load_multiplier) the largest growth at which every criterion holds")
      ("print-default", po::bool_switch(&print_default)->default_value(false), "print the built-in quant night scenario and exit")
      ("quiet,q", po::bool_switch(&quiet)->default_value(false), "print nothing; only the exit code");
  add_progress_option(opts, &progress);
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse(args, "rehearse", kRehearseDoc, opts, pos, vm)) return kExitOk;
  std::ostream* const progress_out = progress_stream(progress, quiet);
  if (print_default) {
    std::cout << app::dump(app::default_night());
    return kExitOk;
  }
  app::json doc;
  std::string file = "<built-in quant night>", base = ".";
  if (scenario.empty()) {
    doc = app::default_night();
  } else {
    file = scenario;
    doc = app::parse_json_text(io::read_file(scenario), scenario);
    base = std::filesystem::path(scenario).parent_path().string();
    if (base.empty()) base = ".";
  }
  // The rehearsal's warnings and the growth search's, each printed once when all is done.
  Warnings warnings;
  const app::Scenario sc = app::load_rehearsal(doc, file, base, 1.0, &warnings);
  auto inputs = app::scenario_inputs(doc, base);
  if (!scenario.empty()) inputs.push_back({scenario, false});
  const io::OutTarget target = io::check_output({out, io::OutKind::Directory, "rehearse", force, inputs});
  app::RunOptions ro;
  app::Progress bar(progress_out, "rehearse");
  ro.progress = &bar;
  ro.warnings = &warnings;
  const app::RunResult r = app::run_scenario(sc, ro);
  bar.finish();
  const app::Verdict v = app::judge(sc, r.metrics);
  app::json vj = app::to_json(v);
  app::Growth g;
  if (growth) {
    app::Progress growth_bar(progress_out, "growth");
    g = app::search_growth(doc, file, base, &growth_bar, &warnings);
    growth_bar.finish();
    vj["growth"] = app::to_json(g);
  }
  app::write_rehearsal_outputs(sc, r, vj, target);
  warnings.print();
  if (!quiet) {
    std::cout << fmt::format("rehearsal {} under {}{}: {} jobs, {} node failure events\n", r.metrics["scenario"].get<std::string>(),
                             r.metrics["scheduler"].get<std::string>(), sc.resolved["idle_pool"].is_null() ? "" : " + idle_pool",
                             r.metrics["jobs"].get<size_t>(), sc.node_events.size());
    std::cout << app::verdict_table(v);
    if (growth) {
      if (g.max_ok <= 0)
        std::cout << fmt::format("growth headroom: none (a criterion fails at the current load: {} -> {})\n", g.first_fail_criterion,
                                 g.first_fail_layer);
      else if (!std::isfinite(g.first_fail))
        std::cout << fmt::format("growth headroom: at least x{:.2f} (every criterion holds up to growth_max; {} runs)\n", g.max_ok, g.runs);
      else
        std::cout << fmt::format("growth headroom: x{:.2f} (+{:.0f}% load; at x{:.2f} first fails: {} -> layer {}; tolerance {}, {} runs)\n",
                                 g.max_ok, (g.max_ok - 1) * 100, g.first_fail, g.first_fail_criterion, g.first_fail_layer, g.tolerance, g.runs);
    }
    std::cout << "wrote " << out << "/{metrics.json,jobs.csv,timeline.csv,scenario.resolved.json,verdict.json}\n";
  }
  return v.pass() ? kExitOk : kExitCheckFailed;
}

}  // namespace floorsim::cli
