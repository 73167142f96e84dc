#pragma once
// Capacity blocks as the cloud sells them (Amazon EC2 Capacity Blocks for ML, "Find and purchase
// Capacity Blocks", docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-purchase.html):
// 1 to 64 instances per block; durations in 1-day steps up to 14 days, then 7-day steps up to
// 182 days; booked up to eight weeks ahead (ec2-capacity-blocks.html). A scenario's block is a
// window of extra nodes (from_s..to_s) inside a block bought for `duration_days`; it may also
// not be had on the night (`unavailable_probability`, drawn from the scenario seed).
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace floorsim::app {

inline constexpr int64_t kBlockMaxInstances = 64;
inline constexpr int64_t kBlockMaxDays = 182;
inline constexpr double kBlockMaxAheadS = 8 * 7 * 86400.0;  // eight weeks

// True when `days` is a duration the cloud sells: 1..14, or a multiple of 7 up to 182.
bool block_duration_sold(int64_t days);

// The shortest sold duration covering `window_s` seconds; nullopt above 182 days.
std::optional<int64_t> shortest_block_days(double window_s);

// Checks one resolved capacity_blocks entry against the rules above; throws InputError naming
// `ptr`'s offending child.
void check_capacity_block(const nlohmann::json& block, const std::string& ptr, const std::string& file);

// The block's duration in days: as given, or the shortest sold one covering its window.
int64_t capacity_block_days(const nlohmann::json& block);

// Whether block `index` is had on the night: one uniform draw from the scenario seed on its own
// stream, compared with unavailable_probability (0: always had, without a draw).
bool capacity_block_had(uint64_t seed, size_t index, double unavailable_probability);

}  // namespace floorsim::app
