// `floorsim site import --slurm-conf FILE [--dump FILE] [--sacct FILE [--from T] [--to T]] -o FILE`:
// a scenario replaying a Slurm site's history under its own policy. The document is made by
// sim/app/site_import.cpp; this file maps the flags, checks the window and writes the file once
// the scenario it wrote loads and its model builds.
#include <filesystem>
#include <iostream>

#include "sim/app/inputs.hpp"
#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/app/site_import.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_guard.hpp"
#include "traces/window.hpp"

namespace floorsim::cli {

const VerbDoc kSiteDoc{
    .usage = "import --slurm-conf FILE [--dump FILE] [--sacct FILE [--from TIME] [--to TIME]] -o FILE [--force]",
    .description =
        "Write a scenario that replays a window of a Slurm site's history under the site's own policy. The "
        "scheduler is the slurm model read from the site's slurm.conf(5) and `sacctmgr dump` (sacctmgr(1): "
        "associations, QOS and their limits); the workload is the site's `sacct --parsable2` accounting (sacct(1)), "
        "the jobs submitted in [--from, --to); the cluster is the nodes slurm.conf declares. Jobs that were queued or "
        "running at --from are submitted at t = 0 with the run time they had left (a warning counts them); t = 0 is "
        "--from on the wall clock, so bf_resolution rounds as slurmctld's does. The scenario names the files by "
        "paths relative to its own folder; it is written only once it loads and its model builds, so `floorsim "
        "validate` and `floorsim run` take it as it is.",
    .placeholders = {{"action", "ACTION"}, {"slurm-conf", "FILE"}, {"dump", "FILE"}, {"sacct", "FILE"}, {"from", "TIME"},
                     {"to", "TIME"}, {"output", "FILE"}},
    .examples = {{"floorsim site import --slurm-conf examples/site/slurm.conf --dump examples/site/sacctmgr.dump "
                  "--sacct examples/site/sacct.log --from 2026-03-02T08:00:00 --to 2026-03-02T20:00:00 -o site.json",
                  "one working day of the bundled site, replayed under its slurm.conf and associations"},
                 {"floorsim site import --slurm-conf /etc/slurm/slurm.conf --dump kestrel.dump -o policy.json",
                  "the site's policy and nodes without a workload: add a trace or inline jobs, then `floorsim run`"}},
};

namespace {

void check_time(const std::string& flag, const std::string& value) {
  if (!value.empty() && !traces::parse_wall_time(value))
    throw UsageError("--" + flag + " is '" + value + "'; expected a time YYYY-MM-DDTHH:MM:SS as sacct prints it");
}

}  // namespace

int verb_site(const Args& args) {
  po::options_description opts;
  std::string action, out;
  app::SiteFiles f;
  bool force = false;
  opts.add_options()("action", po::value(&action), "import: write the scenario")
      ("slurm-conf", po::value(&f.slurm_conf), "the site's slurm.conf (required)")
      ("dump", po::value(&f.dump), "the site's `sacctmgr dump CLUSTER` output: accounts, users, QOS (none: no associations)")
      ("sacct", po::value(&f.sacct), "the site's `sacct --parsable2 --allusers` accounting (none: the scenario has no jobs yet)")
      ("from", po::value(&f.from), "replay jobs submitted from this time, YYYY-MM-DDTHH:MM:SS as sacct prints it (default: the first submit)")
      ("to", po::value(&f.to), "... and before this time (default: to the end of the accounting)")
      ("output,o", po::value(&out), std::string("the scenario file to write (required)").append(kFileOutRule).c_str());
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("action", 1);
  po::variables_map vm;
  if (!parse(args, "site", kSiteDoc, opts, pos, vm)) return kExitOk;
  if (action != "import") throw UsageError(action.empty() ? "missing action; expected 'import'" : "unknown action '" + action + "'; expected 'import'");
  if (f.slurm_conf.empty()) throw UsageError("missing --slurm-conf FILE");
  if (out.empty()) throw UsageError("missing -o FILE");
  if (f.sacct.empty() && (!f.from.empty() || !f.to.empty())) throw UsageError("--from and --to select jobs of --sacct; expected --sacct FILE too");
  check_time("from", f.from);
  check_time("to", f.to);
  if (!f.from.empty() && !f.to.empty() && *traces::parse_wall_time(f.to) <= *traces::parse_wall_time(f.from))
    throw UsageError("--to " + f.to + " is not after --from " + f.from + "; expected a window that ends after it starts");

  std::string dir = std::filesystem::path(out).parent_path().string();
  if (dir.empty()) dir = ".";
  std::vector<io::OutInput> inputs;
  for (const std::string* p : {&f.slurm_conf, &f.dump, &f.sacct})
    if (!p->empty()) inputs.push_back({*p, false});
  const io::OutTarget target = io::check_output({out, io::OutKind::File, "site", force, inputs});
  const app::json doc = app::site_scenario(f, dir);
  // What `validate` does, before anything is written: the files open, the scenario loads (the
  // trace and its window are read) and the model builds (slurm.conf and dump read against the
  // cluster and the jobs).
  app::Scenario sc;
  try {
    app::check_files_readable(doc, dir, out);
    sc = app::load_scenario(doc, out, dir);
    app::make_scheduler(sc);
  } catch (const InputError& e) {
    if (e.file() != out) throw;
    // An error against the document not written yet: say so (the pointer still shows which part).
    const std::string prefix = e.file() + (e.where().empty() ? "" : ":" + e.where()) + ": ";
    const std::string what = e.what();
    throw InputError(out, e.where(), what.substr(what.rfind(prefix, 0) == 0 ? prefix.size() : 0) + " (in the scenario site import would write; nothing written)");
  }
  io::write_output_file(target, app::dump(doc));
  std::cout << "wrote " << out << ": " << sc.workload.jobs.size() << " jobs on " << sc.cluster.nodes() << " nodes ("
            << sc.cluster.total_gpus() << " GPUs)\n";
  return kExitOk;
}

}  // namespace floorsim::cli
