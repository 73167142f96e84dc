// flows.csv and links.csv beside the sign-off pack, and the bottleneck links it names: one
// profile's healthy run under the scenario's routing, flow by flow and link by link.
#include "fabric/flow_report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/core/io.hpp"

namespace floorsim::fabric {

using json = nlohmann::json;

namespace {

std::string link_name(const Topology& t, uint32_t l) {
  std::string out = t.node_name(t.link_from[l]);
  out += '>';
  out += t.node_name(t.link_to[l]);
  return out;
}

// The nodes a flow visits, "host3>L1:1>L2:2>L1:5>host9".
std::string path_of(const Topology& t, const FlowSet& s, uint32_t f) {
  const uint32_t b = s.flow_offsets[f], e = s.flow_offsets[f + 1];
  if (b == e) return "";
  std::string out = t.node_name(t.link_from[s.flow_links[b]]);
  for (uint32_t i = b; i < e; ++i) {
    out += '>';
    out += t.node_name(t.link_to[s.flow_links[i]]);
  }
  return out;
}

std::string num(double v) { return fmt::format("{:.9g}", v); }

}  // namespace

const char* flows_csv_header() {
  return "profile,demand,src,dst,bytes,start_s,end_s,duration_s,mean_gbps,bottleneck_link,path\n";
}

const char* links_csv_header() {
  return "profile,link,from,to,tier,capacity_gbps,bytes,window_s,mean_utilisation,peak_utilisation,saturated_s,"
         "flows_limited,bottleneck\n";
}

const char* links_over_time_csv_header() {
  return "profile,link,from,to,tier,from_s,to_s,gbps,utilisation,bottleneck\n";
}

void append_links_over_time_csv(std::string& out, const Topology& t, const std::string& profile,
                                const TrafficDetail& det) {
  const std::string p = io::csv_field(profile);
  // Times and loads in full (shortest round-trip form): the segments must add up to links.csv's bytes.
  for (const auto& g : det.trace.link_segments) {
    const uint32_t l = g.link;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", p, l, t.node_name(t.link_from[l]), t.node_name(t.link_to[l]),
                       t.link_tier[l], g.from_s, g.to_s, g.bytes_per_s * 8 / 1e9,
                       num(g.bytes_per_s / t.link_capacity_bytes_per_s[l]), g.bottleneck ? 1 : 0);
  }
}

void append_flows_csv(std::string& out, const Topology& t, const std::string& profile, const std::vector<Demand>& d,
                      const TrafficDetail& det) {
  const auto& s = det.routed.set;
  const std::string p = io::csv_field(profile);
  for (uint32_t f = 0; f < s.flows(); ++f) {
    const uint32_t di = det.routed.flow_demand[f];
    const double start = d[di].start_s, end = det.completion.finish_s[f], dur = end - start;
    const uint32_t bl = det.trace.flow_bottleneck.empty() ? MaxMinSolver::kNoLink : det.trace.flow_bottleneck[f];
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", p, di, d[di].src, d[di].dst, num(s.flow_size_bytes[f]),
                       num(start), num(end), num(dur), dur > 0 ? num(s.flow_size_bytes[f] * 8 / 1e9 / dur) : "",
                       bl == MaxMinSolver::kNoLink ? "" : link_name(t, bl), path_of(t, s, f));
  }
  // A demand with no path never completes: a row with no end, so it cannot be overlooked.
  for (size_t di = 0; di < d.size(); ++di)
    if (!det.routed.demand_routed[di])
      out += fmt::format("{},{},{},{},{},{},,,,,disconnected\n", p, di, d[di].src, d[di].dst, num(d[di].bytes),
                         num(d[di].start_s));
}

namespace {

std::vector<uint64_t> flows_limited(const TrafficDetail& det, size_t links) {
  std::vector<uint64_t> n(links, 0);
  for (uint32_t bl : det.trace.flow_bottleneck)
    if (bl != MaxMinSolver::kNoLink) ++n[bl];
  return n;
}

}  // namespace

void append_links_csv(std::string& out, const Topology& t, const std::string& profile, const TrafficDetail& det) {
  const auto& c = det.completion;
  if (det.trace.link_saturated_s.empty()) return;
  const double window = c.makespan_s - c.first_s;
  const auto limited = flows_limited(det, t.links());
  const std::string p = io::csv_field(profile);
  for (uint32_t l = 0; l < t.links(); ++l) {
    if (c.link_bytes[l] <= 0) continue;
    const double cap = t.link_capacity_bytes_per_s[l];
    const bool bottleneck = det.trace.link_saturated_s[l] > 0 && limited[l] > 0;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", p, l, t.node_name(t.link_from[l]),
                       t.node_name(t.link_to[l]), t.link_tier[l], num(cap * 8 / 1e9), num(c.link_bytes[l]), num(window),
                       num(window > 0 ? c.link_bytes[l] / (cap * window) : 0), num(det.trace.link_peak_bytes_per_s[l] / cap),
                       num(det.trace.link_saturated_s[l]), limited[l], bottleneck ? 1 : 0);
  }
}

json bottleneck_links_json(const Topology& t, const TrafficDetail& det, size_t top) {
  json out = json::array();
  if (det.trace.link_saturated_s.empty()) return out;
  const auto limited = flows_limited(det, t.links());
  std::vector<uint32_t> ls;
  for (uint32_t l = 0; l < t.links(); ++l)
    if (limited[l] > 0 && det.trace.link_saturated_s[l] > 0) ls.push_back(l);
  // Most flows limited first, then the longest saturated; link id breaks ties (deterministic).
  std::stable_sort(ls.begin(), ls.end(), [&](uint32_t a, uint32_t b) {
    if (limited[a] != limited[b]) return limited[a] > limited[b];
    return det.trace.link_saturated_s[a] > det.trace.link_saturated_s[b];
  });
  const size_t candidates = ls.size();
  if (ls.size() > top) ls.resize(top);
  for (uint32_t l : ls)
    out.push_back({{"link", link_name(t, l)},
                   {"tier", t.link_tier[l]},
                   {"flows_limited", limited[l]},
                   {"saturated_s", det.trace.link_saturated_s[l]}});
  if (candidates > top) out.push_back({{"more", candidates - top}});
  return out;
}

}  // namespace floorsim::fabric
