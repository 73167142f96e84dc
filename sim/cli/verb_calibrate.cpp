// `floorsim calibrate --out calibration.json [--paths N --assets A --options O --seed S --threads T]`:
// runs the Monte Carlo VaR kernel (kernels/var_mc.hpp) on the device at hand (the GPU when built
// with FLOORSIM_CUDA=ON and one is present, else the CPU through Thrust's OMP backend) and writes
// its throughput atomically to a JSON file that the job runtime model reads
// (kernels::load_calibration -> revaluations_per_s).
#include <iostream>

#include "kernels/calibration.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_guard.hpp"

namespace floorsim::cli {

const VerbDoc kCalibrateDoc{
    .usage = "--out FILE [--paths N] [--assets N] [--options N] [--seed N] [--threads N] [--force]",
    .description =
        "Measure this machine's Monte Carlo VaR throughput (correlated GBM paths, every option revalued by "
        "Black-Scholes on every path, the loss quantile) on the GPU when built with CUDA and one is present, else on "
        "the CPU through Thrust's OpenMP backend, and write paths/s and revaluations/s to a JSON file. A scenario's "
        "job runtime model reads that file to turn a VaR job's paths into seconds.",
    .placeholders = {{"out", "FILE"}, {"paths", "N"}, {"assets", "N"}, {"options", "N"}, {"seed", "N"}, {"threads", "N"}},
    .examples = {{"floorsim calibrate --out calibration.json", "the default portfolio on every CPU core (or the GPU)"},
                 {"floorsim calibrate --out cal.json --paths 100000 --assets 32 --threads 2",
                  "a larger portfolio on two threads"}},
};

int verb_calibrate(const Args& args) {
  kernels::CalibrationParams p;
  std::string out;
  po::options_description opt;
  opt.add_options()
      ("out,o", po::value(&out), std::string("calibration JSON to write (required)").append(kFileOutRule).c_str())
      ("paths", count_value(&p.paths, uint64_t{1})->default_value(p.paths), "Monte Carlo paths")
      ("assets", count_value(&p.assets, 1u, 64u)->default_value(p.assets), "correlated GBM assets (1..64)")
      ("options", count_value(&p.options, 1u)->default_value(p.options), "European options in the portfolio, revalued by Black-Scholes on every path")
      ("seed", count_value(&p.seed, uint64_t{0})->default_value(p.seed), "random seed (portfolio and paths)")
      ("threads", count_value(&p.threads, 0)->default_value(p.threads), "CPU threads for the OMP backend (0 = all)");
  bool force = false;
  add_force_option(opt, &force);
  po::positional_options_description pos;
  po::variables_map vm;
  if (!parse(args, "calibrate", kCalibrateDoc, opt, pos, vm))
    return kExitOk;
  if (out.empty()) throw UsageError("missing --out FILE");
  const io::OutTarget target = io::check_output({out, io::OutKind::File, "calibrate", force, {}});
  const kernels::Calibration c = kernels::run_calibration(p);
  io::write_output_file(target, kernels::calibration_json(c));
  std::cout << "calibrate: " << c.device << (c.threads ? " (" + std::to_string(c.threads) + " threads)" : "") << ": "
            << c.paths_per_s << " paths/s, " << c.revaluations_per_s << " revaluations/s, VaR99 " << c.var_99
            << " -> " << out << "\n";
  return kExitOk;
}

}  // namespace floorsim::cli
