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

int verb_calibrate(const Args& args) {
  kernels::CalibrationParams p;
  std::string out;
  po::options_description opt;
  opt.add_options()
      ("out,o", po::value(&out), std::string("calibration JSON to write (required)").append(kFileOutRule).c_str())
      ("paths", po::value(&p.paths)->default_value(p.paths), "Monte Carlo paths")
      ("assets", po::value(&p.assets)->default_value(p.assets), "correlated GBM assets (1..64)")
      ("options", po::value(&p.options)->default_value(p.options), "European options in the portfolio, revalued by Black-Scholes on every path")
      ("seed", po::value(&p.seed)->default_value(p.seed), "random seed (portfolio and paths)")
      ("threads", po::value(&p.threads)->default_value(p.threads), "CPU threads for the OMP backend (0 = all)");
  bool force = false;
  add_force_option(opt, &force);
  po::positional_options_description pos;
  po::variables_map vm;
  if (!parse(args, "calibrate", "--out calibration.json [--paths N --assets A --options O --seed S --threads T] [--force]", opt,
             pos, vm))
    return kExitOk;
  if (out.empty()) throw UsageError("missing --out FILE");
  if (p.paths < 1) throw UsageError("--paths must be >= 1");
  if (p.assets < 1 || p.assets > 64) throw UsageError("--assets must be in 1..64");
  if (p.options < 1) throw UsageError("--options must be >= 1");
  if (p.threads < 0) throw UsageError("--threads must be >= 0");
  const io::OutTarget target = io::check_output({out, io::OutKind::File, "calibrate", force, {}});
  const kernels::Calibration c = kernels::run_calibration(p);
  io::write_output_file(target, kernels::calibration_json(c));
  std::cout << "calibrate: " << c.device << (c.threads ? " (" + std::to_string(c.threads) + " threads)" : "") << ": "
            << c.paths_per_s << " paths/s, " << c.revaluations_per_s << " revaluations/s, VaR99 " << c.var_99
            << " -> " << out << "\n";
  return kExitOk;
}

}  // namespace floorsim::cli
