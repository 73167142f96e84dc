// floorsim tune TUNE.json --out DIR: a seeded search over Slurm priority weights and backfill
// parameters, judged on a held-out part of the workload. The work is in sim/app/tune.{hpp,cpp}
// and sim/app/tune_search.cpp; this file maps flags onto it.
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "sim/app/inputs.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/tune.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_guard.hpp"

namespace floorsim::cli {

const VerbDoc kTuneDoc{
    .usage = "TUNE.json --out DIR [--threads N] [--force] [--quiet]",
    .description =
        "Search a Slurm scenario's multifactor priority weights (PriorityWeightAge, PriorityWeightFairshare, "
        "PriorityWeightJobSize, PriorityWeightPartition, PriorityWeightQOS, PriorityMaxAge; slurm.conf(5)) and "
        "backfill parameters (SchedulerParameters bf_window, bf_max_job_test, bf_interval, ...) for one objective: "
        "mean wait, makespan, a class's p99 wait or floor attainment. The search is seeded random sampling followed "
        "by coordinate refinement, run on threads; the same seed gives the same search and byte-identical output "
        "whatever --threads. Values are tuned on one part of the workload (jobs before holdout.split_at_s, or the "
        "base scenario) and reported on the other (the later jobs, or holdout.scenario) against the scenario's own "
        "values, the multifactor baseline. A key that the scenario's slurm.conf sets is refused: the file's keys win "
        "over the scheduler block, so tuning it would change nothing.",
    .placeholders = {{"tune", "FILE"}, {"out", "DIR"}, {"threads", "N"}},
    .examples = {{"floorsim tune examples/tune/weights.json --out out/tune --threads 2",
                  "tune age, job-size and fair-share weights, PriorityMaxAge and bf_window for mean wait on the first half of 1,034 jobs, judged on the second"},
                 {"floorsim tune examples/tune/makespan.json --out out/tune-makespan --threads 1 --force",
                  "the same search for makespan, on one thread: the same files as on two"}},
};

int verb_tune(const Args& args) {
  po::options_description opts;
  std::string file, out;
  unsigned threads = 0;
  bool quiet = false, force = false;
  opts.add_options()("tune", po::value(&file)->required(), "tune JSON file (base scenario, objective, parameters, held-out part)")
      ("out,o", po::value(&out)->required(),
       std::string("output directory: tune.json (search, baseline and tuned values, held-out figures), evaluations.csv (required)")
           .append(kDirOutRule).c_str())
      ("threads,j", count_value(&threads, 0u)->default_value(0), "worker threads (0 = one per core)")
      ("quiet,q", po::bool_switch(&quiet)->default_value(false), "print no summary (off)");
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("tune", 1);
  po::variables_map vm;
  if (!parse(args, "tune", kTuneDoc, opts, pos, vm)) return kExitOk;
  const app::tune::TuneSpec s = app::tune::load_tune_file(file);
  std::vector<io::OutInput> inputs = {{file, false}};
  for (const auto& in : app::scenario_inputs(s.base_doc, s.base_dir)) inputs.push_back(in);
  for (const auto& in : app::scenario_inputs(s.holdout_doc, s.holdout_dir)) inputs.push_back(in);
  inputs.push_back({s.base_file, false});
  inputs.push_back({s.holdout_file, false});
  const io::OutTarget target = io::check_output({out, io::OutKind::Directory, "tune", force, inputs});
  s.warnings.print();  // once for the tune, not once per evaluation
  app::tune::Options o;
  o.threads = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  const app::tune::Result r = app::tune::run_tune(s, o);
  for (const auto& w : r.warnings) std::cerr << "floorsim: warning: " << w << "\n";
  io::OutputDir dir(target);
  dir.write("tune.json", app::dump(r.doc));
  dir.write("evaluations.csv", r.csv);
  dir.commit();
  if (!quiet) std::cout << r.table << "wrote " << out << "/{tune.json,evaluations.csv}\n";
  return kExitOk;
}

}  // namespace floorsim::cli
