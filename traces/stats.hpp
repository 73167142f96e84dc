#pragma once
// Summary statistics of a read trace, for `floorsim trace stats` (text or JSON).
#include <array>
#include <string>

#include "traces/trace.hpp"

namespace floorsim::traces {

struct Summary {
  double mean = 0, median = 0;
  size_t count = 0;  // values summarized
};

struct TraceStats {
  ReadReport report;
  size_t jobs = 0;
  double first_submit_s = 0, last_submit_s = 0;  // span = last - first (0 when no jobs)
  // Jobs by GPU count: 0 (CPU-only, when kept), 1, 2, 3-4, 5-8, >8. Fractional shares count as 1.
  static constexpr std::array<const char*, 6> kGpuBuckets = {"0", "1", "2", "3-4", "5-8", ">8"};
  std::array<size_t, 6> gpu_hist{};
  size_t fractional_gpu_jobs = 0;  // gpu_milli > 0
  double gpu_s = 0;                // sum of gpus * runtime_s (fractional shares as gpu_milli/1000)
  Summary runtime_s;
  Summary wait_s;  // recorded_start_s - submit_s over jobs with a recorded start
};

TraceStats compute_stats(const TraceData& data);
std::string format_stats_text(const TraceStats& s);
std::string format_stats_json(const TraceStats& s);  // pretty-printed, keys in a fixed order

}  // namespace floorsim::traces
