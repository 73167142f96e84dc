#pragma once
// Per-flow and per-link tables of a profile's run (flows.csv, links.csv beside the sign-off
// pack), and the bottleneck links the pack names.
//
// flows.csv: one row per solved flow (ideal split: per sub-flow) and one per disconnected
// demand (no end, path "disconnected"); mean_gbps = bytes / duration; bottleneck_link = the
// link whose max-min share limited the flow for its longest stretch.
// links.csv: one row per link that carried bytes: mean utilisation over the profile's window
// (first arrival to last departure), peak utilisation, the time it was full (saturated_s), the
// flows it limited, and the bottleneck flag (full at some time and limiting some flow).
// links_over_time.csv: each link's load as piecewise-constant segments between solver events
// (an arrival or a departure that changed the link's load; consecutive events with the same load
// merged; not fixed bins), with utilisation = load / capacity and the bottleneck flag of the
// segment (full, and limiting at least one flow through it). A link carries nothing outside its
// segments.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fabric/signoff.hpp"

namespace floorsim::fabric {

const char* flows_csv_header();
const char* links_csv_header();
const char* links_over_time_csv_header();
void append_flows_csv(std::string& out, const Topology& t, const std::string& profile, const std::vector<Demand>& d,
                      const TrafficDetail& det);
void append_links_csv(std::string& out, const Topology& t, const std::string& profile, const TrafficDetail& det);
void append_links_over_time_csv(std::string& out, const Topology& t, const std::string& profile,
                                const TrafficDetail& det);
// The links that limited the most flows (then the longest full), at most `top`, and how many more.
nlohmann::json bottleneck_links_json(const Topology& t, const TrafficDetail& det, size_t top);

}  // namespace floorsim::fabric
