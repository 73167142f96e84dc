#include "sim/app/capacity_block.hpp"

#include <cmath>

#include <fmt/format.h>

#include "sim/core/config_spec.hpp"
#include "traces/synthetic.hpp"

namespace floorsim::app {

bool block_duration_sold(int64_t days) {
  if (days >= 1 && days <= 14) return true;
  return days > 14 && days <= kBlockMaxDays && days % 7 == 0;
}

std::optional<int64_t> shortest_block_days(double window_s) {
  auto days = static_cast<int64_t>(std::ceil(window_s / 86400.0 - 1e-9));
  if (days < 1) days = 1;
  if (days > 14) days = (days + 6) / 7 * 7;
  if (days > kBlockMaxDays) return std::nullopt;
  return days;
}

void check_capacity_block(const nlohmann::json& b, const std::string& ptr, const std::string& file) {
  const double from = b["from_s"], to = b["to_s"];
  if (to <= from) cfg::fail(file, cfg::child(ptr, "to_s"), "the window ends before it starts; expected to_s > from_s");
  if (b["nodes"].get<int64_t>() > kBlockMaxInstances)
    cfg::fail(file, cfg::child(ptr, "nodes"),
              fmt::format("{} instances in one capacity block; expected 1 to {} (EC2 Capacity Blocks for ML: up to 64 "
                          "instances per block; split it into several blocks)",
                          b["nodes"].get<int64_t>(), kBlockMaxInstances));
  if (const double ahead = b["booked_ahead_s"]; ahead > kBlockMaxAheadS)
    cfg::fail(file, cfg::child(ptr, "booked_ahead_s"),
              fmt::format("booked {:.1f} weeks ahead; expected at most 8 weeks ({} s): Capacity Blocks are sold up to "
                          "eight weeks in advance",
                          ahead / (7 * 86400.0), kBlockMaxAheadS));
  const double window = to - from;
  if (b["duration_days"].is_null()) {
    if (!shortest_block_days(window))
      cfg::fail(file, cfg::child(ptr, "to_s"),
                fmt::format("a window of {:.1f} days; expected at most {} days (the longest Capacity Block)",
                            window / 86400.0, kBlockMaxDays));
    return;
  }
  const int64_t days = b["duration_days"];
  if (!block_duration_sold(days))
    cfg::fail(file, cfg::child(ptr, "duration_days"),
              fmt::format("{} days is not a duration sold; expected 1 to 14 days in 1-day steps, or 21 to 182 "
                          "days in 7-day steps (EC2 Capacity Blocks for ML)",
                          days));
  if (window > static_cast<double>(days) * 86400.0)
    cfg::fail(file, cfg::child(ptr, "to_s"),
              fmt::format("the window (to_s - from_s = {} s) is longer than the block's {} days; expected a window "
                          "inside the block",
                          window, days));
}

int64_t capacity_block_days(const nlohmann::json& b) {
  if (!b["duration_days"].is_null()) return b["duration_days"].get<int64_t>();
  return shortest_block_days(b["to_s"].get<double>() - b["from_s"].get<double>()).value_or(kBlockMaxDays);
}

bool capacity_block_had(uint64_t seed, size_t index, double unavailable_probability) {
  if (unavailable_probability <= 0) return true;
  traces::Rng rng(seed, 7000003 + index);  // a stream of its own: the workload's draws are unchanged
  return rng.uniform() >= unavailable_probability;
}

}  // namespace floorsim::app
