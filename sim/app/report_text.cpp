#include "sim/app/report_text.hpp"

#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "sim/core/build_info.hpp"
#include "sim/core/io.hpp"
#include "sim/core/sha256.hpp"
#include "sim/core/output_guard.hpp"


namespace floorsim::app::report {

using json = nlohmann::json;

std::string html_esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

namespace {

std::vector<std::string> split_path(const std::string& p) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : p) {
    if (c == '/' || c == '.') {
      if (!cur.empty()) parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  return parts;
}

// Leaf names in words, with their unit.
const std::map<std::string, MetricWords>& leaf_words() {
  static const std::map<std::string, MetricWords> w{
      {"utilization", {"GPU utilization", Unit::Percent}},
      {"floor_attainment", {"floor attainment", Unit::Percent}},
      {"makespan_s", {"makespan", Unit::Time}},
      {"deadline_margin_s", {"deadline margin", Unit::Time}},
      {"deadline_misses", {"deadline misses", Unit::Plain}},
      {"preemptions", {"preemptions", Unit::Plain}},
      {"cascade_preemptions", {"cascading preemptions", Unit::Plain}},
      {"requeues", {"requeues", Unit::Plain}},
      {"lost_gpu_s", {"lost work", Unit::GpuHours}},
      {"gpu_s_allocated", {"GPU time allocated", Unit::GpuHours}},
      {"gpu_s_used", {"GPU time used", Unit::GpuHours}},
      {"slowest_s", {"slowest flow", Unit::Plain}},
      {"mean_s", {"mean flow time", Unit::Plain}},
      {"p99_s", {"p99 flow time", Unit::Plain}},
      {"jobs", {"jobs", Unit::Plain}},
  };
  return w;
}

}  // namespace

MetricWords describe_metric(const std::string& pointer) {
  const std::vector<std::string> parts = split_path(pointer);
  if (parts.empty()) return {pointer, Unit::Plain};
  std::string prefix;
  size_t i = 0;
  if (parts.size() >= 3 && parts[0] == "classes") prefix = parts[1] + " ", i = 2;
  else if (parts.size() >= 4 && parts[0] == "traffic") prefix = parts[1] + ", " + parts[2] + ": ", i = 3;
  else if (parts.size() >= 4 && parts[0] == "runtime" && parts[1] == "jobs") prefix = parts[2] + ", " + parts[3] + ": ", i = 4;
  // wait_s/p99 -> "p99 wait"
  if (i + 2 == parts.size() && parts[i] == "wait_s") return {prefix + parts[i + 1] + " wait", Unit::Time};
  const std::string leaf = parts.back();
  if (auto it = leaf_words().find(leaf); it != leaf_words().end() && i + 1 == parts.size())
    return {prefix + it->second.words, it->second.unit};
  // Fallback: the remaining path in words; a _s leaf is a time.
  std::string words = prefix;
  for (size_t k = i; k < parts.size(); ++k) {
    std::string p = parts[k];
    if (k + 1 == parts.size() && p.size() > 2 && p.compare(p.size() - 2, 2, "_s") == 0) p.resize(p.size() - 2);
    for (auto& c : p)
      if (c == '_') c = ' ';
    words += (k > i ? " " : "") + p;
  }
  const bool time = leaf.size() > 2 && leaf.compare(leaf.size() - 2, 2, "_s") == 0;
  return {words, time ? Unit::Time : Unit::Plain};
}

std::string unit_suffix(Unit u) {
  switch (u) {
    case Unit::Time: return " (h:mm)";
    case Unit::Percent: return " (%)";
    case Unit::GpuHours: return " (GPU-hours)";
    default: return "";
  }
}

double to_display(Unit u, double v) {
  switch (u) {
    case Unit::Time: return v / 3600;
    case Unit::Percent: return v * 100;
    case Unit::GpuHours: return v / 3600;
    default: return v;
  }
}

std::string hmm(double seconds) {
  const double a = std::fabs(seconds);
  const auto minutes = static_cast<int64_t>(std::llround(a / 60));
  return fmt::format("{}{}:{:02}", seconds < 0 && minutes > 0 ? "-" : "", minutes / 60, minutes % 60);
}

std::string format_display(Unit u, double shown) {
  switch (u) {
    case Unit::Time: return hmm(shown * 3600);
    case Unit::Percent: return fmt::format("{:.3g}%", shown);
    case Unit::GpuHours: return fmt::format("{:.4g}", shown);
    default: return fmt::format("{:.4g}", shown);
  }
}

std::vector<std::string> noop_axes(const json& axes, const std::vector<json>& lines, const std::vector<std::string>& metrics) {
  auto shown = [&](const json& l) {  // what the report shows of a point
    json r = json::array();
    for (const auto& m : metrics) {
      const json::json_pointer jp(m);
      r.push_back(l.contains("metrics") && l["metrics"].contains(jp) ? l["metrics"].at(jp) : json());
    }
    r.push_back(l.contains("verdict") ? l["verdict"].value("pass", json()) : json());
    r.push_back(l.value("error", json()));
    return r.dump();
  };
  std::vector<std::string> out;
  for (const auto& axis : axes) {
    const std::string name = axis.value("name", std::string());
    std::map<std::string, std::set<std::string>> results, values;  // other axes' values -> results / this axis's values
    for (const auto& l : lines) {
      if (!l.contains("axes")) continue;
      json others = l["axes"];
      const std::string v = others.value(name, json()).dump();
      others.erase(name);
      const std::string key = others.dump();
      results[key].insert(shown(l));
      values[key].insert(v);
    }
    bool compared = false, same = true;
    for (const auto& [key, vs] : values) {
      if (vs.size() > 1) compared = true;
      if (results[key].size() > 1) same = false;
    }
    if (compared && same) out.push_back(name);
  }
  return out;
}

std::string footer_html(const std::string& description, const std::vector<std::filesystem::path>& inputs) {
  std::string h = "<footer id=\"footer\" class=\"note\"><hr>\n";
  if (!description.empty()) h += fmt::format("<p>Scenario: {}</p>\n", html_esc(description));
  h += fmt::format("<p>floorsim {} (commit {}). Inputs (SHA-256):</p>\n<ul>\n", html_esc(io::kVersion), html_esc(io::kCommit));
  for (const auto& p : inputs)
    if (std::filesystem::is_regular_file(p)) h += fmt::format("<li><code>{}</code> {}</li>\n", io::sha256_hex(io::read_file(p)), html_esc(p.filename().string()));
  return h + "</ul></footer>\n";
}

}  // namespace floorsim::app::report
