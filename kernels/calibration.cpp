#include "kernels/calibration.hpp"

#include <omp.h>

#include <nlohmann/json.hpp>

#include "kernels/contention.hpp"  // cuda::device_available, device_name
#include "kernels/var_mc.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::kernels {

Calibration run_calibration(const CalibrationParams& p) {
  const VarPortfolio pf = VarPortfolio::synthetic(p.assets, p.options, 0.3, p.seed);
  Calibration c;
  c.paths = p.paths; c.assets = p.assets; c.options = p.options; c.seed = p.seed;
  VarResult r;
  const uint64_t warm = std::max<uint64_t>(1, p.paths / 16);  // first-touch, thread pool, GPU context
#if defined(FLOORSIM_HAVE_CUDA)
  if (cuda::device_available()) {
    c.device = "cuda:" + cuda::device_name();
    cuda::monte_carlo_var(pf, warm, p.seed + 1);
    r = cuda::monte_carlo_var(pf, p.paths, p.seed);
  } else
#endif
  {
    const int before = omp_get_max_threads();
    if (p.threads > 0) omp_set_num_threads(p.threads);
    c.device = "cpu-omp";
    c.threads = omp_get_max_threads();
    omp::monte_carlo_var(pf, warm, p.seed + 1);
    r = omp::monte_carlo_var(pf, p.paths, p.seed);
    omp_set_num_threads(before);
  }
  c.seconds = r.seconds;
  c.paths_per_s = r.paths_per_s();
  c.revaluations_per_s = c.paths_per_s * p.options;
  c.var_99 = r.var;
  c.value0 = r.value0;
  return c;
}

std::string calibration_json(const Calibration& c) {
  nlohmann::ordered_json j;
  j["device"] = c.device;
  j["threads"] = c.threads;
  j["paths"] = c.paths;
  j["assets"] = c.assets;
  j["options"] = c.options;
  j["seed"] = c.seed;
  j["seconds"] = c.seconds;
  j["paths_per_s"] = c.paths_per_s;
  j["revaluations_per_s"] = c.revaluations_per_s;
  j["var_99"] = c.var_99;
  j["portfolio_value"] = c.value0;
  return j.dump(2) + "\n";
}

Calibration load_calibration(const std::filesystem::path& path) {
  const std::string file = path.string();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(io::read_file(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(file, "", std::string("not valid JSON (") + e.what() + "); expected a calibration file");
  }
  if (!j.is_object()) throw InputError(file, "", "expected a JSON object written by 'floorsim calibrate'");
  auto num = [&](const char* key, bool positive) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number())
      throw InputError(file, std::string("/") + key, "missing or not a number; expected a number");
    const double v = it->get<double>();
    if (positive && !(v > 0)) throw InputError(file, std::string("/") + key, "must be > 0");
    return v;
  };
  Calibration c;
  const auto dev = j.find("device");
  if (dev == j.end() || !dev->is_string()) throw InputError(file, "/device", "missing or not a string; expected a string");
  c.device = dev->get<std::string>();
  c.threads = static_cast<int>(num("threads", false));
  c.paths = static_cast<uint64_t>(num("paths", true));
  c.assets = static_cast<uint32_t>(num("assets", true));
  c.options = static_cast<uint32_t>(num("options", true));
  c.seed = static_cast<uint64_t>(num("seed", false));
  c.seconds = num("seconds", true);
  c.paths_per_s = num("paths_per_s", true);
  c.revaluations_per_s = num("revaluations_per_s", true);
  c.var_99 = num("var_99", false);
  c.value0 = num("portfolio_value", false);
  return c;
}

}  // namespace floorsim::kernels
