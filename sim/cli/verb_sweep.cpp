// floorsim sweep SWEEP.json --out DIR / floorsim merge OUT SHARD_DIR.... The work is
// in sim/app/sweep.{hpp,cpp}; this file maps flags onto it.
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "sim/app/inputs.hpp"
#include "sim/app/sweep.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_guard.hpp"

namespace floorsim::cli {

const VerbDoc kSweepDoc{
    .usage = "SWEEP.json --out DIR [--threads N] [--resume] [--force] [--shard I/N] [--progress WHEN] [--quiet]",
    .description =
        "Run many scenarios: a base (a scenario file or the built-in rehearsal) and axes that each set one field by "
        "JSON pointer, combined as a grid, a list or a Latin hypercube. Every point is validated before anything "
        "runs; points run on threads and results.jsonl/results.csv are byte-identical whatever the thread count or "
        "sharding. --resume continues an interrupted sweep; --shard i/N runs one slice, e.g. one Slurm job-array "
        "task (join the slices with `floorsim merge`). A fabric sweep routes every variant through one batch kernel "
        "call.",
    .placeholders = {{"sweep", "FILE"}, {"out", "DIR"}, {"threads", "N"}, {"shard", "I/N"}, {"progress", "WHEN"}},
    .examples = {{"floorsim sweep examples/sweeps/quant-night-lhs.json --out out/lhs --threads 2",
                  "a Latin hypercube over floors, backfill window and load of the quant night"},
                 {"floorsim sweep examples/sweeps/quant-night.json --out out/s0 --shard 0/4 --resume",
                  "slice 0 of 4, continuing where a killed run stopped"}},
};

const VerbDoc kMergeDoc{
    .usage = "OUT SHARD_DIR... [--force] [--quiet]",
    .description =
        "Join the outputs of `floorsim sweep --shard i/N` into one sweep directory, identical to an unsharded run. "
        "Exit 2, naming the shard, when a point is missing or appears twice.",
    .placeholders = {{"out", "DIR"}, {"shards", "DIR..."}},
    .examples = {{"floorsim merge out/sweep out/s0 out/s1 out/s2 out/s3", "join four shards"},
                 {"floorsim merge out/sweep out/shard-* -q", "join every shard, no summary"}},
};

namespace {

// An axis whose values change no result is a trap (a field another input overrides, or one
// nothing reads): said on stderr, as sweep.json's "changes_results": false says it in the files.
void warn_no_effect(const std::string& axis, bool shard) {
  std::cerr << fmt::format("floorsim: warning: sweep axis {} changes no result{}: every group of points that differ only in it has "
                           "identical metrics, verdict and errors (is the field overridden, e.g. by a slurm.conf key, or read by nothing?)\n",
                           axis, shard ? " in this shard" : "");
}

}  // namespace

int verb_sweep(const Args& args) {
  po::options_description opts;
  std::string file, out, shard, progress;
  unsigned threads = 0;
  bool resume = false, quiet = false, force = false;
  opts.add_options()("sweep", po::value(&file)->required(), "sweep JSON file (base scenario + axes)")
      ("out,o", po::value(&out)->required(),
       std::string("output directory: sweep.json, results.jsonl, results.csv (required); one that holds sweep results needs --resume or --force")
           .append(kDirOutRule).c_str())
      ("threads,j", count_value(&threads, 0u)->default_value(0), "worker threads (0 = one per core)")
      ("resume", po::bool_switch(&resume)->default_value(false),
       "continue the sweep already in --out: points complete there are skipped (a torn last line is dropped) (off)")
      ("shard", po::value(&shard)->default_value("0/1"),
       "run slice i of N (0-based: i in 0..N-1; point p belongs to shard p mod N); for Slurm job arrays "
       "--array=0-(N-1) with --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT")
      ("quiet,q", po::bool_switch(&quiet)->default_value(false), "print no summary (off)");
  add_progress_option(opts, &progress);
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("sweep", 1);
  po::variables_map vm;
  if (!parse(args, "sweep", kSweepDoc, opts, pos, vm)) return kExitOk;
  app::sweep::RunOptions ro;
  try {
    ro.shard = app::sweep::parse_shard(shard);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  app::Progress bar(progress_stream(progress, quiet), "sweep");
  ro.threads = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  ro.resume = resume;
  ro.progress = &bar;
  const app::sweep::SweepSpec s = app::sweep::load_sweep_file(file);  // validates every point first
  const io::OutTarget target = io::check_output({out, io::OutKind::Directory, "sweep", force, app::sweep_inputs(s)});
  s.warnings.print();  // once for the sweep, not once per point
  const app::sweep::Summary sum = app::sweep::run_sweep(s, target, ro);
  for (const auto& w : sum.warnings) std::cerr << "floorsim: warning: " << w << "\n";
  for (const auto& a : sum.no_effect_axes) warn_no_effect(a, ro.shard.count > 1);
  if (!quiet) {
    std::cout << fmt::format("sweep {} ({} {}, {}): {} points", s.name, s.kind, s.mode,
                             s.kind == "fabric" ? "one batch contention call + one batch job-runtime call" : fmt::format("{} threads", ro.threads), sum.points);
    if (ro.shard.count > 1) std::cout << fmt::format(", shard {}/{} holds {}", ro.shard.index, ro.shard.count, sum.in_shard);
    std::cout << fmt::format("; ran {} ({:.3g}/s), already done {}", sum.ran, sum.wall_s > 0 ? sum.ran / sum.wall_s : 0.0,
                             sum.already_done);
    if (s.rehearse) std::cout << fmt::format(", verdict failed in {}", sum.verdict_fail);
    if (sum.errors) std::cout << fmt::format(", {} points failed to run (\"error\" in their line)", sum.errors);
    std::cout << "\nwrote " << out << "/{sweep.json,results.jsonl,results.csv}\n";
  }
  return sum.errors ? kExitCheckFailed : kExitOk;
}

int verb_merge(const Args& args) {
  po::options_description opts;
  std::string out;
  std::vector<std::string> shards;
  bool quiet = false, force = false;
  opts.add_options()("out", po::value(&out)->required(), std::string("merged output directory").append(kDirOutRule).c_str())
      ("shards", po::value(&shards)->multitoken()->required(), "shard output directories (of floorsim sweep --shard i/N)")
      ("quiet,q", po::bool_switch(&quiet)->default_value(false), "print no summary (off)");
  add_force_option(opts, &force);
  po::positional_options_description pos;
  pos.add("out", 1).add("shards", -1);
  po::variables_map vm;
  if (!parse(args, "merge", kMergeDoc, opts, pos, vm)) return kExitOk;
  std::vector<io::OutInput> inputs;
  for (const auto& d : shards) inputs.push_back({d, true});
  std::vector<std::string> no_effect;
  const size_t n = app::sweep::merge_shards(io::check_output({out, io::OutKind::Directory, "merge", force, inputs}), shards, &no_effect);
  for (const auto& a : no_effect) warn_no_effect(a, false);
  if (!quiet) std::cout << fmt::format("merged {} shards: {} points, none missing or doubled; wrote {}/{{sweep.json,results.jsonl,results.csv}}\n",
                                       shards.size(), n, out);
  return kExitOk;
}

}  // namespace floorsim::cli
