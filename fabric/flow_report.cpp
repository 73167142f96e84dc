// flows.csv and links.csv beside the sign-off pack, and the bottleneck links it names: one
// profile's healthy run under the scenario's routing, flow by flow and link by link.
#include "fabric/flow_report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "sim/core/io.hpp"

namespace floorsim::fabric {

using json = nlohmann::json;

namespace {

// Appends straight into the table (no string per field, no format string to parse: the
// tables run to millions of rows).
void put_uint(std::string& out, uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void put_node(std::string& out, const Topology& t, uint64_t node) {
  const uint32_t l = t.node_level(node);
  if (l == 0) {
    out += "host";
    put_uint(out, node);
    return;
  }
  out += 'L';
  put_uint(out, l);
  out += ':';
  put_uint(out, node - t.level_base[l]);
}

// "PROFILE,LINK,FROM,TO,TIER": the link columns the link tables start with.
void put_link_columns(std::string& out, const Topology& t, const std::string& profile, uint32_t l) {
  out += profile;
  out += ',';
  put_uint(out, l);
  out += ',';
  put_node(out, t, t.link_from[l]);
  out += ',';
  put_node(out, t, t.link_to[l]);
  out += ',';
  put_uint(out, t.link_tier[l]);
}

void put_link(std::string& out, const Topology& t, uint32_t l) {
  put_node(out, t, t.link_from[l]);
  out += '>';
  put_node(out, t, t.link_to[l]);
}

std::string link_name(const Topology& t, uint32_t l) {
  std::string out;
  put_link(out, t, l);
  return out;
}

// The nodes a flow visits, "host3>L1:1>L2:2>L1:5>host9".
void put_path(std::string& out, const Topology& t, const FlowSet& s, uint32_t f) {
  const uint32_t b = s.flow_offsets[f], e = s.flow_offsets[f + 1];
  if (b == e) return;
  put_node(out, t, t.link_from[s.flow_links[b]]);
  for (uint32_t i = b; i < e; ++i) {
    out += '>';
    put_node(out, t, t.link_to[s.flow_links[i]]);
  }
}

// The tables' number format, printf's "%.9g" (std::to_chars with a precision is specified to
// print exactly that, and is several times faster than fmt's "{:.9g}").
void put_num(std::string& out, double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 9);
  out.append(buf, r.ptr);
}

// Room for `bytes` more, growing at least twofold: the tables run to hundreds of MB, and
// doubling from a small string moves each one a dozen times, every move into fresh pages the
// kernel must fault in first. `bytes` is an upper bound of what is appended next; reserved
// pages never written cost nothing.
void reserve_more(std::string& out, size_t bytes) {
  const size_t need = out.size() + bytes;
  if (need > out.capacity()) out.reserve(std::max(need, 2 * out.capacity()));
}

// Upper bounds of a row's bytes besides the profile name: a node name is at most 43 bytes
// ("L" + level + ":" + index), a number 24 (shortest round trip) or 16 ("%.9g").
constexpr size_t kLinkColumnsBytes = 3 + 20 + 2 * 43 + 20 + 8;
constexpr size_t kNumBytes = 25;
constexpr size_t kNodeBytes = 44;

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
  reserve_more(out, det.trace.link_segments.size() * (p.size() + kLinkColumnsBytes + 5 * kNumBytes));
  // Times and loads in full (shortest round-trip form): the segments must add up to links.csv's bytes.
  for (const auto& g : det.trace.link_segments) {
    const uint32_t l = g.link;
    put_link_columns(out, t, p, l);
    // A compiled format: the same "{}" text, without parsing the format string per row.
    char buf[96];
    out.append(buf, fmt::format_to(buf, FMT_COMPILE(",{},{},{},"), g.from_s, g.to_s, g.bytes_per_s * 8 / 1e9));
    put_num(out, g.bytes_per_s / t.link_capacity_bytes_per_s[l]);
    out += g.bottleneck ? ",1\n" : ",0\n";
  }
}

void append_flows_csv(std::string& out, const Topology& t, const std::string& profile, const std::vector<Demand>& d,
                      const TrafficDetail& det) {
  const auto& s = det.routed.set;
  const std::string p = io::csv_field(profile);
  reserve_more(out, s.flows() * (p.size() + 12 * kNumBytes + 2 * kNodeBytes) + s.flow_links.size() * kNodeBytes);
  for (uint32_t f = 0; f < s.flows(); ++f) {
    const uint32_t di = det.routed.flow_demand[f];
    const double start = d[di].start_s, end = det.completion.finish_s[f], dur = end - start;
    const uint32_t bl = det.trace.flow_bottleneck.empty() ? MaxMinSolver::kNoLink : det.trace.flow_bottleneck[f];
    out += p;
    for (uint64_t v : {uint64_t{di}, uint64_t{d[di].src}, uint64_t{d[di].dst}}) {
      out += ',';
      put_uint(out, v);
    }
    out += ',';
    for (double v : {s.flow_size_bytes[f], start, end, dur}) {
      put_num(out, v);
      out += ',';
    }
    if (dur > 0) put_num(out, s.flow_size_bytes[f] * 8 / 1e9 / dur);
    out += ',';
    if (bl != MaxMinSolver::kNoLink) put_link(out, t, bl);
    out += ',';
    put_path(out, t, s, f);
    out += '\n';
  }
  // A demand with no path never completes: a row with no end, so it cannot be overlooked.
  for (size_t di = 0; di < d.size(); ++di)
    if (!det.routed.demand_routed[di])
      fmt::format_to(std::back_inserter(out), "{},{},{},{},{:.9g},{:.9g},,,,,disconnected\n", p, di, d[di].src, d[di].dst,
                     d[di].bytes, d[di].start_s);
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
  size_t rows = 0;
  for (uint32_t l = 0; l < t.links(); ++l) rows += c.link_bytes[l] > 0;
  reserve_more(out, rows * (p.size() + kLinkColumnsBytes + 8 * kNumBytes));
  for (uint32_t l = 0; l < t.links(); ++l) {
    if (c.link_bytes[l] <= 0) continue;
    const double cap = t.link_capacity_bytes_per_s[l];
    const bool bottleneck = det.trace.link_saturated_s[l] > 0 && limited[l] > 0;
    put_link_columns(out, t, p, l);
    for (double v : {cap * 8 / 1e9, c.link_bytes[l], window, window > 0 ? c.link_bytes[l] / (cap * window) : 0,
                     det.trace.link_peak_bytes_per_s[l] / cap, det.trace.link_saturated_s[l]}) {
      out += ',';
      put_num(out, v);
    }
    out += ',';
    put_uint(out, limited[l]);
    out += bottleneck ? ",1\n" : ",0\n";
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
