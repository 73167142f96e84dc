#include "fabric/flow_inputs.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <optional>

#include <boost/tokenizer.hpp>
#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/input.hpp"

namespace floorsim::fabric {

using json = nlohmann::json;

// RFC 4180-style fields (quotes, "," separator) by Boost.Tokenizer.
std::vector<std::string> csv_fields(std::string_view line, const std::string& file, size_t line_no) {
  std::vector<std::string> out;
  try {
    boost::escaped_list_separator<char> sep('\0', ',', '"');
    std::string s(line);
    boost::tokenizer<boost::escaped_list_separator<char>> tok(s, sep);
    for (const auto& f : tok) {
      const size_t b = f.find_first_not_of(" \t"), e = f.find_last_not_of(" \t");
      out.push_back(b == std::string::npos ? "" : f.substr(b, e - b + 1));
    }
  } catch (const boost::escaped_list_error&) {
    throw InputError(file, std::to_string(line_no), "unterminated quote; expected a CSV record");
  }
  return out;
}

namespace {

std::optional<double> number(const std::string& s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<uint64_t> index(const std::string& s) {
  uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// One flow, checked against the topology; `fail(what)` throws naming where it was read.
template <class Fail>
void add_flow(const Topology& t, ExplicitFlows& out, uint64_t src, uint64_t dst, double bytes, double start_s,
              const std::vector<uint32_t>& ports, uint32_t tag, Fail fail) {
  if (src >= t.hosts()) fail(fmt::format("src {} is not a host; expected 0..{}", src, t.hosts() - 1));
  if (dst >= t.hosts()) fail(fmt::format("dst {} is not a host; expected 0..{}", dst, t.hosts() - 1));
  if (!(bytes > 0)) fail(fmt::format("bytes {}; expected a number > 0", bytes));
  if (!(start_s >= 0)) fail(fmt::format("start_s {}; expected a number >= 0", start_s));
  if (src == dst || t.nvlink_domain(src) == t.nvlink_domain(dst)) {
    ++out.not_fabric;
    return;
  }
  if (!ports.empty()) {
    const uint32_t L = lca_level(t, src, dst);
    if (ports.size() != L)
      fail(fmt::format("path has {} ports; expected {} (one per level up to the hosts' lowest common ancestor)",
                       ports.size(), L));
    for (uint32_t lb = 0; lb < L; ++lb)
      if (ports[lb] >= t.ports_up(lb))
        fail(fmt::format("path port {} at level {}; expected 0..{}", ports[lb], lb + 1, t.ports_up(lb) - 1));
  }
  Demand d{static_cast<uint32_t>(src), static_cast<uint32_t>(dst), bytes, start_s, tag};
  d.ports = ports;
  out.demands.push_back(std::move(d));
}

}  // namespace

ExplicitFlows read_flows_csv(const Topology& t, const std::string& file, const std::string& text, uint32_t tag) {
  ExplicitFlows out;
  input::LineSource src(file, text);
  std::string_view line;
  std::map<std::string, size_t> col;
  bool header = true;
  while (src.next(line)) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const auto f = csv_fields(line, file, src.line_no());
    const std::string at = std::to_string(src.line_no());
    if (header) {
      for (size_t i = 0; i < f.size(); ++i) {
        if (f[i] != "src" && f[i] != "dst" && f[i] != "bytes" && f[i] != "start_s" && f[i] != "path")
          throw InputError(file, at, fmt::format("unknown column \"{}\"; expected src, dst, bytes, start_s, path", f[i]));
        col[f[i]] = i;
      }
      for (const char* need : {"src", "dst", "bytes"})
        if (!col.count(need)) throw InputError(file, at, fmt::format("no \"{}\" column; expected a header src,dst,bytes[,start_s][,path]", need));
      header = false;
      continue;
    }
    if (f.size() != col.size())
      throw InputError(file, at, fmt::format("{} fields; expected {} (the header's columns)", f.size(), col.size()));
    auto fail = [&](const std::string& what) { throw InputError(file, at, what); };
    const auto s = index(f[col["src"]]), d = index(f[col["dst"]]);
    const auto b = number(f[col["bytes"]]);
    const auto st = col.count("start_s") ? number(f[col["start_s"]]) : std::optional<double>(0.0);
    if (!s || !d) fail("src and dst must be host indices (non-negative integers)");
    if (!b || !st) fail("bytes and start_s must be numbers");
    std::vector<uint32_t> ports;
    if (col.count("path") && !f[col["path"]].empty()) {
      const std::string& p = f[col["path"]];
      size_t q = 0;
      while (q <= p.size()) {
        size_t e = p.find('/', q);
        if (e == std::string::npos) e = p.size();
        const auto v = index(p.substr(q, e - q));
        if (!v) fail(fmt::format("path \"{}\"; expected up-ports separated by '/' (\"1/0/3\")", p));
        ports.push_back(static_cast<uint32_t>(*v));
        q = e + 1;
      }
    }
    add_flow(t, out, *s, *d, *b, *st, ports, tag, fail);
  }
  if (header) throw InputError(file, "1", "empty; expected a header src,dst,bytes[,start_s][,path] and flows");
  if (out.demands.empty() && out.not_fabric == 0) throw InputError(file, "2", "no flows; expected at least one");
  return out;
}

ExplicitFlows flows_from_json(const Topology& t, const json& arr, const std::string& ptr, const std::string& file,
                              uint32_t tag) {
  ExplicitFlows out;
  if (!arr.is_array() || arr.empty()) throw InputError(file, ptr, "expected a CSV file name or a non-empty array of flows");
  for (size_t i = 0; i < arr.size(); ++i) {
    const json& e = arr[i];
    const std::string p = ptr + "/" + std::to_string(i);
    auto fail = [&](const std::string& what) { throw InputError(file, p, what); };
    if (!e.is_object()) fail("expected a flow {\"src\", \"dst\", \"bytes\", \"start_s\", \"path\"}");
    for (auto it = e.begin(); it != e.end(); ++it)
      if (it.key() != "src" && it.key() != "dst" && it.key() != "bytes" && it.key() != "start_s" && it.key() != "path")
        throw InputError(file, p + "/" + it.key(), "unknown key; expected src, dst, bytes, start_s, path");
    auto uint_at = [&](const char* k) {
      if (!e.contains(k) || !e[k].is_number_unsigned()) fail(fmt::format("\"{}\" must be a host index", k));
      return e[k].get<uint64_t>();
    };
    const uint64_t s = uint_at("src"), d = uint_at("dst");
    if (!e.contains("bytes") || !e["bytes"].is_number()) fail("\"bytes\" must be a number");
    if (e.contains("start_s") && !e["start_s"].is_number()) fail("\"start_s\" must be a number");
    std::vector<uint32_t> ports;
    if (e.contains("path")) {
      if (!e["path"].is_array()) fail("\"path\" must be a list of up-ports");
      for (const auto& v : e["path"]) {
        if (!v.is_number_unsigned()) fail("\"path\" must be a list of up-ports (non-negative integers)");
        ports.push_back(v.get<uint32_t>());
      }
    }
    add_flow(t, out, s, d, e["bytes"].get<double>(), e.value("start_s", 0.0), ports, tag, fail);
  }
  return out;
}

std::vector<Measurement> read_measurements_csv(const std::string& file, const std::string& text) {
  std::vector<Measurement> out;
  input::LineSource src(file, text);
  std::string_view line;
  bool header = true;
  const std::vector<std::string> cols = {"what", "where", "measured", "unit", "modelled"};
  while (src.next(line)) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const auto f = csv_fields(line, file, src.line_no());
    const std::string at = std::to_string(src.line_no());
    if (header) {
      if (f != cols) throw InputError(file, at, "header; expected what,where,measured,unit,modelled");
      header = false;
      continue;
    }
    if (f.size() != cols.size()) throw InputError(file, at, fmt::format("{} fields; expected 5", f.size()));
    const auto v = number(f[2]);
    if (!v) throw InputError(file, at, fmt::format("measured \"{}\"; expected a number", f[2]));
    if (f[4].empty() || f[4][0] != '/')
      throw InputError(file, at, fmt::format("modelled \"{}\"; expected a JSON pointer into signoff.json (/traffic/0/...)", f[4]));
    out.push_back({f[0], f[1], f[3], f[4], *v, src.line_no()});
  }
  if (header) throw InputError(file, "1", "empty; expected the header what,where,measured,unit,modelled");
  return out;
}

json measured_json(const std::vector<Measurement>& ms, const json& pack, const std::string& file) {
  json out = json::array();
  for (const auto& m : ms) {
    json v;
    try {
      v = pack.at(json::json_pointer(m.modelled));
    } catch (const json::exception&) {
      v = nullptr;
    }
    if (!v.is_number())
      throw InputError(file, std::to_string(m.line),
                       fmt::format("modelled \"{}\" names no number in signoff.json; expected a pointer to a modelled figure",
                                   m.modelled));
    const double model = v.get<double>();
    out.push_back({{"what", m.what},
                   {"where", m.where},
                   {"measured", m.measured},
                   {"unit", m.unit},
                   {"modelled", m.modelled},
                   {"modelled_value", model},
                   {"measured_over_modelled", model != 0 ? json(m.measured / model) : json(nullptr)}});
  }
  return out;
}

}  // namespace floorsim::fabric
