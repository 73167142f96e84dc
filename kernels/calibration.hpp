#pragma once
// `floorsim calibrate`: run the Monte Carlo VaR kernel on the device at hand (CUDA when built
// with it and a GPU is present, else the OMP backend on the CPU threads) and record its
// throughput; the job runtime model reads revaluations_per_s as device_revaluations_per_s.
#include <cstdint>
#include <filesystem>
#include <string>

namespace floorsim::kernels {

struct CalibrationParams {
  uint64_t paths = 200000;
  uint32_t assets = 16;
  uint32_t options = 64;
  uint64_t seed = 1;
  int threads = 0;  // OMP threads; 0 = all available
};

struct Calibration {
  std::string device;          // "cpu-omp" or "cuda:<name>"
  int threads = 0;             // OMP threads used (0 for CUDA)
  uint64_t paths = 0;
  uint32_t assets = 0, options = 0;
  uint64_t seed = 0;
  double seconds = 0;
  double paths_per_s = 0;
  double revaluations_per_s = 0;  // option revaluations (one Black-Scholes each) per second
  double var_99 = 0, value0 = 0;
};

Calibration run_calibration(const CalibrationParams& p);
std::string calibration_json(const Calibration& c);  // pretty JSON, trailing newline
// Throws InputError(path, JSON pointer, ...) on a missing/ill-typed field.
Calibration load_calibration(const std::filesystem::path& path);

}  // namespace floorsim::kernels
