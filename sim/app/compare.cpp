#include "sim/app/compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "sim/app/scenario.hpp"
#include "sim/app/sweep.hpp"
#include "sim/core/config_spec.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::app::compare {

namespace fs = std::filesystem;
using cfg::fail;

double Tolerance::allowed(double baseline) const {
  double a = 0;
  if (abs >= 0) a = std::max(a, abs);
  if (rel >= 0) a = std::max(a, rel * std::fabs(baseline));
  return a;
}

namespace {

std::string pct(double r) { return fmt::format("{:g}%", r * 100); }

std::string tol_text(const Tolerance& t) {
  if (t.abs >= 0 && t.rel >= 0) return fmt::format("max({:g}, {})", t.abs, pct(t.rel));
  if (t.abs >= 0) return fmt::format("{:g}", t.abs);
  return pct(t.rel);
}

Tolerance parse_tol(const json& j, const std::string& file, const std::string& ptr) {
  if (!j.is_object()) fail(file, ptr, "expected an object {\"abs\": X, \"rel\": R}");
  Tolerance t;
  t.set = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string p = cfg::child(ptr, it.key());
    if (it.key() != "abs" && it.key() != "rel") fail(file, p, "unknown key; expected abs or rel");
    if (!it.value().is_number() || it.value().get<double>() < 0) fail(file, p, "expected a number >= 0");
    (it.key() == "abs" ? t.abs : t.rel) = it.value().get<double>();
  }
  if (t.abs < 0 && t.rel < 0) fail(file, ptr, "empty; expected abs and/or rel");
  return t;
}

std::string fmt_num(const json& v) {
  if (v.is_null()) return "-";
  const double d = v.get<double>();
  if (d == std::floor(d) && std::fabs(d) < 1e15) return fmt::format("{:.0f}", d);
  return fmt::format("{:.6g}", d);
}

// The value at `ptr`: number (bools as 0/1) or null; `found` false when absent.
json value_at(const json& doc, const std::string& ptr, bool& found) {
  found = false;
  try {
    const json::json_pointer jp(ptr);
    if (!doc.contains(jp)) return nullptr;
    found = true;
    const json& v = doc.at(jp);
    if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
    if (v.is_number()) return v.get<double>();
    return nullptr;
  } catch (const json::exception&) {
    return nullptr;
  }
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') o += ' ';
        else o += c;
    }
  }
  return o;
}

}  // namespace

std::string Band::describe() const {
  std::vector<std::string> parts;
  if (upper.set) parts.push_back("+" + tol_text(upper));
  if (lower.set) parts.push_back("-" + tol_text(lower));
  if (has_min) parts.push_back(fmt::format(">= {:g}", min));
  if (has_max) parts.push_back(fmt::format("<= {:g}", max));
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? " " : "") + parts[i];
  return s;
}

std::string to_pointer(const std::string& metric) {
  if (metric.empty() || metric[0] == '/') return metric;
  std::string p;
  size_t start = 0;
  while (true) {
    const size_t dot = metric.find('.', start);
    std::string tok = metric.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    std::string esc;
    for (char c : tok) esc += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
    p += "/" + esc;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return p;
}

std::vector<Band> load_bands_file(const std::string& path) {
  return parse_bands(parse_json_text(io::read_file(path), path), path);
}

std::vector<Band> parse_bands(const json& doc, const std::string& file) {
  if (!doc.is_object()) fail(file, "", "expected an object {\"bands\": [...]}");
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (it.key() != "bands" && it.key() != "description") fail(file, cfg::child("", it.key()), "unknown key; expected bands or description");
  if (!doc.contains("bands") || !doc["bands"].is_array() || doc["bands"].empty())
    fail(file, "/bands", "expected a non-empty array of bands");
  std::vector<Band> out;
  std::set<std::string> seen;
  for (size_t i = 0; i < doc["bands"].size(); ++i) {
    const json& j = doc["bands"][i];
    const std::string bp = cfg::child("/bands", i);
    if (!j.is_object()) fail(file, bp, "expected an object");
    Band b;
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      const std::string p = cfg::child(bp, k);
      if (k == "metric") {
        if (!it.value().is_string() || it.value().get<std::string>().empty()) fail(file, p, "expected a JSON pointer or dotted path");
        b.metric = it.value().get<std::string>();
        b.pointer = to_pointer(b.metric);
        try {
          json::json_pointer jp(b.pointer);
        } catch (const json::exception& e) {
          fail(file, p, std::string("is not a JSON pointer: ") + e.what());
        }
      } else if (k == "upper") {
        b.upper = parse_tol(it.value(), file, p);
      } else if (k == "lower") {
        b.lower = parse_tol(it.value(), file, p);
      } else if (k == "max" || k == "min") {
        if (!it.value().is_number()) fail(file, p, "expected a number");
        (k == "max" ? b.has_max : b.has_min) = true;
        (k == "max" ? b.max : b.min) = it.value().get<double>();
      } else if (k == "note") {
        if (!it.value().is_string()) fail(file, p, "expected a string");
      } else {
        fail(file, p, "unknown key; expected metric, upper, lower, max, min or note");
      }
    }
    if (b.metric.empty()) fail(file, cfg::child(bp, "metric"), "missing; expected the metric's JSON pointer or dotted path");
    if (!b.upper.set && !b.lower.set && !b.has_max && !b.has_min)
      fail(file, bp, "has no limit; expected upper, lower, max and/or min");
    if (b.has_max && b.has_min && b.min > b.max) fail(file, cfg::child(bp, "min"), "is above max; expected min <= max");
    if (!seen.insert(b.pointer).second) fail(file, cfg::child(bp, "metric"), "'" + b.metric + "' has two bands; expected one per metric");
    out.push_back(std::move(b));
  }
  return out;
}

Input load_input(const std::string& path) {
  Input in;
  fs::path p(path);
  if (fs::is_directory(p)) {
    if (fs::exists(p / "results.jsonl")) p /= "results.jsonl";
    else if (fs::exists(p / "metrics.json")) p /= "metrics.json";
    else throw InputError(path, "", "holds neither metrics.json nor results.jsonl; expected a run or sweep directory");
  }
  in.file = p.string();
  if (p.extension() == ".jsonl") {
    in.sweep = true;
    bool torn = false;
    for (auto& l : sweep::read_results(in.file, &torn)) {
      json doc = l.contains("metrics") ? l["metrics"] : json::object();
      if (l.contains("verdict")) doc["verdict"] = l["verdict"];
      in.sets.emplace_back(l["index"].get<size_t>(), std::move(doc));
    }
    if (torn) throw InputError(in.file, "", "ends in a torn line; expected a finished sweep");
    if (in.sets.empty()) throw InputError(in.file, "", "holds no result lines; expected a finished sweep");
    std::sort(in.sets.begin(), in.sets.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  } else {
    json doc = parse_json_text(io::read_file(p), in.file);
    if (!doc.is_object()) throw InputError(in.file, "", "expected a metrics.json object");
    in.sets.emplace_back(0, std::move(doc));
  }
  return in;
}

Result compare(const Input& base, const Input& cur, const std::vector<Band>& bands, const std::string& bands_file) {
  if (base.sweep != cur.sweep)
    throw InputError(cur.file, "", std::string("is a ") + (cur.sweep ? "sweep" : "single run") + " but the baseline " + base.file +
                                       " is not; expected two of the same kind");
  std::map<size_t, const json*> cur_by;
  for (const auto& [i, d] : cur.sets) cur_by[i] = &d;
  // A band on a metric the baseline lacks everywhere is a mistake in the bands file.
  for (size_t b = 0; b < bands.size(); ++b) {
    bool any = false;
    for (const auto& [i, d] : base.sets) {
      bool f = false;
      value_at(d, bands[b].pointer, f);
      any = any || f;
    }
    if (!any)
      fail(bands_file, cfg::child(cfg::child("/bands", b), "metric"), "'" + bands[b].metric + "' is not in the baseline " + base.file +
                                                                      "; expected a metric of metrics.json");
  }
  Result r;
  for (const auto& [idx, bdoc] : base.sets) {
    const auto cit = cur_by.find(idx);
    for (const auto& band : bands) {
      Row row;
      row.metric = base.sweep ? fmt::format("[{}] {}", idx, band.metric) : band.metric;
      row.band = band.describe();
      bool bf = false, cf = false;
      row.baseline = value_at(bdoc, band.pointer, bf);
      if (cit == cur_by.end()) {
        row.current = nullptr;
        row.pass = false;
        row.note = fmt::format("point {} missing from the current sweep", idx);
      } else {
        row.current = value_at(*cit->second, band.pointer, cf);
        if (!cf) {
          row.pass = false;
          row.note = "absent from the current metrics";
        } else if (row.current.is_null()) {
          // A figure that vanished (e.g. a deadline margin of a class that no longer finishes).
          row.pass = row.baseline.is_null();
          if (!row.pass) row.note = "was a number in the baseline, null now";
        } else {
          const double c = row.current.get<double>();
          std::vector<std::string> why;
          if (!row.baseline.is_null()) {
            const double b = row.baseline.get<double>();
            if (band.upper.set && c > b + band.upper.allowed(b))
              why.push_back(fmt::format("rose by {:g}, allowed {:g}", c - b, band.upper.allowed(b)));
            if (band.lower.set && c < b - band.lower.allowed(b))
              why.push_back(fmt::format("fell by {:g}, allowed {:g}", b - c, band.lower.allowed(b)));
          }
          if (band.has_max && c > band.max) why.push_back(fmt::format("{:g} above max {:g}", c, band.max));
          if (band.has_min && c < band.min) why.push_back(fmt::format("{:g} below min {:g}", c, band.min));
          if (!std::isfinite(c)) why.push_back("not finite");
          row.pass = why.empty();
          for (size_t k = 0; k < why.size(); ++k) row.note += (k ? "; " : "") + why[k];
        }
      }
      row.verdict = row.pass ? "pass" : "REGRESSION";
      if (!row.pass) ++r.failures;
      r.rows.push_back(std::move(row));
    }
  }
  return r;
}

std::string table(const Result& r) {
  size_t w = 6;
  for (const auto& row : r.rows) w = std::max(w, row.metric.size());
  std::string out = fmt::format("{:<{}}  {:>14}  {:>14}  {:>22}  {:<24}  {}\n", "metric", w, "baseline", "current", "change", "band", "verdict");
  for (const auto& row : r.rows) {
    std::string change = "-";
    if (row.baseline.is_number() && row.current.is_number()) {
      const double b = row.baseline.get<double>(), c = row.current.get<double>();
      change = fmt::format("{:+.6g}", c - b);
      if (b != 0) change += fmt::format(" ({:+.1f}%)", (c - b) / std::fabs(b) * 100);
    }
    out += fmt::format("{:<{}}  {:>14}  {:>14}  {:>22}  {:<24}  {}{}\n", row.metric, w, fmt_num(row.baseline), fmt_num(row.current), change,
                       row.band, row.verdict, row.note.empty() ? "" : "  (" + row.note + ")");
  }
  out += fmt::format("{}: {} of {} checks outside their band\n", r.failures ? "REGRESSION" : "PASS", r.failures, r.rows.size());
  return out;
}

std::string junit_xml(const Result& r, const std::string& suite_name) {
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += fmt::format("<testsuites name=\"floorsim compare\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n", r.rows.size(), r.failures);
  x += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n", xml_escape(suite_name),
                   r.rows.size(), r.failures);
  for (const auto& row : r.rows) {
    x += fmt::format("    <testcase classname=\"floorsim.compare\" name=\"{}\"", xml_escape(row.metric));
    const std::string detail = fmt::format("baseline {}, current {}, band {}", fmt_num(row.baseline), fmt_num(row.current), row.band);
    if (row.pass) {
      x += "/>\n";
    } else {
      x += fmt::format(">\n      <failure type=\"regression\" message=\"{}\">{}</failure>\n    </testcase>\n", xml_escape(row.note),
                       xml_escape(detail));
    }
  }
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

std::string junit_error_xml(const std::string& error, const std::string& suite_name) {
  // One failing test case: a CI server that reads this file shows the error instead of
  // "no test report found" when the gate could not read its inputs.
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += "<testsuites name=\"floorsim compare\" tests=\"1\" failures=\"0\" errors=\"1\">\n";
  x += fmt::format("  <testsuite name=\"{}\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n", xml_escape(suite_name));
  x += "    <testcase classname=\"floorsim.compare\" name=\"inputs readable\">\n";
  x += fmt::format("      <error type=\"bad input\" message=\"{}\">{}</error>\n", xml_escape(error), xml_escape(error));
  x += "    </testcase>\n  </testsuite>\n</testsuites>\n";
  return x;
}

}  // namespace floorsim::app::compare
